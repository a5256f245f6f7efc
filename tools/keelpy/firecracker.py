"""`keel package --format firecracker`: a Firecracker VM config, the JSON that
`firecracker --no-api --config-file FILE` takes (Firecracker's VmmConfig: "boot-source",
"drives", "machine-config", "network-interfaces"). Firecracker loads the image through its PVH
note (decision 0002) and gives it virtio-mmio devices, which it names on the command line
(`virtio_mmio.device=`, read by src/drivers/virtio/mmio_arguments.cpp). Not run here:
Firecracker is not installable on this machine (docs/deploy.md)."""
import json
import os

from .paths import KeelError

IFACE_ID = "eth0"  # Firecracker's name for the NIC, in its API only: the guest sees none


def config_json(image, append="", memory_mib=64, cpus=1, tap=None):
    """The config as text. The image becomes an absolute path: Firecracker opens it from its
    own working directory (or the jailer's chroot, where the path must be rewritten)."""
    if memory_mib != int(memory_mib):
        raise KeelError(f"firecracker: memory must be whole MiB, not {memory_mib}")
    config = {"boot-source": {"kernel_image_path": os.path.abspath(image), "boot_args": append},
              # Required by Firecracker's config file, even when empty: the image needs no disk.
              "drives": [],
              "machine-config": {"vcpu_count": cpus, "mem_size_mib": int(memory_mib)},
              "network-interfaces": [{"iface_id": IFACE_ID, "host_dev_name": tap}] if tap else []}
    return json.dumps(config, indent=2) + "\n"
