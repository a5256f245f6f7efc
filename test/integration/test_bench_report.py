"""bench_report's Keel-beside-Linux rows: a ratio the rounds' spread does not decide is
reported as "no verdict" (docs/decisions/0063), in the table and through NAME.csv into the
summary; rows without rounds read and show as before."""
import csv

import conftest  # noqa: F401  (puts tools/ on the path)
from keelpy import bench_report
from keelpy.bench_report import NO_VERDICT, Comparison


def row_cells(comparison):
    line = bench_report.comparison_table([comparison])[2]
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_rounds_that_overlap_across_one_give_no_verdict():
    c = Comparison("pkt/s", "pkt/s", 100, 95, None, lower_is_better=False, goal=1,
                   ranges={"keel": (90, 110), "linux_vm": (85, 105)})
    assert not c.decided("linux_vm")
    cells = row_cells(c)
    assert cells[5].startswith(NO_VERDICT)  # Keel ÷ Linux VM
    assert cells[7] == NO_VERDICT  # Keel better by
    assert cells[8] == f"goal ≥ 1×: {NO_VERDICT}"


def test_rounds_apart_give_the_ratio():
    c = Comparison("pkt/s", "pkt/s", 200, 100, None, lower_is_better=False, goal=1,
                   ranges={"keel": (190, 210), "linux_vm": (95, 105)})
    cells = row_cells(c)
    assert cells[5] == "2"
    assert cells[7] == "2×"
    assert cells[8] == "goal ≥ 1×: met"


def test_a_goal_inside_the_spread_has_no_verdict_though_the_ratio_is_clear():
    # Keel is surely faster (1.7-2.3×) but whether by the goal's 2× the rounds do not say.
    c = Comparison("pkt/s", "pkt/s", 200, 100, None, lower_is_better=False, goal=2,
                   ranges={"keel": (180, 220), "linux_vm": (95, 105)})
    cells = row_cells(c)
    assert cells[5] == "2"
    assert cells[8] == f"goal ≥ 2×: {NO_VERDICT}"


def test_times_lower_is_better():
    c = Comparison("ms", "ms", 10, 20, None, lower_is_better=True, goal=3,
                   ranges={"keel": (9, 11), "linux_vm": (19, 21)})
    assert row_cells(c)[7] == "2×"
    assert c.verdict() == "goal ≥ 3×: not met"


def test_ranges_survive_the_csv_and_old_files_read_as_before(tmp_path):
    path = tmp_path / "x.csv"
    with_rounds = Comparison("a", "pkt/s", 100, 95, 300, lower_is_better=False,
                             ranges={"keel": (90, 110), "linux_vm": (85, 105), "linux_netns": (290, 310)})
    bench_report.write_csv(str(path), [with_rounds, Comparison("b", "ms", 5, 10)])
    back = bench_report.read_csv(str(path))
    assert back[0].ranges == {"keel": (90, 110), "linux_vm": (85, 105), "linux_netns": (290, 310)}
    assert not back[0].decided("linux_vm") and back[0].decided("linux_netns")
    assert back[1].ranges == {} and row_cells(back[1])[5] == "0.5"
    # A file from before the range columns.
    old = tmp_path / "old.csv"
    with open(old, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=bench_report.FIELDS)
        writer.writeheader()
        writer.writerow({k: v for k, v in Comparison("c", "ms", 5, 10).row().items() if k in bench_report.FIELDS})
    (c,) = bench_report.read_csv(str(old))
    assert c.ranges == {} and c.ratio(c.linux_vm) == 0.5
