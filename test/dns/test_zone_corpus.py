"""The valid zone-file corpus (test/dns/zones/valid) read by Keel and by NSD
(nsd-checkzone -p prints what NSD read; dnspython turns that canonical text
into wire format): every record must come out the same (owner, type, TTL and
RDATA octets). A file whose header says "; oracle: none" is one where NSD
reads differently on purpose (docs/dns.md says why); its exact records are
checked by zone_file_test.cpp, as are the error files and their messages.

    /usr/bin/python3 -m pytest -v test/dns/test_zone_corpus.py
"""
import glob
import os
import re
import shutil
import subprocess

import dns.name
import dns.zone
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COMPILER = os.path.join(os.environ.get("KEEL_HOST_BUILD", os.path.join(ROOT, "build", "host")),
                        "lib", "dns", "keel-dns-compile")
VALID = sorted(glob.glob(os.path.join(HERE, "zones", "valid", "*.zone")))


def header(path, key):
    with open(path) as f:
        return re.search(rf"^; {key}: (.*)$", f.read(), re.M).group(1)


def keel_records(path, origin):
    out = subprocess.run([COMPILER, "--dump", f"{origin}={path}"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    records = []
    for line in out.stdout.splitlines():
        _, owner, rtype, ttl, *rdata = line.split(" ")
        records.append((dns.name.from_text(owner).to_text().lower(), int(rtype), int(ttl), rdata[0] if rdata else ""))
    return sorted(records)


def generic_minfo(line):
    """dnspython (2.3) has no MINFO: NSD's "MINFO rmailbx emailbx" (absolute
    names) in the RFC 3597 form, the two names in wire format."""
    words = line.split("\t")
    if len(words) < 5 or words[3] != "MINFO":
        return line
    wire = b"".join(dns.name.from_text(n).to_wire() for n in words[4].split())
    return "\t".join(words[:3] + ["TYPE14", f"\\# {len(wire)} {wire.hex()}"])


def nsd_records(path, origin):
    # NSD takes $INCLUDE paths relative to its working directory (zonesdir).
    out = subprocess.run(["nsd-checkzone", "-p", origin, os.path.basename(path)], cwd=os.path.dirname(path),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    text = "\n".join(generic_minfo(line) for line in out.stdout.splitlines() if not line.startswith(";"))
    zone = dns.zone.from_text(text, origin=origin, relativize=False, check_origin=False)
    records = []
    for name, node in zone.nodes.items():
        for rdataset in node.rdatasets:
            for rdata in rdataset:
                records.append((name.to_text().lower(), rdataset.rdtype, rdataset.ttl,
                                rdata.to_wire().hex()))
    return sorted(records)


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="build the host tree first (keel-dns-compile)")
@pytest.mark.skipif(shutil.which("nsd-checkzone") is None, reason="needs nsd")
@pytest.mark.parametrize("path", VALID, ids=os.path.basename)
def test_valid_zone_reads_like_nsd(path):
    origin = header(path, "origin")
    keel = keel_records(path, origin)
    assert len(keel) == int(header(path, "records"))
    with open(path) as f:
        if "; oracle: none" in f.read():
            pytest.skip("NSD reads this file differently on purpose (see its header)")
    # dnspython keeps one TTL per RRset (the lowest); compare with that. The TTL of each
    # record is checked in zone_file_test.cpp.
    lowest = {}
    for owner, rtype, ttl, _ in keel:
        lowest[(owner, rtype)] = min(ttl, lowest.get((owner, rtype), ttl))
    keel = sorted((o, t, lowest[(o, t)], r) for o, t, _, r in keel)
    assert keel == nsd_records(path, origin)
