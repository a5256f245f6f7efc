"""keel bench: runs the benchmarks in bench/NAME (every one, or the one named),
then gathers the Keel-beside-Linux figures of their NAME.csv files into one
summary, bench/results/README.md. With --quick each runs for seconds with tiny
sizes and writes to build/bench-quick/ instead (CI runs this so the scripts
cannot rot; nobody reads its timings)."""
import os
import subprocess
import time

from . import bench_report
from .paths import ROOT, KeelError

BENCH = os.path.join(ROOT, "bench")
ORDER = ["boot", "net", "firewall"]  # the rest, if any, alphabetically after these
FIREWALL_QUICK_RULES = "10"
# Run only when named (`keel bench soak`): an hour, no comparison table or plot.
ONLY_WHEN_NAMED = ("soak",)


def available():
    found = [d for d in os.listdir(BENCH) if os.path.isfile(os.path.join(BENCH, d, "run.sh"))]
    return sorted(found, key=lambda d: (ORDER.index(d) if d in ORDER else len(ORDER), d))


def results_name(name):
    """A benchmark's files in the results directory: bench/firewall-vm writes firewall_vm.*."""
    return name.replace("-", "_")


def arguments(name, quick, out):
    """Each script's own command line for a quick run."""
    if not quick:
        return []
    if name == "firewall":  # bench/firewall/run.sh [max_rules [results_dir]]
        return [FIREWALL_QUICK_RULES, out]
    return ["--quick"]


def only_printed(rest):
    """Runs that print their figures and write no results (`firewall-vm --launches N`)."""
    return "--launches" in rest


def run_one(name, quick, rest=()):
    script = os.path.join(BENCH, name, "run.sh")
    if not os.path.isfile(script):
        raise KeelError(f"no benchmark '{name}' (have: {', '.join(available())})")
    out = bench_report.results_dir(quick)
    args = ["/bin/bash", script, *arguments(name, quick, out), *rest]
    print(f"\n=== keel bench {name}{' (quick)' if quick else ''}\n$ {' '.join(args)}", flush=True)
    started = time.time()
    status = subprocess.run(args, cwd=ROOT).returncode
    written = [f"{results_name(name)}.md"] + ([] if name in ONLY_WHEN_NAMED else [f"{results_name(name)}.png"])
    stale = [f for f in written if not os.path.exists(os.path.join(out, f))
             or os.path.getmtime(os.path.join(out, f)) < started]
    if status == 0 and stale and not only_printed(rest):
        print(f"keel bench {name}: ran but did not write {', '.join(stale)} in {out}")
        status = 1
    print(f"=== keel bench {name}: {'done' if status == 0 else f'FAILED ({status})'} in "
          f"{time.time() - started:.0f} s", flush=True)
    return status


def write_summary(quick):
    """bench/results/README.md: every comparison row of every NAME.csv there."""
    out = bench_report.results_dir(quick)
    sections, rows = [], []
    for name in available():
        path = os.path.join(out, f"{results_name(name)}.csv")
        if os.path.exists(path):
            rows += [(name, c) for c in bench_report.read_csv(path)]
        if os.path.exists(os.path.join(out, f"{results_name(name)}.md")):
            sections.append(f"[{results_name(name)}.md]({results_name(name)}.md)")
    lines = ["# Benchmark results", "",
             f"Written by `tools/keel bench{' --quick' if quick else ''}`; "
             f"summary made {bench_report.machine_line('tcg')}. Each benchmark's own file "
             "has its date, command and method: " + ", ".join(sections) + ".", "",
             "Every ratio comes from one run of one benchmark in which Keel and its peer "
             "were measured alternately. **Linux VM**: Debian's kernel with a busybox "
             "initramfs on the very same QEMU line as the Keel image (bench/linux-vm/, "
             "docs/decisions/0070). **Linux netns**: the same program as a Linux process "
             "in a network namespace. Keel ÷ Linux below 1 means Keel is smaller or faster "
             "for times and sizes; above 1 means faster for rates. *Keel better by* turns "
             "that into one direction, against the goals of issue 14. A figure measured in "
             "rounds shows their range after its median; where Keel's worst round against the "
             "peer's best and its best against the peer's worst fall on both sides of 1 (or "
             f"of the goal), the spread is wider than the ratio's margin: *{bench_report.NO_VERDICT}*.", ""]
    if rows:
        lines += bench_report.comparison_table([c for _, c in rows], [n for n, _ in rows])
    else:
        lines += ["No benchmark has written a comparison yet."]
    notes = [f"[{f}]({f})" for f in ("where-the-time-goes.md", "profile.md")
             if os.path.exists(os.path.join(out, f))]
    lines += ["", "Where Keel falls short of a goal: " + (", ".join(notes) if notes else
              "see each benchmark's own file") + " (`bench/net/profile.py` profiles QEMU "
              "running Keel).", ""]
    path = os.path.join(out, "README.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print(f"keel bench: wrote {path}", flush=True)


def run(name=None, quick=False, rest=()):
    names = [name] if name else [n for n in available() if n not in ONLY_WHEN_NAMED]
    failed, took = [], []
    for n in names:
        started = time.time()
        if run_one(n, quick, rest if name else ()) != 0:
            failed.append(n)
        took.append(f"{n} {time.time() - started:.0f} s")
    if not only_printed(rest):
        write_summary(quick)
    print(f"keel bench: took {', '.join(took)}", flush=True)  # (what a slow CI run spent)
    if failed:
        print(f"keel bench: FAILED: {', '.join(failed)}", flush=True)
        return 1
    return 0
