"""dnsperf runs and what they report: queries/s, latency percentiles at a
fixed offered rate, and the server's CPU time per 1,000 queries."""
import re
import statistics

import targets  # noqa: F401 (puts bench/boot on the path)
from measure import CLOCK_TICKS, group_ticks


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def dnsperf(ns, address, port, queries_file, seconds, extra=(), timeout_margin=60):
    args = ["dnsperf", "-s", address, "-p", str(port), "-d", queries_file, "-l", str(seconds), *extra]
    return ns.sh(" ".join(args), timeout=seconds + timeout_margin).stdout


def throughput(ns, target, queries_file, seconds, outstanding=100):
    """Queries/s with `outstanding` in flight, and CPU ms per 1,000 answered queries."""
    before = group_ticks(target.pid)
    out = dnsperf(ns, target.address, target.port, queries_file, seconds, ["-q", str(outstanding)])
    used = group_ticks(target.pid) - before
    completed = int(re.search(r"Queries completed:\s+(\d+)", out).group(1))
    qps = float(re.search(r"Queries per second:\s+([\d.]+)", out).group(1))
    lost = int(re.search(r"Queries lost:\s+(\d+)", out).group(1))
    cpu_ms = used / CLOCK_TICKS * 1000 / completed * 1000 if completed else None
    return {"qps": qps, "cpu_ms_per_1000": cpu_ms, "lost": lost, "completed": completed}


def latency(ns, target, queries_file, seconds, rate):
    """Latency of each answer (ms) at a fixed offered `rate` of queries/s."""
    out = dnsperf(ns, target.address, target.port, queries_file, seconds, ["-Q", str(rate), "-v"])
    values = [float(x) * 1000 for x in re.findall(r"^> \S+ \S+ \S+ ([\d.]+)$", out, re.M)]
    if not values:
        return {"p50": None, "p90": None, "p99": None, "answered": 0}
    return {"p50": percentile(values, 50), "p90": percentile(values, 90), "p99": percentile(values, 99),
            "answered": len(values)}


def median(rounds, key):
    values = [r[key] for r in rounds if r.get(key) is not None]
    return statistics.median(values) if values else None
