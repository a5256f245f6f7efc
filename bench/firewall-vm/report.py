"""bench/results/firewall_vm.{md,csv,png} from the rows bench_firewall_vm.py measured (one row per
mix and rule count); every measured figure also goes to firewall_vm_rows.csv."""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
from keelpy import bench_report  # noqa: E402
from keelpy.bench_report import Comparison  # noqa: E402

ROUTERS = [("keel", "Keel image"), ("vm_nft", "Linux VM, nftables"), ("vm_linear", "Linux VM, linear rules"),
           ("netns_nft", "Linux netns, nftables"), ("netns_linear", "Linux netns, linear rules")]
# (key, column heading, scale, digits)
FIGURES = [("pps_64", "UDP pkt/s 64 B", 1, 0), ("pps_1400", "UDP pkt/s 1400 B", 1, 0),
           ("tcp_bps", "TCP Mbit/s", 1e-6, 1), ("rtt_ms", "ICMP RTT ms", 1, 2), ("udp_rr", "UDP req/s", 1, 0),
           ("tcp_rr", "TCP req/s", 1, 0), ("tcp_crr", "TCP conn/s", 1, 0), ("launch_ms", "launch ms", 1, 0),
           ("image_bytes", "image MiB", 1 / 2**20, 1)]
MIX_NAMES = {"b": "blocklist (mix b: /32 sources)", "acl": "ClassBench-style ACL (mix acl)"}
LAUNCH_GOAL_MS = 300
SCALING_GOAL = 0.7
LINEAR_GOAL_RULES, LINEAR_GOAL = 20000, 10


def cell(row, key, scale=1.0, digits=0):
    """The median, and how far the rounds' least and greatest lay from it (the larger side)."""
    v = row.get(key)
    if v is None:
        return ""
    lo, hi = row.get(f"{key}_lo"), row.get(f"{key}_hi")
    if lo is None or hi is None or not v or lo == hi:
        return f"{v * scale:,.{digits}f}"
    return f"{v * scale:,.{digits}f} ±{max(hi - v, v - lo) / v:.0%}"


def span(row, key):
    """(least, greatest) of the rounds for `key`, or None."""
    lo, hi = row.get(f"{key}_lo"), row.get(f"{key}_hi")
    return None if lo is None or hi is None else (lo, hi)


def ranges(row, key, vm, netns):
    return {"keel": span(row, f"keel_{key}"), "linux_vm": span(row, f"{vm}_{key}"),
            "linux_netns": span(row, f"{netns}_{key}")}


def behind_or_not(row, key, peer="vm_nft"):
    """Whether Keel's rounds put it below the peer ("behind"), at or above it ("ahead"), or
    the rounds' spread covers both ("no verdict"); None if either was not measured."""
    keel, other = row.get(f"keel_{key}"), row.get(f"{peer}_{key}")
    if keel is None or not other:
        return None
    c = Comparison("", "", keel, other, None, lower_is_better=False,
                   ranges={"keel": span(row, f"keel_{key}"), "linux_vm": span(row, f"{peer}_{key}")})
    if not c.decided("linux_vm"):
        return bench_report.NO_VERDICT
    return "behind" if keel < other else "ahead"


def load_cell(row):
    if row.get("load_median") is None:
        return ""
    return f"{row['load_median']:.1f} ({row['load_lo']:.1f}–{row['load_hi']:.1f})"


def by_mix(rows):
    out = {}
    for r in rows:
        out.setdefault(r["mix"], []).append(r)
    return out


def comparisons(rows):
    out = []
    for mix, mix_rows in by_mix(rows).items():
        last = mix_rows[-1]
        with_vm = [r for r in mix_rows if r.get("vm_nft_pps_64")]
        vm = with_vm[-1] if with_vm else last
        where = f"{vm['rules']:,} rules, mix {mix}"
        for key, name, unit, lower in (("pps_64", "forwarded UDP 64 B", "pkt/s", False),
                                       ("tcp_bps", "TCP throughput", "bit/s", False),
                                       ("tcp_crr", "new TCP connections", "conn/s", False)):
            out.append(Comparison(f"{name}, {where} (firewall)", unit, vm.get(f"keel_{key}"),
                                  vm.get(f"vm_nft_{key}"), vm.get(f"netns_nft_{key}"), lower_is_better=lower,
                                  goal=1 if key == "pps_64" else None,
                                  ranges=ranges(vm, key, "vm_nft", "netns_nft")))
        out.append(Comparison(f"launch to first forwarded packet, {last['rules']:,} rules, mix {mix} (firewall)",
                              "ms", last.get("keel_launch_ms"), last.get("vm_nft_launch_ms") if last is vm else None,
                              None, lower_is_better=True))
        out.append(Comparison(f"router image size, {vm['rules']:,} rules, mix {mix} (firewall)", "bytes",
                              vm.get("keel_image_bytes"), vm.get("vm_nft_image_bytes"), None, lower_is_better=True))
    linear = [r for r in rows if r["rules"] == LINEAR_GOAL_RULES and r.get("vm_linear_pps_64")]
    if linear:
        r = linear[0]
        out.append(Comparison(f"forwarded UDP 64 B pkt/s, {LINEAR_GOAL_RULES:,} linear rules (firewall)", "pkt/s",
                              r.get("keel_pps_64"), r.get("vm_linear_pps_64"), r.get("netns_linear_pps_64"),
                              lower_is_better=False, goal=LINEAR_GOAL,
                              ranges=ranges(r, "pps_64", "vm_linear", "netns_linear")))
    return out


def goals(rows):
    lines = []
    for mix, mix_rows in by_mix(rows).items():
        first, last = mix_rows[0], mix_rows[-1]
        if first.get("keel_pps_64") and last.get("keel_pps_64"):
            share = last["keel_pps_64"] / first["keel_pps_64"]
            c = Comparison("", "", last["keel_pps_64"], first["keel_pps_64"], lower_is_better=False,
                           ranges={"keel": span(last, "keel_pps_64"), "linux_vm": span(first, "keel_pps_64")})
            verdict = ("met" if share >= SCALING_GOAL else "not met") if c.decided("linux_vm", SCALING_GOAL) \
                else f"{bench_report.NO_VERDICT}: the rounds give {c.ratio_range('linux_vm')[0]:.0%}–" \
                     f"{c.ratio_range('linux_vm')[1]:.0%}"
            # Two rows, measured minutes apart: their loads say how comparable they are.
            loads = (f" (machine load {first['load_median']:.1f}, then {last['load_median']:.1f})"
                     if first.get("load_median") is not None and last.get("load_median") is not None else "")
            lines.append(f"- Mix {mix}: at {last['rules']:,} rules the image forwards {share:.0%} of its "
                         f"{first['rules']}-rule rate{loads} (goal ≥ {SCALING_GOAL:.0%}): {verdict}.")
        if last.get("keel_launch_ms") is not None:
            ms = last["keel_launch_ms"]
            lines.append(f"- Mix {mix}: launch to the first forwarded packet with {last['rules']:,} rules compiled "
                         f"in: {ms:.0f} ms, one launch (goal < {LAUNCH_GOAL_MS} ms): "
                         f"{'met' if ms < LAUNCH_GOAL_MS else 'not met'}.")
        measured = [r for r in mix_rows if r.get("vm_nft_pps_64")]
        for key, name in (("pps_64", "forwarded UDP 64 B pkt/s"), ("tcp_bps", "TCP throughput"),
                          ("udp_rr", "UDP req/s"), ("tcp_rr", "TCP req/s"), ("tcp_crr", "TCP conn/s")):
            fates = {f"{r['rules']:,}": behind_or_not(r, key) for r in measured}
            behind = [n for n, fate in fates.items() if fate in ("behind", None)]
            open_ = [n for n, fate in fates.items() if fate == bench_report.NO_VERDICT]
            ahead = len(fates) - len(behind) - len(open_)
            parts = [f"behind at {', '.join(behind)}"] if behind else []
            parts += [f"{bench_report.NO_VERDICT} at {', '.join(open_)}"] if open_ else []
            verdict = "not met" if behind else "" if open_ else "met" if measured else bench_report.NO_VERDICT
            lines.append(f"- Mix {mix}, {name}: at least the Linux VM with nftables at "
                         f"{ahead} of {len(measured)} rule counts ({'; '.join(([verdict] if verdict else []) + parts)}).")
    linear = [r for r in rows if r["rules"] == LINEAR_GOAL_RULES and r.get("vm_linear_pps_64")]
    if linear and linear[0].get("keel_pps_64"):
        r = linear[0]
        x = r["keel_pps_64"] / r["vm_linear_pps_64"]
        c = Comparison("", "", r["keel_pps_64"], r["vm_linear_pps_64"], lower_is_better=False,
                       ranges=ranges(r, "pps_64", "vm_linear", "netns_linear"))
        verdict = ("met" if x >= LINEAR_GOAL else "not met") if c.decided("linux_vm", LINEAR_GOAL) \
            else bench_report.NO_VERDICT
        lines.append(f"- At {LINEAR_GOAL_RULES:,} rules, {x:.1f}× the Linux VM with linear (iptables-style) rules "
                     f"(goal ≥ {LINEAR_GOAL}×): {verdict}.")
    else:
        lines.append(f"- {LINEAR_GOAL_RULES:,} linear rules were not in this run.")
    return lines


def tables(rows):
    lines = []
    for mix, mix_rows in by_mix(rows).items():
        for key, label in ROUTERS:
            if not any(r.get(f"{key}_pps_64") is not None for r in mix_rows):
                continue
            shown = [f for f in FIGURES if any(r.get(f"{key}_{f[0]}") is not None for r in mix_rows)]
            lines += ["", f"### {label}: {MIX_NAMES.get(mix, mix)}", "",
                      "| rules | " + " | ".join(f[1] for f in shown) + " | load |", "|---" * (len(shown) + 2) + "|"]
            for r in mix_rows:
                if r.get(f"{key}_pps_64") is None:
                    continue
                lines.append(f"| {r['rules']:,} | " + " | ".join(cell(r, f"{key}_{k}", scale, digits)
                                                                for k, _, scale, digits in shown)
                             + f" | {load_cell(r)} |")
    return lines


def plot(path, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [("pps_64", "forwarded UDP 64 B packets/s"), ("tcp_bps", "TCP bit/s (iperf3)"),
              ("tcp_crr", "new TCP connections/s"), ("launch_ms", "launch to first forwarded packet (ms)")]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5))
    for mix, mix_rows in by_mix(rows).items():
        style = "-" if mix == "b" else "--"
        for key, label in ROUTERS:
            for ax, (figure, _) in zip(axes, panels):
                points = [(r["rules"], r[f"{key}_{figure}"]) for r in mix_rows if r.get(f"{key}_{figure}")]
                if points:
                    ax.plot(*zip(*points), style, marker="o", label=f"{label} ({mix})")
    for ax, (_, title) in zip(axes, panels):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rules")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def write_rows(path, rows):
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys and "console" not in k]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def write(out, rows, args, seconds, window, rounds):
    lines = ["# Firewall appliance beside Linux routers", "",
             f"`{' '.join(['tools/keel bench firewall-vm'] + sys.argv[1:])}`, "
             f"{bench_report.machine_line('tcg')}. Rules of bench/firewall's generator (`firewall_bench gen`): "
             "mix b, a /32 source blocklist; mix acl, ClassBench-style ACL 5-tuples. Each is one forward chain "
             "with policy accept; rules that could match the test traffic are left out, so every packet is "
             "classified against all the others and passes. Conntrack on.", "",
             f"Rounds: for every rule count all routers are started (in turn, the order reversed at every other "
             f"count), then each figure is measured in {rounds} short rounds of {seconds:g} s, every router once a "
             "round, each round in the reverse order of the one before, so that the machine's load (shared; "
             "/proc/loadavg's 1-minute figure is read before every round: the *load* column, median and range) "
             "lands on all routers alike. A figure is the median of its rounds; ± is how far the farthest round "
             "lay from it. A ratio is given only where the rounds decide it: where Keel's worst round against the "
             "peer's best and its best against the peer's worst lie on the same side of 1 (or of the goal); "
             f"otherwise the spread is wider than the ratio's margin and the row says *{bench_report.NO_VERDICT}*. "
             "Launch is one launch per router and count (no rounds).", "",
             "Method: side A (10.0.0.1) ── router ── side B (10.1.0.1). Forwarded pkt/s: bench/net/udp_load.c "
             f"keeps {window} datagrams in flight to a UDP echo server for {seconds:g} s, 2 × echoes/s (each "
             "echo crosses the router twice). TCP: iperf3 from A to B, "
             f"{seconds:g} s. ICMP RTT: mean of 20 pings. UDP req/s: one 64 B datagram in flight. TCP req/s and "
             "conn/s: bench/firewall-vm/tcp_rr.c, 64 B requests on one connection, and a new connection per "
             "request (as netperf's TCP_RR and TCP_CRR). The VM routers (Keel image, Linux VM) run on the same "
             "QEMU line (microvm, TCG, `-smp 1,maxcpus=2`, 512 MiB, virtio-net on TAPs with EVENT_IDX, "
             "see bench/firewall-vm/routers.py); launch = QEMU started → first UDP echo "
             "through the router (a probe sends every 2 ms; it includes moving the TAPs to the sides, ~0.1 s, "
             "for both). Image = stripped Keel image with the rules; Linux VM = kernel + initramfs + the rules "
             "file. The Linux VM loads its rules (`nft -f`) before it starts forwarding, so its launch includes that. "
             "nftables = the blocklist as one set lookup; the ACL as `keel-fw nft` exports it (one nftables rule "
             "per ACL rule). Linear "
             "rules = one `ip saddr X drop` rule per address, what `iptables -A FORWARD -s X -j DROP` loads "
             "(Debian's iptables is iptables-nft, which also gives every rule a counter: so if anything these "
             "are faster than iptables), up to 20,000.", "",
             "## Goals (issue 10)", ""] + goals(rows)
    lines += ["", "## Keel beside Linux", ""] + bench_report.comparison_table(comparisons(rows))
    lines += ["", "## Every figure"] + tables(rows)
    notes = [r for r in rows if any("console" in k for k in r)]
    if notes:
        lines += ["", "Routers that forwarded nothing (their console's end):"]
        for r in notes:
            for k, v in r.items():
                if "console" in k:
                    lines += ["", f"{r['rules']} rules, mix {r['mix']}, {k}:", "```", v[-1500:], "```"]
    with open(os.path.join(out, "firewall_vm.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    bench_report.write_csv(os.path.join(out, "firewall_vm.csv"), comparisons(rows))
    write_rows(os.path.join(out, "firewall_vm_rows.csv"), rows)
    plot(os.path.join(out, "firewall_vm.png"), rows)
    print(f"firewall-vm: wrote {os.path.join(out, 'firewall_vm.md')}", flush=True)
