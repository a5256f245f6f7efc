"""`keel package --format kubevirt --ref REF`: a KubeVirt VirtualMachineInstance that boots the
image from the OCI image REF (pushed from `--format oci`) through
spec.domain.firmware.kernelBoot (decision 0117, docs/deploy.md).

KubeVirt copies the file at kernelPath out of the container image and gives it to libvirt as
<os><kernel>, which is QEMU's -kernel: QEMU loads the ELF through its PVH note, as for
`keel boot` and `keel package --format libvirt` (decision 0112). BIOS firmware only: OVMF's
direct kernel boot takes EFI-stub kernels, not PVH ELFs. One virtio NIC on the pod network
(masquerade: KubeVirt's DHCP server gives the guest an address that is NATed to the pod's, so
`ip=dhcp` is put first on the command line unless --append sets up the interface, as `keel
run` does) and the serial console (`virtctl console NAME`)."""
import json
import re

from . import disk, run
from .paths import KeelError

API_VERSION = "kubevirt.io/v1"
MACHINES = ("q35", "pc")  # KubeVirt's default emulatedMachines on x86-64 allow q35 only
NAME_MAX = 63             # an RFC 1123 label, as Kubernetes object names are


def object_name(name):
    """A Kubernetes name from an image name: lower case, '_' and '.' become '-'."""
    label = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:NAME_MAX].rstrip("-")
    if not label:
        raise KeelError(f"--name {name!r}: no letters or digits for a Kubernetes name")
    return label


def quoted(text):
    """A YAML double-quoted scalar: JSON's string syntax is a subset of it (YAML 1.2)."""
    return json.dumps(text)


def vmi_yaml(ref, name, append="", memory_mib=64, machine="q35", cpus=1):
    if not ref:
        raise KeelError("--format kubevirt needs --ref: the OCI image in a registry that the "
                        "cluster pulls (push the --format oci layout there first)")
    if machine not in MACHINES:
        raise KeelError(f"kubevirt: machine '{machine}' is not one of {', '.join(MACHINES)}")
    if not run.configures_interface(append):
        append = f"ip=dhcp {append}".strip()
    return f"""# A Keel image as a KubeVirt VirtualMachineInstance, written by keel package
# (docs/deploy.md): kubectl apply -f this file; virtctl console {object_name(name)}
apiVersion: {API_VERSION}
kind: VirtualMachineInstance
metadata:
  name: {object_name(name)}
  labels:
    app.kubernetes.io/name: {object_name(name)}
spec:
  terminationGracePeriodSeconds: 0
  domain:
    machine:
      type: {machine}
    cpu:
      cores: {cpus}
    resources:
      requests:
        memory: {memory_mib}Mi
    firmware:
      kernelBoot:
        kernelArgs: {quoted(append)}
        container:
          image: {quoted(ref)}
          kernelPath: {disk.IMAGE_PATH}
          imagePullPolicy: IfNotPresent
    devices:
      autoattachSerialConsole: true
      autoattachGraphicsDevice: false
      autoattachMemBalloon: false
      rng: {{}}
      interfaces:
        - name: default
          model: virtio
          masquerade: {{}}
  networks:
    - name: default
      pod: {{}}
"""
