"""density.md, density.csv and density.png from bench_density.py's measurements."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools"))
from keelpy import bench_report  # noqa: E402
from keelpy.bench_report import Comparison  # noqa: E402

KEEL, LINUX = "Keel image", "Linux VM"
GOAL_N, TIME_GOAL_S, GUEST_GOAL_MIB, PER_GIB_GOAL = 140, 20, 8, 10  # issue 21


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def fmt(value, digits=1):
    return "—" if value is None else f"{value:,.{digits}f}"


def per_gib(r):
    return 1024 / r["pss_mib"] if r["pss_mib"] else None


def row(r):
    n = r["started"]
    return (f"| {r['side']} | {r['n']} | {n} | {r['answered']} | {fmt(r['all_answer_s'])} | "
            f"{fmt(r['launch_s'])} | {fmt(r['guest_mib'], 0)} | {fmt(r['rss_mib'])} | "
            f"{fmt(r['pss_mib'])} | {fmt(r['mem_drop_mib'] / n if n else None)} | "
            f"{fmt(per_gib(r), 0)} | {fmt(r['startup_cpu_s'] / n if n else None, 2)} | "
            f"{fmt(r['idle_cpu'], 2)} | {r['note']} |")


def largest(results, side, n=None):
    """The run of `side` with the most instances (at `n` if given) in which all answered."""
    done = [r for r in results if r["side"] == side and r["all_answer_s"] is not None
            and (n is None or r["n"] == n)]
    return max(done, key=lambda r: r["n"]) if done else None


def comparisons(results):
    linux = largest(results, LINUX)
    keel = largest(results, KEEL, linux["n"] if linux else None) or largest(results, KEEL)
    if not keel:
        return []
    other = lambda key: linux[key] if linux else None  # noqa: E731
    n = keel["n"]
    return [
        Comparison(f"N={n} udp_echo: first launch → all answer", "s", keel["all_answer_s"],
                   other("all_answer_s")),
        Comparison(f"N={n}: guest memory per instance", "MiB", keel["guest_mib"],
                   other("guest_mib")),
        Comparison(f"N={n}: host memory (PSS) per instance", "MiB", keel["pss_mib"],
                   other("pss_mib")),
        Comparison(f"N={n}: instances per GiB of host memory", "per GiB", per_gib(keel),
                   per_gib(linux) if linux else None, lower_is_better=False, goal=PER_GIB_GOAL),
        Comparison(f"N={n}: host CPU to start one instance", "CPU s",
                   keel["startup_cpu_s"] / n, other("startup_cpu_s") and linux["startup_cpu_s"]
                   / linux["n"]),
    ]


def goals(results):
    keel = largest(results, KEEL)
    if not keel:
        return ["No Keel run had every instance answering."]
    took, n = keel["all_answer_s"], keel["n"]
    verdict = ("not measured" if n < GOAL_N else "met" if took < TIME_GOAL_S else "not met")
    return [f"- {GOAL_N} Keel appliances answering in under {TIME_GOAL_S} s: **{verdict}** "
            f"({took:.1f} s at N={n}, the largest N at which all answered).",
            f"- At most {GUEST_GOAL_MIB} MiB of guest memory each: **"
            f"{'met' if keel['guest_mib'] <= GUEST_GOAL_MIB else 'not met'}** "
            f"({keel['guest_mib']} MiB)."]


READING = [
    "## Reading these figures", "",
    "- A Keel instance's PSS is mostly QEMU's: its guest is 3 MiB, the rest is QEMU's own "
    "heap, translation cache and device state under TCG, and its share of the binary and "
    "libraries (decision 0119). The Linux VM pays the same QEMU costs plus its 80 MiB guest.",
    "- The container's memory is the service's own: its stack scales its tables to the "
    "memory the platform reports, the container's limit (`podman run --memory`, the "
    "cgroup's memory.max), else the host's (the TCP layer allows a connection per 4 KiB, "
    "up to a million). Its start CPU counts the service and conmon, not the `podman run` "
    "that started them; the time column includes podman.",
    "- The Linux VMs' idle CPU is their kernels' timers under TCG; Keel's is close to nothing "
    "per instance (tickless: an idle guest halts until a packet or a timer wakes it).",
    "- The load average after a run includes the run's own VMs."]


def method(tcg_options, container_mib):
    tcg = f"`-accel tcg,{tcg_options}`" if tcg_options else "`-accel tcg` (QEMU's defaults)"
    limit = (f"limited to {container_mib} MiB (`podman run --memory`, shown as its guest "
             "memory), which its stack sizes its tables to" if container_mib else "with no memory limit (the host's memory)")
    return (f"Both VM sides run on the same QEMU line, with {tcg}. The container is {limit}.")


def write(out, results, notes, before, after, arguments, tcg_options="", container_mib=0):
    table = comparisons(results)
    lines = ["# Density benchmark", "",
             f"`tools/keel bench density{' ' + arguments if arguments else ''}`, "
             f"{bench_report.machine_line('tcg')}.", "",
             f"Load: before `{before}`; after `{after}`. The 2 cores were shared with other "
             "work; the times below are wall-clock times under that load.", "",
             "For each N, N instances of the UDP echo appliance, each on its own TAP on one "
             "bridge in a network namespace the benchmark makes, launched one after another "
             "(podman: four `podman run -d` at a time). Time: from the first launch until "
             "every instance has echoed a UDP datagram (each silent one is sent one every "
             "100 ms; ARP is answered by the guest, retried every 100 ms). Keel: "
             "examples/udp_echo on microvm, TCG, at its smallest memory (decision 0090). "
             "Linux VM: bench/linux-vm's guest, `run=udp_echo`, on the same QEMU line. "
             "Container: the same udp_echo built as a Linux process in a podman container "
             "(`keel package --format container`, decision 0118) opening its TAP in the "
             "bench's namespace. RSS and PSS: medians over the instances after all answered "
             "(QEMU; for a container the service and its conmon). PSS splits shared pages "
             "(QEMU's code, libraries) among the processes mapping them, so per GiB = "
             "1024 ÷ PSS. MemAvailable drop: the host's, divided by N (other work moves it "
             "too). Start CPU: the instances' user + system time from launch to the "
             "measurement, per instance. Idle CPU: all N together over a few seconds after. "
             + method(tcg_options, container_mib), "",
             "| side | N | started | answered | launch → all answer (s) | launching (s) | "
             "guest memory (MiB) | host RSS each (MiB) | host PSS each (MiB) | "
             "MemAvailable drop each (MiB) | instances per GiB | start CPU each (s) | "
             "idle CPU, all N (% of a core) | note |",
             "| --- " * 14 + "|"]
    lines += [row(r) for r in results]
    lines += ["", *[f"- {n}" for n in notes], "", "## Issue 21's goals", "", *goals(results),
              "", "## Keel beside the Linux VM", ""]
    lines += bench_report.comparison_table(table) if table else ["No comparison: no run."]
    lines += ["", *READING]
    bench_report.write_results(out, "density", lines + [""], table,
                               "Density: udp_echo appliances, Keel beside Linux VMs")
