"""`keel package IMAGE|DIR --format libvirt|disk [-o PATH]`: the image as an artifact that
other platforms run (docs/deploy.md)."""
import os

from . import disk, libvirt
from .image import check_image
from .paths import KeelError

FORMATS = ("libvirt", "disk")
SUFFIX = {"libvirt": ".xml", "disk": ".img"}


def package(image, fmt, output=None, name=None, machine="pc", memory="64M", cpus=1, append="",
            accel="tcg", network=None, bridge=None, console_log=None):
    """Writes the artifact; returns its path."""
    check_image(image)
    name = name or os.path.basename(image)
    output = output or name + SUFFIX[fmt]
    if fmt == "libvirt":
        text = libvirt.domain_xml(image, name, machine, memory, cpus, append, accel, network,
                                  bridge, console_log)
        with open(output, "w") as f:
            f.write(text)
    elif fmt == "disk":
        if network or bridge or console_log:
            raise KeelError("--network, --bridge and --console-log are libvirt options: a disk "
                            "holds the image and its command line only")
        disk.write(image, output, append)
    else:
        raise KeelError(f"unknown format '{fmt}' (choose from {', '.join(FORMATS)})")
    return output
