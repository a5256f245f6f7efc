"""`keel package --format container` (docs/deploy.md, decision 0118): examples/udp_echo's
Linux-process build as an OCI container image, pulled and run by podman in a network
namespace the test makes, answers a UDP echo through the TAP it opens there."""
import json
import os
import subprocess
import sys
import uuid

from conftest import KEEL, ROOT, image
from netguest import UDP_CLIENT, Namespace

sys.path.insert(0, os.path.join(ROOT, "tools"))
from keelpy import container  # noqa: E402

UDP_ECHO = os.path.join(ROOT, "examples", "udp_echo")
PODMAN_WAIT = 300  # s for a pull or a start on a loaded machine


def keel(*args):
    return subprocess.run([KEEL, *args], capture_output=True, text=True, timeout=900)


def podman(*args, check=True):
    return sh(container.podman(*args), check)


def sh(args, check=True):
    result = subprocess.run(args, capture_output=True, text=True, timeout=PODMAN_WAIT)
    assert not check or result.returncode == 0, f"{' '.join(args)}:\n{result.stderr}"
    return result.stdout


def test_container_of_udp_echo_answers(tmp_path):
    layout = tmp_path / "udp_echo.container"
    result = keel("package", UDP_ECHO, "--format", "container", "-o", str(layout),
                  "--append", "ip=10.0.0.9/24")
    assert result.returncode == 0, result.stdout + result.stderr
    config = image_config(layout)
    assert config["Entrypoint"] == ["/keel/udp_echo"]
    assert config["Cmd"] == ["ip=10.0.0.9/24", "tap0=tap0"]  # --append, then the TAP
    ref = podman("pull", "-q", f"oci:{layout}:latest").split()[-1]
    ns, name = Namespace(taps=1), f"keel-test-{uuid.uuid4().hex[:8]}"
    try:  # the default command overridden: the address this namespace expects
        sh(container.run_args(ref, name, f"/run/netns/{ns.name}", f"ip={ns.guest()}/24", "tap0"))
        reply = ns.python(UDP_CLIENT, ns.guest(), 2.0, 1, 100, 1400, timeout=120)
        assert reply.stdout.strip() == "bad []", reply.stdout + reply.stderr + podman(
            "logs", name, check=False)
        assert "listening on 10.0.0.2:7" in podman("logs", name)
    finally:
        podman("rm", "-f", "-t", "0", name, check=False)
        podman("rmi", "-f", ref, check=False)
        ns.close()


def image_config(layout):
    """The container config of the layout's only manifest."""
    def blob(digest):
        with open(layout / "blobs" / "sha256" / digest.split(":")[1]) as f:
            return json.load(f)
    with open(layout / "index.json") as f:
        manifest = blob(json.load(f)["manifests"][0]["digest"])
    return blob(manifest["config"]["digest"])["config"]


def test_container_refuses_a_keel_image(tmp_path):
    result = keel("package", image("hello"), "--format", "container", "-o",
                  str(tmp_path / "x"))
    assert result.returncode == 2
    assert "is a Keel image" in result.stderr and "--platform linux" in result.stderr
