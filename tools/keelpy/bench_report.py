"""What every benchmark report shares: where results go, the line that says
when and on what it was measured, and the Keel-beside-Linux comparison rows
(a table in NAME.md, the same rows in NAME.csv, a PNG plot) that `keel bench`
gathers into bench/results/README.md."""
import csv
import os
import platform
import re
import subprocess
import time

from .paths import ROOT

RESULTS = os.path.join(ROOT, "bench", "results")
# Quick runs (CI) write here, so they never overwrite the committed results.
QUICK_RESULTS = os.path.join(ROOT, "build", "bench-quick")
FIELDS = ["metric", "unit", "keel", "linux_vm", "linux_netns", "lower_is_better", "goal"]


def results_dir(quick):
    path = QUICK_RESULTS if quick else RESULTS
    os.makedirs(path, exist_ok=True)
    return path


def qemu_version():
    out = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                         text=True).stdout
    match = re.search(r"version ([\w.+~:-]+(?: \([^)]*\))?)", out)
    return match.group(1) if match else "unknown"


def cpu_model():
    with open("/proc/cpuinfo") as f:
        match = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
    return match.group(1).strip() if match else platform.machine()


def machine_line(accel):
    """Date, machine, accelerator and QEMU version, for every report's header."""
    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.node()}: "
            f"{cpu_model()}, {os.cpu_count()} cores, Linux {platform.release()}; "
            f"QEMU {qemu_version()} with {accel.upper()}")


class Comparison:
    """One figure measured for Keel and its Linux peers in the same run.
    `goal` is the factor by which Keel should beat the Linux VM (None: none)."""

    def __init__(self, metric, unit, keel, linux_vm=None, linux_netns=None,
                 lower_is_better=True, goal=None):
        self.metric, self.unit, self.keel = metric, unit, keel
        self.linux_vm, self.linux_netns = linux_vm, linux_netns
        self.lower_is_better, self.goal = lower_is_better, goal

    def ratio(self, other):
        return self.keel / other if self.keel is not None and other else None

    def advantage(self):
        """How many times better Keel is than the Linux VM (> 1: Keel better)."""
        r = self.ratio(self.linux_vm)
        if not r:
            return None
        return 1 / r if self.lower_is_better else r

    def verdict(self):
        if self.goal is None or self.advantage() is None:
            return ""
        return f"goal ≥ {self.goal:g}×: " + ("met" if self.advantage() >= self.goal else "not met")

    def row(self):
        return {"metric": self.metric, "unit": self.unit, "keel": self.keel,
                "linux_vm": self.linux_vm, "linux_netns": self.linux_netns,
                "lower_is_better": int(self.lower_is_better), "goal": self.goal or ""}

    @classmethod
    def from_row(cls, row):
        number = lambda s: float(s) if s not in ("", "None") else None  # noqa: E731
        return cls(row["metric"], row["unit"], number(row["keel"]), number(row["linux_vm"]),
                   number(row["linux_netns"]), row["lower_is_better"] == "1", number(row["goal"]))


def figure(value):
    if value is None:
        return "—"
    return f"{value:.3g}" if abs(value) < 100 else f"{value:,.0f}"


def ratio_cell(r):
    return "—" if r is None else f"{r:.3g}"


def comparison_table(comparisons, sources=None):
    """Markdown lines: the figures, Keel ÷ Linux VM, Keel ÷ Linux netns, and
    how many times better Keel is than the Linux VM against the goal. With
    `sources` (one name per comparison), a first column says which benchmark."""
    lead = (lambda i: f"| {sources[i]} ") if sources else (lambda i: "")
    lines = [("| bench " if sources else "") + "| figure | unit | Keel | Linux VM | Linux netns "
             "| Keel ÷ Linux VM | Keel ÷ Linux netns | Keel better by | goal |",
             ("| --- " if sources else "") + "| --- " * 9 + "|"]
    for i, c in enumerate(comparisons):
        advantage = c.advantage()
        lines.append(f"{lead(i)}| {c.metric} | {c.unit} | {figure(c.keel)} | "
                     f"{figure(c.linux_vm)} | {figure(c.linux_netns)} | "
                     f"{ratio_cell(c.ratio(c.linux_vm))} | {ratio_cell(c.ratio(c.linux_netns))} | "
                     f"{'—' if advantage is None else f'{advantage:.3g}×'} | {c.verdict()} |")
    return lines


def write_csv(path, comparisons):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for c in comparisons:
            writer.writerow(c.row())


def write_results(out, name, lines, comparisons, title):
    """A benchmark's three files in `out`: NAME.md (`lines`), NAME.csv and NAME.png."""
    with open(os.path.join(out, f"{name}.md"), "w") as f:
        f.write("\n".join(lines))
    write_csv(os.path.join(out, f"{name}.csv"), comparisons)
    plot_comparisons(os.path.join(out, f"{name}.png"), title, comparisons)
    print(f"{name}: wrote {out}/{name}.md, {name}.csv, {name}.png", flush=True)


def read_csv(path):
    with open(path, newline="") as f:
        return [Comparison.from_row(row) for row in csv.DictReader(f)]


def plot_comparisons(path, title, comparisons):
    """One bar pair (Keel, Linux VM) per figure, each panel on its own scale."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = [c for c in comparisons if c.keel is not None and c.linux_vm is not None]
    if not shown:
        return
    columns = min(4, len(shown))
    rows = (len(shown) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.8 * rows), squeeze=False)
    for ax, c in zip(axes.flat, shown):
        ax.bar(["Keel", "Linux VM"], [c.keel, c.linux_vm], color=["#2a7ab0", "#b0502a"])
        ax.set_title(f"{c.metric}\n({c.unit})", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(shown):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
