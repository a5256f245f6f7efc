"""`keel package IMAGE|DIR --format libvirt|disk|oci|kubevirt|firecracker|container [-o PATH]`:
the image as an artifact that other platforms run (docs/deploy.md); `container` packs the
service's Linux-process build instead (PROGRAM|DIR)."""
import os

from . import container, disk, firecracker, kubevirt, libvirt, oci, qemu
from .image import check_image
from .paths import KeelError

FORMATS = ("libvirt", "disk", "oci", "kubevirt", "firecracker", "container")
SUFFIX = {"libvirt": ".xml", "disk": ".img", "oci": ".oci", "kubevirt": ".yaml",
          "firecracker": ".json", "container": ".container"}
TAP_FORMATS = ("firecracker", "container")
# The machine each format names when --machine is not given: libvirt's as `keel boot -M pc`,
# KubeVirt's default (q35), which the OCI image's annotation records too.
DEFAULT_MACHINE = {"libvirt": "pc", "oci": "q35", "kubevirt": "q35"}
LIBVIRT_ONLY = ("network", "bridge", "console_log")


def whole_mib(memory):
    mib = qemu.memory_mib(memory)
    if mib is None or mib != int(mib) or mib <= 0:
        raise KeelError(f"--memory {memory}: expected whole MiB, e.g. 64M")
    return int(mib)


def package(image, fmt, output=None, name=None, machine=None, memory="64M", cpus=1, append="",
            accel="tcg", network=None, bridge=None, console_log=None, ref=None, tap=None):
    """Writes the artifact; returns its path."""
    if fmt != "container":
        check_image(image)
    if fmt not in FORMATS:
        raise KeelError(f"unknown format '{fmt}' (choose from {', '.join(FORMATS)})")
    name = name or os.path.basename(image)
    output = output or name + SUFFIX[fmt]
    given = dict(network=network, bridge=bridge, console_log=console_log)
    if fmt != "libvirt" and any(given.values()):
        raise KeelError("--network, --bridge and --console-log are libvirt options")
    if ref and fmt != "kubevirt" or tap and fmt not in TAP_FORMATS:
        raise KeelError("--ref is a kubevirt option, --tap a firecracker or container one")
    if machine and fmt in ("disk", "firecracker", "container"):
        raise KeelError(f"--machine: a {fmt} has no QEMU machine type")
    machine = machine or DEFAULT_MACHINE.get(fmt)
    if fmt == "libvirt":
        write_text(output, libvirt.domain_xml(image, name, machine, memory, cpus, append, accel,
                                              network, bridge, console_log))
    elif fmt == "disk":
        disk.write(image, output, append)
    elif fmt == "oci":
        oci.write(image, output, name, append, whole_mib(memory), machine, cpus)
    elif fmt == "kubevirt":
        write_text(output, kubevirt.vmi_yaml(ref, name, append, whole_mib(memory), machine, cpus))
    elif fmt == "container":
        container.write(image, output, name, append, tap or "tap0")
    else:
        write_text(output, firecracker.config_json(image, append, whole_mib(memory), cpus, tap))
    return output


def write_text(output, text):
    with open(output, "w") as f:
        f.write(text)
