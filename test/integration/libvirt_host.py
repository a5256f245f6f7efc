"""libvirt's system daemon for the tests that run libvirt domains (test_keel_package.py,
test_dmz_demo.py): virsh on qemu:///system, and a fixture that starts virtlogd and libvirtd
when none answers (CI machines have no init to start them) and stops only what it started."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

VIRSH = ["virsh", "--quiet", "-c", "qemu:///system"]
START_WAIT = 30   # s for libvirtd to answer after it was started


def virsh(*args, check=True, timeout=60):
    result = subprocess.run([*VIRSH, *args], capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"virsh {' '.join(args)}: {result.stderr}")
    return result


def daemon_answers():
    return subprocess.run([*VIRSH, "version"], capture_output=True, timeout=30).returncode == 0


@pytest.fixture(scope="module")
def libvirtd():
    """libvirt's system daemon: the one running, or one this test starts (CI machines have no
    init to start it) and stops again. virtlogd writes the console logs, so it comes first."""
    if shutil.which("libvirtd") is None and not os.path.exists("/usr/sbin/libvirtd"):
        pytest.fail("libvirtd not installed: `tools/keel setup --tests` installs it")
    started = []
    if not daemon_answers():
        state = tempfile.mkdtemp(prefix="keel-libvirtd-")
        for daemon in ("virtlogd", "libvirtd"):
            if subprocess.run(["pgrep", "-x", daemon], capture_output=True).returncode == 0:
                continue
            pid_file = os.path.join(state, f"{daemon}.pid")
            subprocess.run([f"/usr/sbin/{daemon}", "--daemon", "--pid-file", pid_file],
                           check=True, timeout=30)
            started.append(pid_file)
        deadline = time.monotonic() + START_WAIT
        while not daemon_answers():
            assert time.monotonic() < deadline, "libvirtd did not answer"
            time.sleep(0.5)
    yield
    for pid_file in reversed(started):
        with open(pid_file) as f:
            pid = int(f.read())
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + START_WAIT
        while os.path.exists(f"/proc/{pid}"):  # not our child: no waitpid
            assert time.monotonic() < deadline, f"{pid_file}: the daemon did not stop"
            time.sleep(0.2)
    if started:
        shutil.rmtree(os.path.dirname(started[0]), ignore_errors=True)
