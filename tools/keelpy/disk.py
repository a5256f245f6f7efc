"""`keel package --format disk`: a raw disk image that boots the image through GRUB 2 on
BIOS (SeaBIOS) and on UEFI (OVMF), for platforms that boot disks, not kernels (decision 0113).

grub-mkrescue writes it: an El Torito/ISO 9660 file system whose first sector is GRUB's MBR
(isohybrid) and which carries an EFI system partition, so the same bytes boot as a hard disk
or a CD, by BIOS or UEFI. GRUB loads the image through Multiboot2 (boot.S's header) with the
command line written into grub.cfg; the image converts Multiboot2's boot information into the
PVH start info it takes from QEMU."""
import os
import shlex
import shutil
import subprocess
import tempfile

from .paths import KeelError

IMAGE_PATH = "/boot/keel/image"  # where the image sits inside the disk
# GRUB modules the disk needs besides those grub-mkrescue always adds: keeps it small
# (every module of both platforms would triple its size).
MODULES = "multiboot2 normal configfile part_msdos part_gpt iso9660 fat echo halt serial terminal"
TOOLS = {"grub-mkrescue": "grub-common", "xorriso": "xorriso", "mformat": "mtools"}
PLATFORM_DIRS = {"/usr/lib/grub/i386-pc": "grub-pc-bin",
                 "/usr/lib/grub/x86_64-efi": "grub-efi-amd64-bin"}


def grub_quote(word):
    """One word of GRUB's script language, taken literally (single quotes; a ' is '\\'')."""
    return "'" + word.replace("'", "'\\''") + "'"


def grub_cfg(append):
    """Boots at once: no menu, no wait. GRUB stays off the serial port, the guest's console,
    unless it fails."""
    words = " ".join(grub_quote(w) for w in shlex.split(append))
    return ("# Written by keel package (disk format, docs/deploy.md).\n"
            "set timeout=0\n"
            "set default=0\n"
            "menuentry 'Keel' {\n"
            f"  multiboot2 {IMAGE_PATH} {words}\n"
            "  boot\n"
            # Only when the image could not be loaded: say so where the guest's console is,
            # and end the VM rather than wait in GRUB's menu for a key.
            "  serial --unit=0 --speed=115200\n"
            "  terminal_output --append serial\n"
            "  echo 'keel: GRUB could not boot the image (no Multiboot2 header?)'\n"
            "  halt\n"
            "}\n")


def check_tools():
    missing = [package for tool, package in TOOLS.items() if shutil.which(tool) is None]
    missing += [package for path, package in PLATFORM_DIRS.items() if not os.path.isdir(path)]
    if missing:
        raise KeelError(f"the disk format needs Debian's {', '.join(sorted(set(missing)))}: "
                        "install them with `tools/keel setup --tests`")


def write(image, output, append=""):
    check_tools()
    try:
        shlex.split(append)
    except ValueError as e:
        raise KeelError(f"--append {append!r}: {e}") from None
    with tempfile.TemporaryDirectory(prefix="keel-disk-") as tree:
        os.makedirs(os.path.join(tree, "boot", "grub"))
        os.makedirs(os.path.dirname(os.path.join(tree, IMAGE_PATH.lstrip("/"))))
        shutil.copyfile(image, os.path.join(tree, IMAGE_PATH.lstrip("/")))
        with open(os.path.join(tree, "boot", "grub", "grub.cfg"), "w") as f:
            f.write(grub_cfg(append))
        result = subprocess.run(["grub-mkrescue", "--install-modules", MODULES,
                                 "--locales=", "--fonts=", "--themes=", "-o", output, tree],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise KeelError(f"grub-mkrescue failed:\n{result.stderr.strip()}")
    return output
