"""The DNS appliance as a bootable image in QEMU (microvm, TCG), on a TAP
device in a namespace this test creates (run as root):

    /usr/bin/python3 -m pytest -v test/dns/test_appliance_qemu.py

1. A sample of the differential queries (queries.features_queries) against
   the image and NSD: no difference that is not a named one.
2. The 2015 IncludeOS paper's 10,000 A records served by an image given
   16 MiB of memory: every sampled name answered with its address.
3. lib/dns and the appliance carry no unwind tables in the image; the stack,
   which catches handlers' exceptions, keeps its own (decision 0150).
"""
import os
import random
import re
import shutil
import subprocess

import pytest

import appliance
import differential
import refservers
import queries
import zonegen

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP"),
    pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="needs QEMU"),
]

SAMPLE = 400


@pytest.mark.skipif(shutil.which("nsd") is None, reason="needs nsd")
def test_image_answers_like_nsd(tmp_path):
    zones_dir = str(tmp_path / "zones")
    zones = zonegen.write_zone_set(zones_dir, zonegen.FEATURES)
    sample = random.Random(11).sample(queries.features_queries(), SAMPLE)
    image = appliance.build(zones_dir, "kvm")
    ns = appliance.Namespace()
    started = []
    try:
        started.append(refservers.Reference("nsd", str(tmp_path), zones_dir, zones, "127.0.0.1", 5301, ns.exec_args))
        started.append(appliance.Appliance(ns, image=image))
        results = differential.probe(ns, str(tmp_path), zones, sample,
                                     {"keel": f"{appliance.guest_ip()}:53", "nsd": "127.0.0.1:5301"})
    finally:
        for thing in reversed(started):
            thing.close()
        ns.close()
    named, unexplained = differential.compare_runs(sample, results, "keel", ["nsd"], zones)["nsd"]
    print(f"\n{SAMPLE} queries, image against NSD: " + ", ".join(f"{k} {v}" for k, v in sorted(named.items())))
    assert not unexplained, "\n".join(unexplained[:20])


def test_ten_thousand_records_in_16_mib(tmp_path):
    zones_dir = str(tmp_path / "zones")
    zonegen.write_zone_set(zones_dir, {"bench.test": zonegen.a_records_zone(10000)})
    image = appliance.build(zones_dir, "kvm")
    rng = random.Random(3)
    hosts = rng.sample(range(10000), 300)
    asked = [(f"host{i}", queries.query(f"host{i}.bench.test.", 1, rng=rng)) for i in hosts]
    ns = appliance.Namespace()
    server = None
    try:
        server = appliance.Appliance(ns, image=image, memory="16M")
        results = differential.probe(ns, str(tmp_path), ["bench.test"], asked,
                                     {"keel": f"{appliance.guest_ip()}:53"})["keel"]
        console = server.output()
    finally:
        if server:
            server.close()
        ns.close()
    loaded = re.search(r"dns: zones 1, names \d+, records (\d+) in (\d+) bytes", console)
    assert loaded and int(loaded.group(1)) == 10003, console
    print(f"\n{console.strip()}")
    for i, response in zip(hosts, results):
        assert response is not None, f"host{i} not answered"
        address = bytes([10, i >> 16 & 255, i >> 8 & 255, i & 255]).hex()
        assert response.endswith("00010001" + "00000e10" + "0004" + address), f"host{i}: {response}"


def eh_frame_ranges(image):
    """The code ranges the image's .eh_frame describes (not .debug_frame, which the unwinder
    never reads)."""
    dump = subprocess.run(["readelf", "--debug-dump=frames", image], capture_output=True,
                          text=True, check=True).stdout
    eh_frame = dump.split("Contents of the .eh_frame section")[1].split("Contents of the")[0]
    return [(int(a, 16), int(b, 16)) for a, b in re.findall(r"pc=([0-9a-f]+)\.\.([0-9a-f]+)", eh_frame)]


def function_address(image, name):
    """The address of the function whose demangled name starts with `name`."""
    symbols = subprocess.run(["nm", "--defined-only", "-C", image], capture_output=True,
                             text=True, check=True).stdout
    found = [int(address, 16) for address, kind, symbol in
             (line.split(maxsplit=2) for line in symbols.splitlines() if line.count(" ") >= 2)
             if kind in "tT" and symbol.startswith(name)]
    assert found, name
    return found[0]


def test_unwind_tables_only_where_exceptions_pass():
    image = appliance.build(os.path.join(appliance.EXAMPLE, "zones"), "kvm")
    ranges = eh_frame_ranges(image)

    def described(name):
        address = function_address(image, name)
        return any(start <= address < end for start, end in ranges)

    assert not described("keel::dns::parse_message(")  # lib/dns, at -O2
    assert not described("dns_app::load_config[")  # the appliance, at -Os
    assert described("net::UdpLayer::run_handlers(")  # catches a handler's exception
