"""getrandom() on the kvm platform (docs/decisions/0104): which sources seed the generator, as the
boot line says, and what the service gets, with and without virtio-rng and the CPU's RDRAND."""
import re
import subprocess

import pytest

from conftest import image
from keelpy import qemu

SEEDED = re.compile(r"^Keel: random: seeded from ([a-z-]+(?:, [a-z-]+)*)", re.M)
NOT_SEEDED = "Keel: random: NOT SEEDED: no virtio-rng device and the CPU has no usable RDSEED/RDRAND"
# QEMU without -cpu: its default model (qemu64) has neither RDRAND nor RDSEED.
DEFAULT_CPU = None


def boot_random(machine="microvm", rng=True, cpu="max", extra=()):
    """Boots the random service under TCG; returns its console output."""
    args = qemu.command(image("random"), machine, "64M", 1, "", "tcg", list(extra), rng=rng)
    at = args.index("-cpu")
    if cpu is DEFAULT_CPU:
        del args[at:at + 2]
    else:
        args[at + 1] = cpu
    result = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=60)
    out = result.stdout + result.stderr
    assert qemu.status_of(result.returncode) == 0, out
    assert len(re.findall(r"^Keel: random:", out, re.M)) == 1, out  # one line, always
    return out


def getrandom_bytes(out):
    match = re.search(r"^getrandom: 16 ([0-9a-f]{32})$", out, re.M)
    assert match, out
    return match.group(1)


def sources(out):
    match = SEEDED.search(out)
    assert match, out
    return match.group(1).split(", ")


@pytest.mark.parametrize("machine", ["microvm", "pc", "q35"])
def test_virtio_rng_alone_seeds_it_and_boots_differ(machine):
    first = boot_random(machine, cpu=DEFAULT_CPU)
    second = boot_random(machine, cpu=DEFAULT_CPU)
    assert sources(first) == ["virtio-rng"]
    assert "seeded: yes" in first
    assert "nonblock: 16 errno 0" in first
    assert getrandom_bytes(first) != getrandom_bytes(second)
    assert getrandom_bytes(first) != "0" * 32


def test_default_line_of_keel_boot_names_virtio_rng_and_rdrand():
    # keel boot's QEMU line: -cpu max under TCG (RDRAND; QEMU's TCG has no RDSEED) and
    # virtio-rng: both seed it.
    out = boot_random()
    assert "virtio-rng" in sources(out)
    assert "rdrand" in sources(out)


def test_rdrand_of_cpu_max_seeds_it_without_the_device():
    out = boot_random(rng=False, cpu="max")
    assert set(sources(out)) <= {"rdseed", "rdrand"} and "rdrand" in sources(out), out
    assert "seeded: yes" in out


def test_nothing_to_seed_from_is_said_loudly():
    out = boot_random(rng=False, cpu=DEFAULT_CPU)
    assert NOT_SEEDED in out
    assert "-device virtio-rng-pci,rng=rng0" in out  # what to add
    assert SEEDED.search(out) is None
    assert "seeded: no" in out
    # It still answers (nothing could arrive by waiting) but says "not yet" to callers that
    # ask with GRND_NONBLOCK, as Linux does before its generator is seeded.
    getrandom_bytes(out)
    assert "nonblock: -1 errno 11" in out  # EAGAIN


def test_a_device_that_never_answers_costs_a_bounded_wait():
    # rng-egd on a null chardev: the device takes the buffer and never fills it.
    silent = ["-chardev", "null,id=silent", "-object", "rng-egd,id=egd,chardev=silent",
              "-device", "virtio-rng-device,rng=egd"]
    out = boot_random(rng=False, cpu=DEFAULT_CPU, extra=silent)
    assert "NOT SEEDED: virtio-rng gave nothing" in out
    assert "seeded: no" in out
    out = boot_random(rng=False, cpu="max", extra=silent)
    assert sources(out) == ["rdrand"]
    assert "(virtio-rng gave 0 of 64 bytes within 1000 ms)" in out
