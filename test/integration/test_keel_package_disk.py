"""`keel package --format disk`: the raw disk boots the image through GRUB 2 and Multiboot2
(decision 0113) on SeaBIOS and on UEFI (OVMF), under TCG, as a plain hard disk; the service's
exit status comes out through isa-debug-exit and its command line arrives word for word."""
import os
import subprocess

import pytest

from conftest import image
from keelpy import accel, qemu
from test_keel_tool import keel

OVMF = "/usr/share/ovmf/OVMF.fd"  # Debian's ovmf: the firmware as one file, for -bios
BOOT_WAIT = 300  # s: OVMF alone takes tens of seconds under TCG on a loaded machine
FIRMWARES = {"seabios": ("pc", []), "ovmf": ("q35", ["-bios", OVMF])}


def boot_disk(disk, firmware):
    """QEMU as `keel boot` runs it, but with the disk instead of -kernel."""
    machine, firmware_args = FIRMWARES[firmware]
    args = [*qemu.machine_args(machine), *accel.cpu_args("tcg"), "-m", "64M",
            "-smp", qemu.smp(1, "tcg"), "-nodefaults", "-no-user-config", "-display", "none",
            "-serial", "stdio", *qemu.DEBUG_EXIT, "-no-reboot", *firmware_args,
            "-drive", f"file={disk},format=raw,if=ide", *qemu.rng_args(machine)]
    result = subprocess.run(["qemu-system-x86_64", *args], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=BOOT_WAIT)
    return qemu.status_of(result.returncode), result.stdout + result.stderr


def package_disk(tmp_path, service, *options):
    disk = tmp_path / f"{service}.img"
    result = keel("package", image(service), "--format", "disk", "-o", str(disk), *options)
    assert result.returncode == 0, result.stdout + result.stderr
    return disk


@pytest.mark.parametrize("firmware", sorted(FIRMWARES))
def test_hello_boots_from_the_disk(tmp_path, firmware):
    disk = package_disk(tmp_path, "hello")
    status, console = boot_disk(disk, firmware)
    assert status == 0, console
    assert "Hello from Keel on kvm" in console and "Goodbye" in console, console
    assert "seeded from virtio-rng" in console  # the PVH path's devices work the same


def test_the_command_line_arrives_word_for_word(tmp_path):
    # GRUB hands over the same Multiboot2 command line whatever the firmware (the memory
    # maps differ: test_hello_boots_from_the_disk boots both), so one boot, the faster one.
    disk = package_disk(tmp_path, "args", "--append", """ip=10.0.0.2/24 'two words' q="x" b=\\\\""")
    status, console = boot_disk(disk, "seabios")
    assert status == 0, console
    args = [line for line in console.splitlines() if line.startswith("arg: ")]
    assert args == ["arg: [ip=10.0.0.2/24]", "arg: [two words]", "arg: [q=x]", "arg: [b=\\]"], \
        console


def test_a_panic_and_its_backtrace_come_out_of_the_disk(tmp_path):
    # abort's service panics (status 70): the status is the guest's, not GRUB's, and the
    # backtrace names the caller: GRUB loaded the symbol segment too.
    disk = package_disk(tmp_path, "abort")
    status, console = boot_disk(disk, "seabios")
    assert status == 70, console
    assert "*** Keel panic: abort() called" in console and "helper_that_aborts()" in console, \
        console


def test_pvh_and_multiboot2_boot_the_same_file():
    # The header GRUB looks for lies in the file's first 32 KiB (Multiboot2, 3.1.1), beside
    # the PVH note QEMU's -kernel takes (decision 0002 holds for -kernel).
    hello = image("hello")
    checked = subprocess.run(["grub-file", "--is-x86-multiboot2", hello], timeout=60)
    assert checked.returncode == 0
    status, console = boot_direct(hello)
    assert status == 0, console


def boot_direct(img):
    args = qemu.command(img, "microvm", "64M", 1, "", "tcg")
    result = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=BOOT_WAIT)
    return qemu.status_of(result.returncode), result.stdout + result.stderr


def test_a_bad_command_line_is_refused_before_grub_runs(tmp_path):
    result = keel("package", image("hello"), "--format", "disk", "-o", str(tmp_path / "x.img"),
                  "--append", "a='unclosed")
    assert result.returncode == 2 and "No closing quotation" in result.stderr
    assert not os.path.exists(tmp_path / "x.img")


def test_libvirt_options_are_refused_for_a_disk(tmp_path):
    result = keel("package", image("hello"), "--format", "disk", "-o", str(tmp_path / "x.img"),
                  "--bridge", "br0")
    assert result.returncode == 2 and "libvirt options" in result.stderr
