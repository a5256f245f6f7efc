"""bench/results/firewall_vm.{md,csv,png} from the rows bench_firewall_vm.py measured."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
from keelpy import bench_report  # noqa: E402
from keelpy.bench_report import Comparison  # noqa: E402

ROUTERS = [("keel", "Keel image"), ("vm_nft", "Linux VM, nftables set"), ("vm_linear", "Linux VM, linear rules"),
           ("netns_nft", "Linux netns, nftables set"), ("netns_linear", "Linux netns, linear rules")]
LAUNCH_GOAL_MS = 300
SCALING_GOAL = 0.7
LINEAR_GOAL_RULES, LINEAR_GOAL = 20000, 10


def cell(row, key, scale=1.0, digits=0):
    v = row.get(key)
    return "" if v is None else f"{v * scale:,.{digits}f}"


def comparisons(rows):
    last = rows[-1]
    out = [Comparison(f"forwarded UDP 64 B pkt/s at {last['rules']:,} rules (firewall)", "pkt/s",
                      last.get("keel_pps_64"), last.get("vm_nft_pps_64"), last.get("netns_nft_pps_64"),
                      lower_is_better=False, goal=1),
           Comparison(f"launch to first forwarded packet, {last['rules']:,} rules (firewall)", "ms",
                      last.get("keel_launch_ms"), last.get("vm_nft_launch_ms"), None, lower_is_better=True),
           Comparison(f"router image size, {last['rules']:,} rules (firewall)", "bytes",
                      last.get("keel_image_bytes"), last.get("vm_nft_image_bytes"), None, lower_is_better=True)]
    linear = [r for r in rows if r["rules"] == LINEAR_GOAL_RULES and r.get("vm_linear_pps_64")]
    if linear:
        r = linear[0]
        out.append(Comparison(f"forwarded UDP 64 B pkt/s, {LINEAR_GOAL_RULES:,} linear rules (firewall)", "pkt/s",
                              r.get("keel_pps_64"), r.get("vm_linear_pps_64"), r.get("netns_linear_pps_64"),
                              lower_is_better=False, goal=LINEAR_GOAL))
    return out


def goals(rows):
    lines = []
    first, last = rows[0], rows[-1]
    if first.get("keel_pps_64") and last.get("keel_pps_64"):
        share = last["keel_pps_64"] / first["keel_pps_64"]
        lines.append(f"- At {last['rules']:,} rules the image forwards {share:.0%} of its {first['rules']}-rule rate "
                     f"(goal ≥ {SCALING_GOAL:.0%}): {'met' if share >= SCALING_GOAL else 'not met'}.")
    if last.get("keel_launch_ms") is not None:
        ms = last["keel_launch_ms"]
        lines.append(f"- Launch to the first forwarded packet with {last['rules']:,} rules compiled in: {ms:.0f} ms "
                     f"(goal < {LAUNCH_GOAL_MS} ms): {'met' if ms < LAUNCH_GOAL_MS else 'not met'}.")
    beaten = [r["rules"] for r in rows if r.get("keel_pps_64") and r.get("vm_nft_pps_64")
              and r["keel_pps_64"] >= r["vm_nft_pps_64"]]
    measured = [r["rules"] for r in rows if r.get("vm_nft_pps_64")]
    lines.append(f"- At least the Linux VM with an nftables set at every rule count: at {len(beaten)} of "
                 f"{len(measured)} counts ({'met' if measured and len(beaten) == len(measured) else 'not met'}).")
    linear = [r for r in rows if r["rules"] == LINEAR_GOAL_RULES and r.get("vm_linear_pps_64")]
    if linear and linear[0].get("keel_pps_64"):
        x = linear[0]["keel_pps_64"] / linear[0]["vm_linear_pps_64"]
        lines.append(f"- At {LINEAR_GOAL_RULES:,} rules, {x:.1f}× the Linux VM with linear (iptables-style) rules "
                     f"(goal ≥ {LINEAR_GOAL}×): {'met' if x >= LINEAR_GOAL else 'not met'}.")
    else:
        lines.append(f"- {LINEAR_GOAL_RULES:,} linear rules were not in this run.")
    return lines


def plot(path, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, label in ROUTERS:
        points = [(r["rules"], r[f"{key}_pps_64"]) for r in rows if r.get(f"{key}_pps_64")]
        if points:
            axes[0].plot(*zip(*points), marker="o", label=label)
        points = [(r["rules"], r[f"{key}_launch_ms"]) for r in rows if r.get(f"{key}_launch_ms")]
        if points:
            axes[1].plot(*zip(*points), marker="o", label=label)
    for ax, title in ((axes[0], "forwarded UDP 64 B packets/s"), (axes[1], "launch to first forwarded packet (ms)")):
        ax.set_xscale("log")
        ax.set_xlabel("rules")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[1].set_yscale("log")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def write(out, rows, args, counts, seconds, window):
    lines = ["# Firewall appliance beside Linux routers", "",
             f"`tools/keel bench firewall-vm{' --quick' if args.quick else ''}`, "
             f"{bench_report.machine_line('tcg')}. Mix `{args.mix}` of bench/firewall (b: a /32 source "
             "blocklist), as a forward chain that none of the test traffic matches, conntrack on. Each rule count "
             "is measured for every router in turn, in one run.", "",
             "Method: side A (10.0.0.1) ── router ── side B (10.1.0.1, bench/net/udp_echo_server.c); "
             f"bench/net/udp_load.c keeps {window} datagrams in flight for {seconds:g} s; forwarded pkt/s = 2 × "
             "echoes/s (each echo crosses the router twice); RTT = mean of 20 pings. The VM routers (Keel image, "
             "Linux VM) run on the same QEMU line (microvm, TCG, 512 MiB, virtio-net on TAPs); launch = QEMU "
             "started → first UDP echo through the router (a probe sends every 2 ms; it includes moving the "
             "TAPs to the sides, ~0.1 s, for both). Image = stripped Keel image with the rules; Linux VM = "
             "kernel + initramfs + the rules file. Linear rules = one `ip saddr X drop` rule per address (what "
             "iptables-nft loads), up to 20,000.", ""]
    header = ["rules"]
    for key, label in ROUTERS:
        header += [f"{label}: pkt/s 64 B", "pkt/s 1400 B", "RTT ms", "launch ms", "image MiB"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        cells = [f"{r['rules']:,}"]
        for key, _ in ROUTERS:
            cells += [cell(r, f"{key}_pps_64"), cell(r, f"{key}_pps_1400"), cell(r, f"{key}_rtt_ms", digits=2),
                      cell(r, f"{key}_launch_ms"), cell(r, f"{key}_image_bytes", 1 / 2**20, 1)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Goals (issue 10)", ""] + goals(rows)
    comps = comparisons(rows)
    lines += ["", "## Keel beside Linux", ""] + bench_report.comparison_table(comps)
    notes = [r for r in rows if any("console" in k for k in r)]
    if notes:
        lines += ["", "Routers that forwarded nothing (their console's end):"]
        for r in notes:
            for k, v in r.items():
                if "console" in k:
                    lines += ["", f"{r['rules']} rules, {k}:", "```", v[-1500:], "```"]
    with open(os.path.join(out, "firewall_vm.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    bench_report.write_csv(os.path.join(out, "firewall_vm.csv"), comps)
    plot(os.path.join(out, "firewall_vm.png"), rows)
    print(f"firewall-vm: wrote {os.path.join(out, 'firewall_vm.md')}", flush=True)
