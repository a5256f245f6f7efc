"""The CETIC study's method for `keel bench http`: every server gets the same fixed request
rates, stepped up until it fails; latency is counted from each request's due time
(bench/http/fixed_rate.c, the method of wrk2). At each step the servers still standing take
turns (the order reversed each step). A server fails a step when a request is lost or its
p99 passes FAIL_P99_MS; it is not stepped further."""
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL_P99_MS = 1000
CONNECTIONS = 10


def compile_tool(work):
    tool = os.path.join(work, "fixed_rate")
    subprocess.run(["gcc", "-O2", "-Wall", "-o", tool, os.path.join(HERE, "fixed_rate.c"), "-lm"],
                   check=True, capture_output=True, timeout=120)
    return tool


def one_step(ns, tool, address, path, rate, seconds):
    """{"p50", "p90", "p99", "max" (ms, inf when lost), "lost", "errors"} at one rate."""
    done = subprocess.run(ns.exec_args([tool, address, "80", path, str(rate), str(seconds), str(CONNECTIONS)]),
                          capture_output=True, text=True, timeout=seconds + 60, check=False)
    if done.returncode:  # could not connect: the server failed this rate outright
        print(f"  fixed_rate {address} at {rate}/s: {done.stderr.strip()}", flush=True)
        return {"p50": math.inf, "p90": math.inf, "p99": math.inf, "max": math.inf, "lost": rate * seconds,
                "errors": 1}
    words = done.stdout.split()
    values = dict(zip(words[::2], words[1::2]))
    result = {k: float(values[k]) for k in ("p50", "p90", "p99", "max")}
    result.update(lost=int(values["lost"]), errors=int(values["errors"]))
    return result


def failed(result):
    return result["lost"] > 0 or result["p99"] > FAIL_P99_MS


def step(ns, tool, targets, path, rates, seconds):
    """{label: [(rate, result), ...]} up to and including each target's failing step."""
    steps = {label: [] for label in targets}
    standing = list(targets)
    for i, rate in enumerate(rates):
        for label in (standing if i % 2 == 0 else reversed(standing)):
            result = one_step(ns, tool, targets[label], path, rate, seconds)
            steps[label].append((rate, result))
            print(f"  fixed rate {rate}/s {label}: p99 {result['p99']} ms, lost {result['lost']}", flush=True)
        standing = [label for label in standing if not failed(steps[label][-1][1])]
        if not standing:
            break
    return steps


def highest_sustained(results):
    """The highest rate a target served without failing, or 0."""
    return max((rate for rate, r in results if not failed(r)), default=0)


def p99_goal(steps, keel, peer):
    """Issue 23's goal: Keel's p99 no worse than the peer's at each rate both served."""
    theirs = {rate: r for rate, r in steps[peer] if not failed(r)}
    both = [(rate, r["p99"], theirs[rate]["p99"]) for rate, r in steps[keel] if rate in theirs]
    worse = [f"{rate:,}/s ({mine:.1f} vs {peer_p99:.1f} ms)" for rate, mine, peer_p99 in both if mine > peer_p99]
    if not both:
        return f"p99 goal (Keel no worse than {peer}): no rate that both served."
    return (f"p99 goal (Keel no worse than {peer} at each rate both served, {len(both)} rates): "
            + ("met." if not worse else "missed at " + ", ".join(worse) + "."))


def report_lines(steps, seconds, keel, peer):
    labels = list(steps)
    rates = sorted({rate for results in steps.values() for rate, _ in results})
    lines = ["## Fixed request rates (the CETIC method)", "",
             f"`bench/http/fixed_rate.c`: {CONNECTIONS} keep-alive connections share a schedule of "
             f"requests at the given rate for {seconds} s; latency is counted from each request's due "
             "time, so a server that falls behind is charged for its queue (as wrk2). A server fails a "
             f"rate when a request is lost or its p99 passes {FAIL_P99_MS} ms, and is not stepped further. "
             "p99 latency in ms (\"lost N\": N requests unanswered 5 s after the schedule ended).", "",
             "| rate (req/s) | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for rate in rates:
        cells = []
        for label in labels:
            r = dict(steps[label]).get(rate)
            cells.append("—" if r is None else (f"lost {r['lost']}" if r["lost"] else f"{r['p99']:.1f}"))
        lines.append(f"| {rate:,} | " + " | ".join(cells) + " |")
    lines += ["", "Highest rate served: " + "; ".join(
        f"{label} {highest_sustained(steps[label]):,}/s" for label in labels) + ".", "",
              p99_goal(steps, keel, peer), ""]
    return lines


def plot(path, steps):
    """p99 latency against the offered rate, one line per server (log scales)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for label, results in steps.items():
        served = [(rate, r["p99"]) for rate, r in results if not r["lost"]]
        if served:
            ax.plot(*zip(*served), marker="o", label=label)
    ax.axhline(FAIL_P99_MS, color="grey", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("offered requests/s")
    ax.set_ylabel("p99 latency (ms, from the due time)")
    ax.set_title("HTTP at fixed request rates (microvm, TCG)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_rates(text):
    rates = [int(x) for x in text.split(",")]
    if not rates or rates != sorted(rates) or rates[0] <= 0:
        raise SystemExit(f"--rates must be increasing positive numbers: {text!r}")
    return rates
