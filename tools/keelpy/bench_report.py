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
# Optional: the least and greatest of the rounds each median above came from.
RANGE_FIELDS = ["keel_lo", "keel_hi", "linux_vm_lo", "linux_vm_hi", "linux_netns_lo", "linux_netns_hi"]
NO_VERDICT = "no verdict"


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
    `goal` is the factor by which Keel should beat the Linux VM (None: none).
    `ranges` ({"keel": (lo, hi), "linux_vm": ..., "linux_netns": ...}, optional): the least and
    greatest of several rounds whose medians the figures are. With them a ratio is given only
    when the rounds decide it: when Keel's worst round against the peer's best and Keel's best
    against the peer's worst fall on the same side of 1 (of the goal, for the verdict), else the
    spread is wider than the ratio's margin and the table says "no verdict"."""

    def __init__(self, metric, unit, keel, linux_vm=None, linux_netns=None,
                 lower_is_better=True, goal=None, ranges=None):
        self.metric, self.unit, self.keel = metric, unit, keel
        self.linux_vm, self.linux_netns = linux_vm, linux_netns
        self.lower_is_better, self.goal = lower_is_better, goal
        self.ranges = {k: v for k, v in (ranges or {}).items() if v and None not in v}

    def ratio(self, other):
        return self.keel / other if self.keel is not None and other else None

    def ratio_range(self, peer):
        """(least, greatest) Keel ÷ `peer` ("linux_vm" or "linux_netns") over the rounds, or None
        when the rounds are not known."""
        keel, other = self.ranges.get("keel"), self.ranges.get(peer)
        if not keel or not other or not other[0] or not other[1]:
            return None
        return keel[0] / other[1], keel[1] / other[0]

    def decided(self, peer, threshold=1.0):
        """False when the rounds' spread straddles `threshold` (a ratio of Keel ÷ peer)."""
        r = self.ratio_range(peer)
        return r is None or not (r[0] <= threshold <= r[1])

    def advantage(self):
        """How many times better Keel is than the Linux VM (> 1: Keel better)."""
        r = self.ratio(self.linux_vm)
        if not r:
            return None
        return 1 / r if self.lower_is_better else r

    def verdict(self):
        if self.goal is None or self.advantage() is None:
            return ""
        # The goal as a ratio Keel ÷ Linux VM.
        threshold = 1 / self.goal if self.lower_is_better else self.goal
        if not self.decided("linux_vm", threshold):
            return f"goal ≥ {self.goal:g}×: {NO_VERDICT}"
        return f"goal ≥ {self.goal:g}×: " + ("met" if self.advantage() >= self.goal else "not met")

    def row(self):
        out = {"metric": self.metric, "unit": self.unit, "keel": self.keel,
               "linux_vm": self.linux_vm, "linux_netns": self.linux_netns,
               "lower_is_better": int(self.lower_is_better), "goal": self.goal or ""}
        for who in ("keel", "linux_vm", "linux_netns"):
            lo, hi = self.ranges.get(who, ("", ""))
            out[f"{who}_lo"], out[f"{who}_hi"] = lo, hi
        return out

    @classmethod
    def from_row(cls, row):
        number = lambda s: float(s) if s not in ("", "None", None) else None  # noqa: E731
        ranges = {who: (number(row.get(f"{who}_lo")), number(row.get(f"{who}_hi")))
                  for who in ("keel", "linux_vm", "linux_netns")}
        return cls(row["metric"], row["unit"], number(row["keel"]), number(row["linux_vm"]),
                   number(row["linux_netns"]), row["lower_is_better"] == "1", number(row["goal"]), ranges)


def figure(value):
    if value is None:
        return "—"
    return f"{value:.3g}" if abs(value) < 100 else f"{value:,.0f}"


def ratio_cell(c, peer):
    r = c.ratio(getattr(c, peer))
    if r is None:
        return "—"
    if not c.decided(peer):
        lo, hi = c.ratio_range(peer)
        return f"{NO_VERDICT} ({lo:.3g}–{hi:.3g})"
    return f"{r:.3g}"


def figure_cell(c, who):
    """The figure, and its rounds' least and greatest when known."""
    value = getattr(c, who)
    span = c.ranges.get(who)
    if value is None or not span or span[0] == span[1]:
        return figure(value)
    return f"{figure(value)} ({figure(span[0])}–{figure(span[1])})"


def comparison_table(comparisons, sources=None):
    """Markdown lines: the figures, Keel ÷ Linux VM, Keel ÷ Linux netns, and
    how many times better Keel is than the Linux VM against the goal. With
    `sources` (one name per comparison), a first column says which benchmark.
    A figure measured in rounds shows their range; a ratio the rounds do not
    decide says "no verdict"."""
    lead = (lambda i: f"| {sources[i]} ") if sources else (lambda i: "")
    lines = [("| bench " if sources else "") + "| figure | unit | Keel | Linux VM | Linux netns "
             "| Keel ÷ Linux VM | Keel ÷ Linux netns | Keel better by | goal |",
             ("| --- " if sources else "") + "| --- " * 9 + "|"]
    for i, c in enumerate(comparisons):
        advantage = c.advantage()
        better = "—" if advantage is None else f"{advantage:.3g}×" if c.decided("linux_vm") else NO_VERDICT
        lines.append(f"{lead(i)}| {c.metric} | {c.unit} | {figure_cell(c, 'keel')} | "
                     f"{figure_cell(c, 'linux_vm')} | {figure_cell(c, 'linux_netns')} | "
                     f"{ratio_cell(c, 'linux_vm')} | {ratio_cell(c, 'linux_netns')} | "
                     f"{better} | {c.verdict()} |")
    return lines


def write_csv(path, comparisons):
    with open(path, "w", newline="") as f:
        # The range columns only where some figure has rounds: the other benchmarks' files
        # stay as they were.
        fields = FIELDS + (RANGE_FIELDS if any(c.ranges for c in comparisons) else [])
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
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
