"""The rules compiled into the firewall image (examples/firewall, keel_firewall_rules()) lie on
pages of their own and are used there, after the same checks as a pushed blob (decision 0064).
The blob is untrusted input even there: the image with its .keel_firewall_rules section
corrupted (objcopy --update-section) stops with status 1 and a line that says why, never a
crash. Boots under QEMU (microvm, TCG) with two user-mode NICs."""
import os
import struct
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from keelpy import build, qemu  # noqa: E402

SECTION = ".keel_firewall_rules"
PAGE = 4096
# runtime/blob_format.hpp: header (64 bytes; checksum at 24), 10 chains of 32 bytes, then a
# directory of 20 (offset, count) pairs; the checksum covers those bytes but its own.
CHECKSUM_AT = 24
CHAINS_AT = 64
DIRECTORY_AT = CHAINS_AT + 10 * 32
HEAD_SIZE = DIRECTORY_AT + 20 * 16
READY = "forwarding between"


@pytest.fixture(scope="module")
def image():
    return build.build(os.path.join(ROOT, "examples", "firewall"), "kvm", quiet=True)


def fnv1a(data, h=0xcbf29ce484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def reseal(blob):
    sum_ = fnv1a(bytes(blob[:CHECKSUM_AT]) + bytes(blob[CHECKSUM_AT + 8:HEAD_SIZE]))
    blob[CHECKSUM_AT:CHECKSUM_AT + 8] = struct.pack("<Q", sum_)


def section_of(img, tmp_path):
    out = tmp_path / "rules.section"
    subprocess.run(["objcopy", f"--dump-section={SECTION}={out}", img, str(tmp_path / "scratch")], check=True)
    return bytearray(out.read_bytes())


def with_section(img, data, tmp_path, name):
    new, path = tmp_path / f"{name}.section", tmp_path / name
    new.write_bytes(bytes(data))
    subprocess.run(["objcopy", f"--update-section={SECTION}={new}", img, str(path)], check=True)
    return str(path)


def boot(img):
    """The service's exit status (None: still running once it was ready) and its console."""
    nics = []
    for i in range(2):
        nics += ["-netdev", f"user,id=n{i}", "-device", f"virtio-net-device,netdev=n{i}"]
    args = qemu.command(img, "microvm", "256M", 1, "", "tcg", nics)
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        for line in p.stdout:
            lines.append(line)
            if READY in line:
                return None, "".join(lines)
        return qemu.status_of(p.wait(timeout=120)), "".join(lines)
    finally:
        p.kill()
        p.wait()


def test_the_rules_lie_on_pages_of_their_own(image, tmp_path):
    sections = subprocess.run(["readelf", "-SW", image], capture_output=True, text=True, check=True).stdout
    line = next(s for s in sections.splitlines() if SECTION in s)
    address, offset, size = (int(x, 16) for x in line.split(SECTION)[1].split()[1:4])
    assert address % PAGE == 0 and size % PAGE == 0 and offset % PAGE == 0
    blob = section_of(image, tmp_path)
    assert blob[:6] == b"KEELFW"
    assert struct.unpack_from("<Q", blob, 16)[0] <= size
    status, console = boot(image)
    assert status is None, console
    assert "rules checked in" in console


@pytest.mark.parametrize("corruption, message", [
    ("chains", "checksum mismatch"),
    ("directory", "inconsistent table sizes"),
    ("version", "unsupported table version"),
])
def test_a_corrupted_compiled_in_blob_is_refused(image, tmp_path, corruption, message):
    blob = section_of(image, tmp_path)
    if corruption == "chains":
        blob[CHAINS_AT + 5] ^= 0x01  # under the checksum, not resealed
    elif corruption == "directory":
        blob[DIRECTORY_AT + 8 * 16] ^= 0x08  # a pool's offset off its 64-byte boundary
        reseal(blob)
    else:
        blob[8] = 99
    status, console = boot(with_section(image, blob, tmp_path, corruption))
    assert status == 1, console
    assert f"firewall: the rules compiled in do not load: {message}" in console
    assert "panic" not in console.lower()
