#!/usr/bin/python3
"""DNS benchmark (not a test): Keel's DNS appliance beside NSD and Knot, in one run.

  bench/dns/run.sh [--rounds 3] [--seconds 10] [--quick]

Two zones, both named keel.test (the name the Linux VM peer's configs serve):
the 2015 IncludeOS paper's 10,000 A records, and a mixed zone (test/dns's
features zone: every type, wildcards, CNAME chains, delegations). dnsperf
(in the load namespace) measures, for every server in turn, round after
round: queries/s with 100 queries in flight, the server's CPU time per 1,000
answered queries (utime+stime of its processes, QEMU's for a VM), and the
latency of each answer at a fixed offered 1,000 queries/s. Also: the
smallest memory in which each VM serves the 10,000 records, and the size of
the image (bench/dns/image_size.py). Servers: see targets.py. Under TCG the
guests' figures are an emulator's, so Keel is compared with the Linux VM on
the same QEMU line, and with the native processes for scale.
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

import image_size
import load
import targets

sys.path.insert(0, os.path.join(targets.ROOT, "tools"))
from keelpy import bench_report  # noqa: E402
from keelpy.bench_report import Comparison  # noqa: E402
import appliance  # noqa: E402
import linux_guest  # noqa: E402
import zonegen  # noqa: E402
from measure import smallest_memory  # noqa: E402

MEMORY = "256M"  # the Linux peer needs it: its initramfs (~60 MB) lives in RAM
LATENCY_RATE = 1000
KEEL, NSD_VM, KNOT_VM = "Keel image", "NSD in the Linux VM", "Knot in the Linux VM"
NSD_NETNS, KNOT_NETNS, KEEL_PROCESS = "NSD in a netns", "Knot in a netns", "Keel process"


def zones(records):
    """{zone set: (zone text, dnsperf query lines)}; both zones are keel.test."""
    rng = random.Random(1)
    paper = zonegen.a_records_zone(records, targets.ZONE)
    paper_queries = [f"host{i}.{targets.ZONE} A" for i in rng.sample(range(records), records)]
    mixed = zonegen.FEATURES["example.com"].replace("example.com", targets.ZONE)
    names = sorted({line.split()[0] for line in mixed.splitlines()
                    if line and not line[0].isspace() and not line.startswith(("$", "@"))})
    types = ["A", "A", "A", "AAAA", "AAAA", "MX", "TXT", "NS", "SOA", "CNAME", "SRV", "DS"]
    mixed_queries = []
    for _ in range(5000):
        name = rng.choice(names + ["nx", "zz.nx", "a.wild", "b.c.wild", "x.sub", "x.dn"])
        mixed_queries.append(f"{name}.{targets.ZONE} {rng.choice(types)}".replace("\\", ""))
    return {"10,000 A records" if records == 10000 else f"{records} A records": (paper, paper_queries),
            "mixed zone": (mixed, mixed_queries)}


def start_all(ns, peer, work, zone_dir, zone_file, keel_image, keel_program, linux):
    """Every server on the zone in `zone_dir`; returns ({label: Target}, [things to close]).
    If one fails to start or answer, those already started are closed before the error."""
    found, things = {}, []
    try:
        for make in (lambda: targets.keel_image(ns, keel_image, 0, MEMORY),
                     lambda: targets.linux_vm(ns, linux, "nsd", 1, zone_file, work, MEMORY),
                     lambda: targets.linux_vm(ns, linux, "knot", 2, zone_file, work, MEMORY),
                     lambda: targets.netns_server(peer, "nsd", 53, work, zone_dir),
                     lambda: targets.netns_server(peer, "knot", 5302, work, zone_dir),
                     lambda: targets.keel_process(ns, keel_program, 3)):
            target, thing = make()
            found[target.label] = target
            things.append(thing)
        wait_answering(ns, found.values())
    except BaseException:
        for thing in reversed(things):
            thing.close()
        raise
    return found, things


def answers(ns, target, timeout):
    """True once `target` answers the zone's SOA (kdig), False if it exits or times out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if target.process.poll() is not None:
            return False
        out = subprocess.run(ns.exec_args(["kdig", f"@{target.address}", "-p", str(target.port), targets.ZONE,
                                           "SOA", "+short", "+timeout=1", "+retry=0"]),
                             capture_output=True, text=True, timeout=30).stdout
        if out.strip():
            return True
        time.sleep(0.2)
    return False


def wait_answering(ns, servers, timeout=180):
    for target in servers:
        if not answers(ns, target, timeout):
            raise RuntimeError(f"{target.label} does not answer for {targets.ZONE}")


def measure(args, ns, found, queries_file):
    """{label: [per-round figures]} with the servers measured in turn each round."""
    figures = {label: [] for label in found}
    for r in range(args.rounds):
        for label, target in found.items():
            result = load.throughput(ns, target, queries_file, args.seconds)
            result.update(load.latency(ns, target, queries_file, args.latency_seconds, LATENCY_RATE))
            figures[label].append(result)
            print(f"  round {r + 1}/{args.rounds} {label}: {result['qps']:.0f} q/s, "
                  f"{result['cpu_ms_per_1000'] or 0:.2f} ms CPU per 1,000, p50 {result['p50'] or 0:.3f} ms, "
                  f"lost {result['lost']}", flush=True)
    return figures


def smallest_vm_memory(ns, work, zone_file, image, linux, program):
    """Smallest -m (MiB) at which the VM (Keel image or Linux peer) answers for its zone."""
    def works(mib):
        try:
            if program == "keel":
                target, thing = targets.keel_image(ns, image, 0, f"{mib}M")
            else:
                target, thing = targets.linux_vm(ns, linux, program, 1, zone_file, work, f"{mib}M")
        except AssertionError:  # the Keel image stopped before it listened
            return False
        try:
            return answers(ns, target, 90)
        finally:
            thing.close()
    return smallest_memory(works, 2, 256)


def host_answer_costs(zone_file, queries_file, rounds):
    """Server::answer alone on the host (answer_bench.cpp): ns per query, pre-rendered and computed."""
    from keelpy.paths import HOST_BUILD
    subprocess.run(["cmake", "-S", targets.ROOT, "-B", HOST_BUILD, "-G", "Ninja"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", HOST_BUILD, "--target", "dns_answer_bench"], check=True, capture_output=True)
    out = subprocess.run([os.path.join(HOST_BUILD, "test", "dns", "dns_answer_bench"), targets.ZONE, zone_file,
                          queries_file, str(rounds)], check=True, capture_output=True, text=True).stdout
    found = dict(re.findall(r"^(pre-rendered|computed|floor): ([\d.]+) ns", out, re.M))
    share = re.search(r"pre-rendered: [\d.]+ ns per query \((\d+)% pre-rendered\)", out)
    return {"prerendered": float(found["pre-rendered"]), "computed": float(found["computed"]),
            "floor": float(found["floor"]), "share": int(share.group(1))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--latency-seconds", type=int, default=5)
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--quick", action="store_true",
                        help="seconds each, the mixed zone only, no memory search (CI); writes to build/bench-quick/")
    args = parser.parse_args()
    # A stopped run still tears down its namespaces, guests and servers (the finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.quick:
        args.rounds, args.seconds, args.latency_seconds = 1, 1, 1
    out = bench_report.results_dir(args.quick)
    linux = linux_guest.build("peers")
    size_lines = image_size.report(*image_size.build())
    results, memory, host = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="keel-bench-dns-") as work:
        zone_sets = zones(args.records)
        if args.quick:  # CI checks the script works: one zone set's six servers are enough
            zone_sets = {"mixed zone": zone_sets["mixed zone"]}
        for zone_set, (text, query_lines) in zone_sets.items():
            zone_dir = os.path.join(work, re.sub(r"\W+", "-", zone_set))
            zone_file = os.path.join(zone_dir, f"{targets.ZONE}.zone")
            os.makedirs(zone_dir)
            with open(zone_file, "w") as f:
                f.write(text)
            queries_file = os.path.join(zone_dir, "queries.txt")
            with open(queries_file, "w") as f:
                f.write("\n".join(query_lines) + "\n")
            host[zone_set] = host_answer_costs(zone_file, queries_file, 3 if args.quick else 15)
            keel_image = appliance.build(zone_dir, "kvm")
            keel_program = appliance.build(zone_dir, "linux")
            ns = appliance.Namespace(taps=4)
            peer, things = targets.peer_namespace(ns), []
            try:
                found, things = start_all(ns, peer, work, zone_dir, zone_file, keel_image, keel_program, linux)
                print(f"dns: {zone_set}: all six servers answer; measuring", flush=True)
                results[zone_set] = measure(args, ns, found, queries_file)
                for thing in things:
                    thing.close()
                things = []
                if not args.quick and zone_set.startswith("10,000"):
                    for program in ("keel", "nsd", "knot"):
                        memory[program] = smallest_vm_memory(ns, work, zone_file, keel_image, linux, program)
                        print(f"dns: smallest memory, {program}: {memory[program]} MiB", flush=True)
            finally:
                for thing in reversed(things):
                    thing.close()
                peer.close()
                ns.close()
    write_report(out, args, results, memory, size_lines, host)


def comparisons(results, memory):
    rows = []
    for zone_set, figures in results.items():
        pick = lambda label, key: load.median(figures[label], key)  # noqa: E731
        rows.append(Comparison(f"{zone_set}: queries/s", "q/s", pick(KEEL, "qps"), pick(NSD_VM, "qps"),
                               pick(NSD_NETNS, "qps"), lower_is_better=False, goal=1.5))
        rows.append(Comparison(f"{zone_set}: CPU per 1,000 queries", "ms", pick(KEEL, "cpu_ms_per_1000"),
                               pick(NSD_VM, "cpu_ms_per_1000"), pick(NSD_NETNS, "cpu_ms_per_1000")))
        for p in ("p50", "p99"):
            rows.append(Comparison(f"{zone_set}: latency {p} at {LATENCY_RATE:,} q/s", "ms", pick(KEEL, p),
                                   pick(NSD_VM, p), pick(NSD_NETNS, p)))
    if memory:
        rows.append(Comparison("10,000 A records: smallest memory", "MiB", memory.get("keel"), memory.get("nsd")))
    return rows


def all_servers_table(results):
    lines = ["| zone | server | queries/s | CPU ms per 1,000 | p50 ms | p90 ms | p99 ms | lost (all rounds) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for zone_set, figures in results.items():
        for label, rounds in figures.items():
            m = lambda key: load.median(rounds, key)  # noqa: E731
            cell = lambda v, f: "—" if v is None else format(v, f)  # noqa: E731
            lines.append(f"| {zone_set} | {label} | {cell(m('qps'), ',.0f')} | {cell(m('cpu_ms_per_1000'), '.2f')} "
                         f"| {cell(m('p50'), '.3f')} | {cell(m('p90'), '.3f')} | {cell(m('p99'), '.3f')} "
                         f"| {sum(r['lost'] for r in rounds)} |")
    return lines


def host_table(host):
    lines = ["| zone | pre-rendered ns per query | share pre-rendered | computed ns per query | 64-byte copy ns |",
             "| --- | --- | --- | --- | --- |"]
    for zone_set, h in host.items():
        lines.append(f"| {zone_set} | {h['prerendered']:.0f} | {h['share']}% | {h['computed']:.0f} | {h['floor']:.1f} |")
    return lines


def write_report(out, args, results, memory, size_lines, host):
    table = comparisons(results, memory)
    command = "tools/keel bench dns" + (" --quick" if args.quick else "")
    lines = ["# DNS benchmark", "",
             f"`{command}` (rounds {args.rounds}, {args.seconds} s of load per figure, latency over "
             f"{args.latency_seconds} s at {LATENCY_RATE:,} q/s), {bench_report.machine_line('tcg')}.", "",
             "Servers (bench/dns/targets.py): **Keel image** — examples/dns in QEMU (microvm, 1 vCPU, "
             f"{MEMORY}, TCG) on a TAP device; **NSD / Knot in the Linux VM** — bench/linux-vm's guest on the "
             "same QEMU line; **NSD / Knot in a netns** — Linux processes behind a veth pair; **Keel process** "
             "— examples/dns built for the linux platform on a TAP device. NSD with one server process and "
             "Knot with one UDP worker, both with minimal responses and no rate limiting, like Keel. Load: "
             "dnsperf 2.10 with 100 queries in flight (queries/s), then at a fixed 1,000 q/s (latency of each "
             "answer); CPU is utime+stime of the server's processes (QEMU's for a VM) over the load run. "
             "Figures are medians over the rounds; servers are measured in turn within each round.", "",
             "## Keel beside NSD", "", *bench_report.comparison_table(table), "",
             "Goal (issue 11): at least 1.5× NSD's queries/s in the Linux VM under the same QEMU. *Linux "
             "netns* is NSD as a native process, for scale: the guests run under TCG here "
             "(docs/decisions/0003).", "",
             "## Every server", "", *all_servers_table(results), ""]
    if memory:
        lines += [f"Smallest memory serving the 10,000 records (binary search on -m, MiB): Keel image "
                  f"{memory.get('keel')}, NSD in the Linux VM {memory.get('nsd')}, Knot in the Linux VM "
                  f"{memory.get('knot')}.", ""]
    lines += ["## The answer path alone", "",
              "`Server::answer` on the host, no network (bench/dns/answer_bench.cpp, median of rounds over the "
              "same query files), with the answers pre-rendered at load time and computed for each query:", "",
              *host_table(host), ""]
    lines += ["## Image size", "", *size_lines, "",
              "How the image could reach the 512 KiB goal: see docs/dns.md, \"Size\".", ""]
    with open(os.path.join(out, "dns.md"), "w") as f:
        f.write("\n".join(lines))
    bench_report.write_csv(os.path.join(out, "dns.csv"), table)
    bench_report.plot_comparisons(os.path.join(out, "dns.png"), "DNS: Keel image beside NSD in the Linux VM",
                                  table)
    print(f"dns: wrote {os.path.join(out, 'dns.md')}", flush=True)


if __name__ == "__main__":
    main()
