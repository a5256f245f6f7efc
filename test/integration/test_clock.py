"""The guest's clock agrees with the host's: a 1 s guest timer takes about
1 s of host time (calibration errors show up as 2x, not as 5%)."""
import subprocess
import time

import pytest

from conftest import image, service_line
from keelpy import qemu


@pytest.mark.parametrize("machine", ["microvm", "pc"])
def test_one_second_timer_takes_one_host_second(machine):
    args = qemu.command(image("clock"), machine, "64M", 1, "", "tcg")
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        assert service_line(proc.stdout).strip() == "start"
        started = time.monotonic()
        done = proc.stdout.readline()
        host_seconds = time.monotonic() - started
        assert done.startswith("done after"), done
        assert 0.8 < host_seconds < 1.6, f"1 s guest timer took {host_seconds:.2f} s of host time"
        assert qemu.status_of(proc.wait(timeout=30)) == 0
    finally:
        proc.kill()
        proc.wait()
