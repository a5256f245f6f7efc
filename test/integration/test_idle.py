"""An idle guest halts: waiting on a timer costs almost no host CPU."""
import os
import subprocess
import time

from conftest import image, service_line
from keelpy import qemu

MEASURE_SECONDS = 5
MAX_SHARE_OF_A_CORE = 0.02


def cpu_seconds(pid):
    """User + system CPU time of a process and all its threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def test_idle_guest_uses_under_2_percent_of_a_core():
    args = qemu.command(image("idle"), "microvm", "64M", 1, "", "tcg")
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        assert "idle: waiting 60 s" in service_line(proc.stdout)
        time.sleep(1)  # let start-up work settle
        before, start = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(MEASURE_SECONDS)
        used = cpu_seconds(proc.pid) - before
        share = used / (time.monotonic() - start)
        assert proc.poll() is None, "the guest exited early"
        print(f"idle guest used {share * 100:.2f}% of a core")
        assert share < MAX_SHARE_OF_A_CORE, f"idle guest used {share * 100:.1f}% of a core"
    finally:
        proc.kill()
        proc.wait()
