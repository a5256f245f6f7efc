"""`keel package --format oci|kubevirt|firecracker` (docs/deploy.md, decision 0117).

The OCI layout is checked by Debian's own OCI tools: umoci reads and unpacks it and the
unpacked file is the image byte for byte, skopeo inspects it and copies it into an
oci-archive; the same image gives the same digest; and the unpacked image boots under QEMU's
-kernel on q35, the way KubeVirt's kernelBoot hands it to QEMU. No cluster and no KubeVirt
schema file are available here: the VMI is checked against the field lists of KubeVirt's v1 API
below. Firecracker is not installable here: its config is checked against the fields its
config file takes, and never run."""
import json
import os
import re
import subprocess

import pytest
import yaml

from conftest import boot, image
from test_keel_tool import keel

APPEND = "ip=dhcp 'two words' q=\"x\""
TOOL_WAIT = 120   # s for umoci or skopeo on a 4 MiB image on a loaded machine
BOOT_WAIT = 120   # s for hello to boot under TCG on a loaded machine
IMAGE_PATH = "/boot/keel/image"  # the documented path in the layer (docs/deploy.md)


def run(*args):
    result = subprocess.run(args, capture_output=True, text=True, timeout=TOOL_WAIT)
    assert result.returncode == 0, f"{' '.join(args)}:\n{result.stdout}{result.stderr}"
    return result.stdout


def package(tmp_path, fmt, *options, service="hello", output=None):
    output = output or tmp_path / f"{service}.{fmt}"
    result = keel("package", image(service), "--format", fmt, "-o", str(output), *options)
    assert result.returncode == 0, result.stdout + result.stderr
    return output


def tree(path):
    """Every file under path, by relative name, with its bytes."""
    files = {}
    for top, _, names in os.walk(path):
        for name in names:
            with open(os.path.join(top, name), "rb") as f:
                files[os.path.relpath(os.path.join(top, name), path)] = f.read()
    return files


# --- OCI ---------------------------------------------------------------------------------

def test_umoci_unpacks_the_image_byte_for_byte(tmp_path):
    layout = package(tmp_path, "oci", "--append", APPEND)
    stat = json.loads(run("umoci", "stat", "--json", "--image", f"{layout}:latest"))
    assert stat["history"][0]["created_by"] == "keel package --format oci", stat
    bundle = tmp_path / "bundle"
    run("umoci", "unpack", "--rootless", "--image", f"{layout}:latest", str(bundle))
    unpacked = bundle / "rootfs" / IMAGE_PATH.lstrip("/")
    with open(unpacked, "rb") as a, open(image("hello"), "rb") as b:
        assert a.read() == b.read()
    assert sorted(os.listdir(bundle / "rootfs")) == ["boot"]  # the image and nothing else


def test_skopeo_inspects_the_annotations_and_copies_the_layout(tmp_path):
    layout = package(tmp_path, "oci", "--append", APPEND, "--memory", "96M", "-M", "q35")
    seen = json.loads(run("skopeo", "inspect", f"oci:{layout}:latest"))
    assert (seen["Architecture"], seen["Os"]) == ("amd64", "linux")
    assert seen["Labels"]["dev.keel.cmdline"] == APPEND
    assert seen["Labels"]["dev.keel.memory"] == "96Mi"
    assert seen["Labels"]["dev.keel.machine"] == "q35"
    assert seen["Labels"]["dev.keel.image.path"] == IMAGE_PATH
    assert seen["Labels"]["org.opencontainers.image.title"] == "hello"
    manifest = json.loads(run("skopeo", "inspect", "--raw", f"oci:{layout}:latest"))
    assert manifest["annotations"] == seen["Labels"]
    assert manifest["layers"][0]["mediaType"] == "application/vnd.oci.image.layer.v1.tar+gzip"
    archive = tmp_path / "hello.tar"
    run("skopeo", "copy", "--quiet", f"oci:{layout}:latest", f"oci-archive:{archive}:latest")
    copied = json.loads(run("skopeo", "inspect", f"oci-archive:{archive}:latest"))
    assert copied["Digest"] == seen["Digest"]  # copied as is: same manifest, same bytes


def test_the_same_image_gives_the_same_digest(tmp_path):
    first = package(tmp_path, "oci", "--append", APPEND, output=tmp_path / "a.oci")
    second = package(tmp_path, "oci", "--append", APPEND, output=tmp_path / "b.oci")
    assert tree(first) == tree(second)
    other = package(tmp_path, "oci", "--append", "ip=dhcp", output=tmp_path / "c.oci")
    index = [json.loads(tree(p)["index.json"]) for p in (first, other)]
    assert index[0]["manifests"][0]["digest"] != index[1]["manifests"][0]["digest"]


def test_writing_again_replaces_the_layout_and_nothing_else(tmp_path):
    layout = package(tmp_path, "oci", "--append", "a=1")
    package(tmp_path, "oci", "--append", "a=2")  # same -o: the old blobs go
    assert len(os.listdir(layout / "blobs" / "sha256")) == 3  # layer, config, manifest
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    result = keel("package", image("hello"), "--format", "oci", "-o", str(other))
    assert result.returncode == 2 and "is not an OCI layout" in result.stderr
    assert os.listdir(other) == ["keep.txt"]


def test_the_unpacked_image_boots_on_q35_like_kernelboot(tmp_path):
    # KubeVirt gives kernelPath's file to libvirt as <os><kernel> on q35 with BIOS: QEMU's
    # -kernel, which loads the ELF through its PVH note. This is that boot, from the file
    # umoci took out of the layout.
    layout = package(tmp_path, "oci")
    bundle = tmp_path / "bundle"
    run("umoci", "unpack", "--rootless", "--image", f"{layout}:latest", str(bundle))
    status, console = boot(str(bundle / "rootfs" / IMAGE_PATH.lstrip("/")), machine="q35",
                           timeout=BOOT_WAIT)
    assert status == 0, console
    assert "Hello from Keel on kvm" in console, console


# --- KubeVirt ------------------------------------------------------------------------------

# Field names of KubeVirt's v1 API types (kubevirt.io/api/core/v1; swagger.json's
# definitions v1.VirtualMachineInstanceSpec, v1.DomainSpec, ...), written out here because no
# Debian package ships KubeVirt's schema. Each list was compared once, by hand, with the models
# that the npm package @kubevirt-ui/kubevirt-api 1.4.0 generates from KubeVirt's OpenAPI: the
# same names (ObjectMeta: a subset). A key the API does not have fails the test, as `kubectl
# apply --validate=strict` would fail it.
OBJECT = {"apiVersion": str, "kind": str, "metadata": "ObjectMeta", "spec": "VMISpec",
          "status": dict}
API = {
    "ObjectMeta": {"name": str, "namespace": str, "labels": dict, "annotations": dict,
                   "generateName": str},
    "VMISpec": {"accessCredentials": list, "affinity": dict, "architecture": str,
                "dnsConfig": dict, "dnsPolicy": str, "domain": "DomainSpec",
                "evictionStrategy": str, "hostname": str, "livenessProbe": dict,
                "networks": ["Network"], "nodeSelector": dict, "priorityClassName": str,
                "readinessProbe": dict, "resourceClaims": list, "schedulerName": str, "startStrategy": str,
                "subdomain": str, "terminationGracePeriodSeconds": int, "tolerations": list,
                "topologySpreadConstraints": list, "volumes": list},
    "DomainSpec": {"chassis": dict, "clock": dict, "cpu": "CPU", "devices": "Devices",
                   "features": dict, "firmware": "Firmware", "ioThreads": dict,
                   "ioThreadsPolicy": str,
                   "launchSecurity": dict, "machine": "Machine", "memory": dict,
                   "resources": "ResourceRequirements"},
    "Machine": {"type": str},
    "CPU": {"cores": int, "dedicatedCpuPlacement": bool, "features": list,
            "isolateEmulatorThread": bool, "maxSockets": int, "model": str, "numa": dict,
            "realtime": dict, "sockets": int, "threads": int},
    "ResourceRequirements": {"limits": dict, "overcommitGuestOverhead": bool,
                             "requests": dict},
    "Firmware": {"acpi": dict, "bootloader": dict, "kernelBoot": "KernelBoot", "serial": str,
                 "uuid": str},
    "KernelBoot": {"container": "KernelBootContainer", "kernelArgs": str},
    "KernelBootContainer": {"image": str, "imagePullPolicy": str, "imagePullSecret": str,
                            "initrdPath": str, "kernelPath": str},
    "Devices": {"autoattachGraphicsDevice": bool, "autoattachInputDevice": bool,
                "autoattachMemBalloon": bool, "autoattachPodInterface": bool,
                "autoattachSerialConsole": bool, "autoattachVSOCK": bool,
                "blockMultiQueue": bool, "clientPassthrough": dict, "disableHotplug": bool,
                "disks": list, "downwardMetrics": dict, "filesystems": list, "gpus": list,
                "hostDevices": list, "inputs": list, "interfaces": ["Interface"],
                "logSerialConsole": bool, "networkInterfaceMultiqueue": bool,
                "panicDevices": list, "rng": "Empty", "sound": dict, "tpm": dict,
                "useVirtioTransitional": bool, "video": dict, "watchdog": dict},
    "Interface": {"acpiIndex": int, "binding": dict, "bootOrder": int, "bridge": "Empty",
                  "dhcpOptions": dict, "macAddress": str, "macvtap": "Empty",
                  "masquerade": "Empty", "model": str,
                  "name": str, "passt": "Empty", "pciAddress": str, "ports": list,
                  "slirp": "Empty", "sriov": "Empty", "state": str, "tag": str},
    "Network": {"name": str, "pod": "PodNetwork", "multus": dict},
    "PodNetwork": {"vmIPv6NetworkCIDR": str, "vmNetworkCIDR": str},
    "Empty": {},  # v1.InterfaceMasquerade, v1.Rng: no fields
}
QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|[kMGTPE]|m)?$")  # resource.Quantity
RFC1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def check_fields(value, kind, where="VirtualMachineInstance"):
    if isinstance(kind, list):
        assert isinstance(value, list), f"{where}: not a list"
        for i, item in enumerate(value):
            check_fields(item, kind[0], f"{where}[{i}]")
    elif isinstance(kind, str):
        assert isinstance(value, dict), f"{where}: not an object ({kind})"
        for key, item in value.items():
            assert key in API[kind], f"{where}: KubeVirt's {kind} has no field '{key}'"
            check_fields(item, API[kind][key], f"{where}.{key}")
    elif isinstance(kind, dict):  # the top level
        for key, item in value.items():
            assert key in kind, f"{where}: no field '{key}'"
            check_fields(item, kind[key], f"{where}.{key}")
    else:
        assert isinstance(value, kind), f"{where}: {value!r} is not {kind.__name__}"


def test_the_vmi_has_kubevirts_fields_and_boots_the_oci_image(tmp_path):
    ref = "registry.example:5000/keel/hello:1"
    path = package(tmp_path, "kubevirt", "--ref", ref, "--append", APPEND, "--memory", "96M",
                   "--name", "Udp_Echo.v2")
    with open(path) as f:
        vmi = yaml.safe_load(f)
    check_fields(vmi, OBJECT)
    assert (vmi["apiVersion"], vmi["kind"]) == ("kubevirt.io/v1", "VirtualMachineInstance")
    assert vmi["metadata"]["name"] == "udp-echo-v2"
    assert RFC1123_LABEL.match(vmi["metadata"]["name"])
    domain = vmi["spec"]["domain"]
    boot_from = domain["firmware"]["kernelBoot"]
    assert boot_from["kernelArgs"] == APPEND
    assert boot_from["container"]["image"] == ref
    assert boot_from["container"]["kernelPath"] == IMAGE_PATH  # where the OCI layer has it
    # KubeVirt's admission webhook (validateKernelBoot): an image, and an absolute path with
    # no "..", for kernel arguments to be accepted.
    kernel_path = boot_from["container"]["kernelPath"]
    assert boot_from["container"]["image"] and os.path.isabs(kernel_path)
    assert ".." not in kernel_path.split("/")
    assert boot_from["container"]["imagePullPolicy"] in ("Always", "Never", "IfNotPresent")
    assert "bootloader" not in domain["firmware"]  # BIOS: OVMF would not load a PVH ELF
    assert domain["machine"]["type"] == "q35"
    memory = domain["resources"]["requests"]["memory"]
    assert memory == "96Mi" and QUANTITY.match(memory)
    devices = domain["devices"]
    assert devices["autoattachSerialConsole"] is True
    [nic] = devices["interfaces"]
    [network] = vmi["spec"]["networks"]
    assert nic == {"name": network["name"], "model": "virtio", "masquerade": {}}
    assert network == {"name": nic["name"], "pod": {}}


def test_the_vmi_takes_the_pod_networks_address_by_dhcp(tmp_path):
    # Masquerade: KubeVirt's DHCP server hands the guest its address (decision 0117).
    path = package(tmp_path, "kubevirt", "--ref", "r/x:1", "--append", "port=7")
    with open(path) as f:
        assert yaml.safe_load(f)["spec"]["domain"]["firmware"]["kernelBoot"]["kernelArgs"] == \
            "ip=dhcp port=7"
    path = package(tmp_path, "kubevirt", "--ref", "r/x:1", "--append", "ip=10.0.2.2/24",
                   output=tmp_path / "fixed.yaml")
    with open(path) as f:
        assert yaml.safe_load(f)["spec"]["domain"]["firmware"]["kernelBoot"]["kernelArgs"] == \
            "ip=10.0.2.2/24"


def test_the_vmi_needs_a_registry_reference(tmp_path):
    result = keel("package", image("hello"), "--format", "kubevirt", "-o",
                  str(tmp_path / "x.yaml"))
    assert result.returncode == 2 and "needs --ref" in result.stderr
    assert not os.path.exists(tmp_path / "x.yaml")


def test_a_kubevirt_field_the_api_lacks_is_caught():
    # The check itself: a misspelt field fails it.
    with pytest.raises(AssertionError, match="has no field 'kernelPth'"):
        check_fields({"spec": {"domain": {"firmware": {"kernelBoot": {"container": {
            "image": "x", "kernelPth": IMAGE_PATH}}}}}}, OBJECT)


# --- Firecracker ---------------------------------------------------------------------------

def test_the_firecracker_config_has_its_documented_fields(tmp_path):
    path = package(tmp_path, "firecracker", "--append", APPEND, "--memory", "128M", "--cpus",
                   "2", "--tap", "fc-tap0")
    with open(path) as f:
        config = json.load(f)
    assert set(config) == {"boot-source", "drives", "machine-config", "network-interfaces"}
    assert config["boot-source"] == {"kernel_image_path": os.path.abspath(image("hello")),
                                     "boot_args": APPEND}
    assert config["drives"] == []  # required by Firecracker's config file, even empty
    assert config["machine-config"] == {"vcpu_count": 2, "mem_size_mib": 128}
    assert config["network-interfaces"] == [{"iface_id": "eth0", "host_dev_name": "fc-tap0"}]


def test_a_firecracker_config_without_tap_has_no_nic(tmp_path):
    with open(package(tmp_path, "firecracker")) as f:
        assert json.load(f)["network-interfaces"] == []


@pytest.mark.parametrize("fmt,option", [("oci", "--ref=r/x:1"), ("kubevirt", "--tap=t0"),
                                        ("firecracker", "--bridge=br0"),
                                        ("firecracker", "-Mq35")])
def test_options_of_other_formats_are_refused(tmp_path, fmt, option):
    result = keel("package", image("hello"), "--format", fmt, "-o", str(tmp_path / "x"), option)
    assert result.returncode == 2 and "keel:" in result.stderr, result.stderr
    assert not os.path.exists(tmp_path / "x")
