"""TSIG (RFC 8945) on the appliance's Linux build and on the image under QEMU,
each on a TAP device in a namespace this test creates, NSD beside them with
the same key (run as root; nsd, bind9-dnsutils, knot-dnsutils):

    /usr/bin/python3 -m pytest -v test/dns/test_tsig.py

`dig -y` and `kdig -y` transfer whole zones signed with the key the access
list requires (both check every message's MAC, the chain of §5.3.1 across
a zone of several messages), and get signed answers to other queries; an
unsigned transfer from the same address is REFUSED; a wrong key name, a
wrong secret and a wrong algorithm get NOTAUTH with the TSIG error NSD gives
(BADKEY, BADSIG) for the same request.
"""
import base64
import os
import re
import shutil

import pytest

import appliance
import refservers
import zonegen

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP"),
    pytest.mark.skipif(shutil.which("dig") is None, reason="needs dig (bind9-dnsutils)"),
]

SECRET = base64.b64encode(b"keel-tsig-integration-secret-32!").decode()
OTHER_SECRET = base64.b64encode(b"another-secret-of-thirty-two-oct").decode()
SHA512_SECRET = base64.b64encode(bytes(range(64))).decode()
KEY = f"hmac-sha256:xfr-key:{SECRET}"
SHA512_KEY = f"hmac-sha512:other-key:{SHA512_SECRET}"
APPEND = (f"dns_key={KEY},{SHA512_KEY} dns_xfr_allow={appliance.host_ip()}/32@xfr-key "
          "dns_tcp_idle=3000 dns_stats=1")
NSD_PORT = 5302
ZONES = {"example.com": zonegen.FEATURES["example.com"],
         "bench.test": zonegen.a_records_zone(3000)}  # ~75 KB: several messages


def transfer(ns, tool, address, zone, key, port=53):
    """(records, output) of `dig -y`/`kdig -y` AXFR."""
    out = ns.sh(f"{tool} -p {port} -y {key} @{address} {zone} AXFR", timeout=120)
    text = out.stdout + out.stderr
    records = []
    for line in out.stdout.splitlines():
        if not line.strip() or line.startswith(";"):
            continue
        fields = line.split()
        if len(fields) >= 4 and fields[3] == "TSIG" or fields[2:3] == ["TSIG"]:
            continue  # kdig prints the TSIG records with the zone
        owner, ttl, rclass, rtype, *rdata = fields
        records.append((owner.lower(), int(ttl), rclass, rtype, " ".join(rdata)))
    return records, text


def status(ns, tool_args, address, port=53):
    """(rcode, TSIG error) of a `dig` query: the header's status and the TSIG pseudo-section."""
    text = ns.sh(f"dig -p {port} @{address} {tool_args} +tries=1 +time=10", timeout=60).stdout
    rcode = re.search(r"status: (\w+)", text)
    # "NAME 0 ANY TSIG ALG TIME FUDGE MACSIZE MAC... ID ERROR OTHERLEN [OTHER]": dig splits
    # long MACs in two, so the error is found from the end.
    line = re.search(r"^\S+\s+0\s+ANY\s+TSIG\s.*$", text, re.M)
    error = None
    if line:
        words = line.group(0).split()
        error = words[-2] if words[-1] == "0" else words[-3]
    return (rcode.group(1) if rcode else None, error), text


def check_signed_transfers(ns, address, zones, nsd=None):
    for zone in zones:
        for tool in ("dig", "kdig"):
            if shutil.which(tool) is None:
                continue
            keel, text = transfer(ns, tool, address, zone, KEY)
            # A MAC that does not check makes dig say "tsig verify failure" and
            # kdig "TSIG ... failed"/"BADSIG"; either stops the transfer.
            assert not re.search(r"(?i)fail|couldn't verify|\bbad(sig|key|time|trunc)\b|;; (error|warning)",
                                 text), text[-2000:]
            assert keel and keel[0][3] == "SOA" and keel[-1][3] == "SOA", text[-2000:]
            if nsd:
                theirs, nsd_text = transfer(ns, tool, "127.0.0.1", zone, KEY, NSD_PORT)
                assert set(keel) == set(theirs) and len(keel) == len(theirs), nsd_text[-1000:]
    # Another query, signed with the other key (HMAC-SHA-512): a signed answer dig checks.
    answer, text = status(ns, f"-y {SHA512_KEY} www.example.com A", address)
    assert answer == ("NOERROR", "NOERROR"), text


WRONG = {"unknown key": f"-y hmac-sha256:nobody:{SECRET}",
         "wrong secret": f"-y hmac-sha256:xfr-key:{OTHER_SECRET}",
         "wrong algorithm": f"-y hmac-sha512:xfr-key:{SECRET}"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    work = tmp_path_factory.mktemp("dns-tsig")
    zones_dir = str(work / "zones")
    zones = zonegen.write_zone_set(zones_dir, ZONES)
    program = appliance.build(zones_dir, "linux")
    ns = appliance.Namespace()
    started = []
    try:
        if shutil.which("nsd"):
            started.append(refservers.Reference("nsd", str(work), zones_dir, zones, "127.0.0.1", NSD_PORT,
                                                ns.exec_args, provide_xfr="0.0.0.0/0",
                                                tsig_key=KEY.split(":")))
        started.append(appliance.Appliance(ns, program=program, append=APPEND))
        yield ns, started[-1], zones, started[0] if len(started) == 2 else None
    finally:
        for thing in reversed(started):
            thing.close()
        ns.close()


def test_signed_transfers_verify_with_dig_and_kdig(served):
    ns, server, zones, nsd = served
    check_signed_transfers(ns, server.address, zones, nsd)
    server.wait_for(r"tsig signed [1-9]", timeout=10)


def test_unsigned_transfer_is_refused_when_the_acl_wants_a_key(served):
    ns, server, _, nsd = served
    _, text = status(ns, "+tcp example.com AXFR", server.address)
    assert "Transfer failed" in text, text  # dig's word for REFUSED, counted by the server:
    server.wait_for(r"\| xfr \d+ refused [1-9]", timeout=10)
    if nsd:
        assert "Transfer failed" in status(ns, "+tcp example.com AXFR", "127.0.0.1", NSD_PORT)[1]


@pytest.mark.parametrize("case", sorted(WRONG))
@pytest.mark.parametrize("transport", ["+tcp", "+notcp"])
def test_wrong_keys_get_notauth_as_from_nsd(served, case, transport):
    ns, server, _, nsd = served
    keel, text = status(ns, f"{WRONG[case]} {transport} example.com SOA", server.address)
    assert keel[0] == "NOTAUTH" and keel[1] in ("BADKEY", "BADSIG"), text
    if nsd:
        theirs, nsd_text = status(ns, f"{WRONG[case]} {transport} example.com SOA", "127.0.0.1", NSD_PORT)
        if case == "wrong algorithm":
            # NSD 4.6 finds the key by name alone and signs with the request's algorithm;
            # RFC 8945 §5.2.1 (and Keel) require the key's own: BADKEY.
            assert keel == ("NOTAUTH", "BADKEY") and theirs == ("NOERROR", "NOERROR"), nsd_text
        else:
            assert keel == theirs, f"Keel {keel}, NSD {theirs}\n{text}\n{nsd_text}"


@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="needs QEMU")
def test_the_image_signs_too(tmp_path):
    zones_dir = str(tmp_path / "zones")
    zones = zonegen.write_zone_set(zones_dir, ZONES)
    image = appliance.build(zones_dir, "kvm")
    ns = appliance.Namespace()
    server = None
    try:
        server = appliance.Appliance(ns, image=image, append=APPEND)
        check_signed_transfers(ns, server.address, zones)
        keel, text = status(ns, f"{WRONG['unknown key']} +tcp example.com SOA", server.address)
        assert keel == ("NOTAUTH", "BADKEY"), text
    finally:
        if server:
            server.close()
        ns.close()
