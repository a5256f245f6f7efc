"""Two minutes of bench/soak: the firewall image (microvm, TCG, EVENT_IDX on) forwarding TCP bulk
both ways, a new TCP connection per request, UDP echo load and pings at once, with its rules
replaced every 30 s, must show no hang, no stall, no failed push and flat memory (what each
means: bench/soak/soak.py). Root only (namespaces and TAPs it makes):

    /usr/bin/python3 -m pytest -v test/integration/test_soak.py
"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")


def test_two_minutes_of_mixed_load_through_the_firewall(tmp_path):
    result = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "soak", "soak.py"), "--minutes", "2",
                             "--out", str(tmp_path)], capture_output=True, text=True, timeout=900)
    report = (tmp_path / "soak.md").read_text() if (tmp_path / "soak.md").exists() else ""
    assert (tmp_path / "soak.json").exists(), result.stdout + result.stderr
    soak = json.loads((tmp_path / "soak.json").read_text())
    assert soak["hangs"] == 0 and soak["stalls"] == 0, report
    assert soak["pushes"] >= 3 and soak["failed_pushes"] == 0, report
    assert soak["memory_flat"], report
    # Every load ran and moved something.
    loads = {r["load"] for r in soak["records"] if r["ok"]}
    assert loads >= {"tcp A->B", "tcp B->A", "connections", "udp echo", "rule push"}, report
    assert result.returncode == 0, result.stdout + result.stderr
