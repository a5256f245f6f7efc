"""Shared helpers: build services once per session and boot them in QEMU."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from keelpy import accel, build, qemu  # noqa: E402

SERVICES = os.path.join(ROOT, "test", "integration", "services")
KEEL = os.path.join(ROOT, "tools", "keel")
_built = {}


def service_dir(name):
    if name in ("hello",):
        return os.path.join(ROOT, "examples", name)
    return os.path.join(SERVICES, name)


def image(name, platform="kvm"):
    """Builds a test service (or example) once per session; returns its path."""
    key = (name, platform)
    if key not in _built:
        _built[key] = build.build(service_dir(name), platform, quiet=True)
    return _built[key]


def accels():
    """Accelerators to test on: TCG always, KVM where keel finds it usable."""
    problem = accel.kvm_problem()
    kvm = pytest.param("kvm", marks=pytest.mark.skipif(
        problem is not None, reason=f"KVM not usable here: {problem}"))
    return ["tcg", kvm]


def service_line(stream):
    """The next line the service printed, past the one line every image prints at boot about
    its random generator (`Keel: random: ...`, decision 0104)."""
    line = stream.readline()
    while line.startswith("Keel: random:"):
        line = stream.readline()
    return line


def boot(img, machine="microvm", accel_name="tcg", memory="64M", append="", timeout=60):
    """Boots an image; returns (service exit code, console output)."""
    args = qemu.command(img, machine, memory, 1, append, accel_name)
    result = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=timeout)
    return qemu.status_of(result.returncode), result.stdout + result.stderr
