"""The density benchmark's machinery (bench/density/fleet.py), small enough for CI: three
udp_echo images on three TAPs of one bridge in a namespace the fleet makes, each answering
a UDP echo, and nothing left behind (QEMU, namespace) once the fleet is closed, also when
it is closed in the middle of a launch; images answering with the bench's --tcg options;
a container limited to its memory (decision 0125). The full `keel bench density` is not run
here."""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import ROOT
from netguest import udp_echo_image

sys.path.insert(0, os.path.join(ROOT, "bench", "density"))
import sides  # noqa: E402
from fleet import Fleet  # noqa: E402
from keelpy import container  # noqa: E402

N = 3
DEADLINE = 40  # s for three images to answer on a loaded machine (about 1 s unloaded)


def namespaces():
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


def alive(pid):
    return os.path.exists(f"/proc/{pid}")


def test_three_images_answer_and_are_cleaned_up():
    side = sides.keel(udp_echo_image(), 3)  # decision 0090: udp_echo's smallest memory
    name = f"keel-density-{os.getpid()}"
    with Fleet(name, side) as fleet:
        result = fleet.launch(N, DEADLINE)
        assert (result["started"], result["answered"]) == (N, N), result
        assert 0 < result["all_answer_s"] < DEADLINE
        pids = [p for group in result["pids"] for p in group]
        memory = fleet.memory(result["pids"])
        assert len(memory) == N and all(0 < pss <= rss for rss, pss in memory), memory
        assert name in namespaces()
    assert name not in namespaces()
    assert not any(alive(p) for p in pids)


class Interrupting:
    """A side whose second start is interrupted, as by Ctrl-C."""

    def __init__(self, inner):
        self.inner, self.label, self.memory_mib = inner, inner.label, inner.memory_mib

    def start(self, fleet, i, *rest):
        if i == 1:
            self.started = [p.pid for p in fleet.procs]  # the prober and the first QEMU
            raise KeyboardInterrupt
        self.inner.start(fleet, i, *rest)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_interrupted_launch_leaves_nothing():
    side = Interrupting(sides.keel(udp_echo_image(), 3))
    name = f"keel-density-int-{os.getpid()}"
    try:
        with Fleet(name, side) as fleet:
            fleet.launch(N, DEADLINE)
    except KeyboardInterrupt:
        pass
    assert name not in namespaces()
    assert len(side.started) == 2 and not any(alive(p) for p in side.started)


def test_tcg_options_go_on_the_qemu_line_and_the_images_answer_with_them():
    side = sides.keel(udp_echo_image(), 3, "tb-size=16")
    args = side.command("ip=10.99.1.1/16", sides.nic_args("dt0", "52:54:00:99:00:00"))
    assert args[args.index("-accel") + 1] == "tcg,tb-size=16" and args.count("-accel") == 1
    with Fleet(f"keel-density-tcg-{os.getpid()}", side) as fleet:
        result = fleet.launch(2, DEADLINE)
        assert (result["started"], result["answered"]) == (2, 2), result


@pytest.mark.skipif(shutil.which("podman") is None, reason="podman not installed")
def test_a_container_runs_limited_to_its_memory():
    sys.path.insert(0, os.path.join(ROOT, "bench", "linux-vm"))
    import bench_density
    with tempfile.TemporaryDirectory(prefix="keel-density-") as work:
        ref, note = bench_density.container_image(work)
    assert ref, note
    side = sides.ContainerSide(ref, f"keel-density-{os.getpid()}", 8)
    try:
        with Fleet(f"keel-density-ctr-{os.getpid()}", side) as fleet:
            result = fleet.launch(1, DEADLINE)
            assert result["answered"] == 1, result
            limit = subprocess.run(container.podman("inspect", "--format",
                                                    "{{.HostConfig.Memory}}", side.names[0]),
                                   capture_output=True, text=True).stdout.strip()
            assert limit == str(8 << 20)
    finally:
        subprocess.run(container.podman("rmi", "-f", ref), capture_output=True)
