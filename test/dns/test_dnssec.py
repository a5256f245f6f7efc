"""Signed zones (RFC 4035, RFC 5155) served by the appliance's Linux build on
a TAP device, against NSD serving the same signed files, in a namespace this
test creates (run as root; nsd, knot, ldnsutils, bind9-dnsutils,
python3-dnspython):

    /usr/bin/python3 -m pytest -v test/dns/test_dnssec.py

A generated zone (zonegen: delegations, wildcards, CNAME and DNAME chains,
empty non-terminals) and a small one with a secure delegation (DS) are
signed at test time, with NSEC by ldns-signzone or with NSEC3 by Knot
(signer.py). Thousands of queries with DO set — names that exist and do
not, wrong types, wildcards, delegations, hashed NSEC3 owners, UDP sizes
from 512 — go to NSD and to the appliance with and without its
pre-rendered answers; every section is compared as a set of RRsets
(records, TTLs, signatures). Then `delv`, a validator, checks a positive
answer, an NXDOMAIN and a NODATA from the appliance against the zone's key,
and from the bootable image in QEMU.
"""
import os
import random
import shutil

import dns.flags
import dns.message
import dns.rdatatype
import pytest

import appliance
import compare
import differences
import differential
import queries
import refservers
import signer
import zonegen

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP"),
    pytest.mark.skipif(not all(shutil.which(t) for t in ("nsd", "knotd", "ldns-signzone", "delv")),
                       reason="needs nsd, knot, ldnsutils and bind9-dnsutils"),
]

SMALL = "signed.test"
TYPES = ["A", "AAAA", "TXT", "MX", "NS", "SOA", "DS", "DNSKEY", "NSEC", "NSEC3", "NSEC3PARAM", "RRSIG",
         "CNAME", "ANY", "SRV"]


def small_zone():
    with open(os.path.join(HERE, "zones", "signed", "unsigned.zone")) as f:
        return "".join(line for line in f if not line.startswith("$ORIGIN"))


def with_dnssec_ok(wire, rng):
    """The query with an OPT that sets DO, at a UDP size from 512 up; None if unreadable."""
    try:
        m = dns.message.from_wire(wire)
    except Exception:
        return None
    if m.edns >= 0 and m.edns != 0:
        return None  # BADVERS is not what this test is about
    m.use_edns(0, dns.flags.DO, rng.choice([512, 1232, 1232, 4096]))
    return m.to_wire()


def signed_queries(zone_names, owners, rng):
    out = []
    for fqdn in zone_names:
        for qtype in TYPES:
            size = rng.choice([512, 1232, 4096])
            out.append((f"{fqdn} {qtype} {size}", queries.query(fqdn, dns.rdatatype.from_text(qtype), edns=size,
                                                                   do=True, rng=rng)))
    # NSEC3 owners are names of no zone (RFC 5155 §7.2.8 as NSD answers).
    for owner in owners:
        for qtype in ("A", "NSEC3", "RRSIG"):
            out.append((f"hashed {owner} {qtype}", queries.query(owner, dns.rdatatype.from_text(qtype), edns=1232,
                                                                  do=True, rng=rng)))
    return out


def unordered(summary):
    if summary is not None and "answer" in summary:
        summary = dict(summary, answer=sorted(summary["answer"]), answer_owners=sorted(summary["answer_owners"]))
    return summary


def delv(ns, work, zone, anchor, name, rdtype):
    anchors = os.path.join(work, f"{zone}.anchor")
    with open(anchors, "w") as f:
        f.write(f'trust-anchors {{ {zone}. static-key {anchor.split()[0]} {anchor.split()[1]} '
                f'{anchor.split()[2]} "{anchor.split()[3]}"; }};\n')
    out = appliance.run(ns.exec_args(["delv", f"@{appliance.guest_ip(0)}", "-a", anchors, f"+root={zone}",
                                      name, rdtype]), timeout=60, check=False)
    return out.stdout + out.stderr


@pytest.mark.parametrize("denial", ["nsec", "nsec3", "nsec3-opt-out"])
def test_signed_zones_like_nsd_and_validated(denial, tmp_path):
    work = str(tmp_path)
    gen_text, names, cuts, dnames = zonegen.generated_zone(seed=11)
    sign = signer.sign_nsec if denial == "nsec" else \
        (lambda origin, text, folder: signer.sign_nsec3(origin, text, folder, iterations=1, salt_length=4,
                                                        opt_out=denial == "nsec3-opt-out"))
    signed, anchors = {}, {}
    for origin, text in (("gen.test", gen_text), (SMALL, small_zone())):
        signed[origin], anchors[origin] = sign(origin, text, os.path.join(work, "sign-" + origin))
    zones_dir = os.path.join(work, "zones")
    zones = zonegen.write_zone_set(zones_dir, signed)

    rng = random.Random(19)
    asked = []
    for label, wire in queries.generated_queries(names, cuts, dnames, seed=11):
        wire = with_dnssec_ok(wire, rng)
        if wire is not None:
            asked.append((label, wire))
    small_names = [f"{n}.{SMALL}." for n in ("www", "alias", "mail", "ns1", "x.wild", "y.z.wild", "wild", "c",
                                             "b.c", "a.b.c", "sub", "ns.sub", "x.sub", "secure", "x.secure",
                                             "nope", "zzz")] + [f"{SMALL}."]
    owners = sorted({line.split()[0] for text in signed.values() for line in text.splitlines()
                     if " NSEC3 " in line.replace("\t", " ") and not line.startswith(";")})[:40]
    asked += signed_queries(small_names + [f"{n}.gen.test." for n in names[:60]], owners, rng)

    program = appliance.build(zones_dir, "linux")
    ns = appliance.Namespace(taps=2, prefix="dnssec")
    started = []
    try:
        started.append(refservers.Reference("nsd", work, zones_dir, zones, "127.0.0.1", 5301, ns.exec_args))
        started.append(appliance.Appliance(ns, program=program, tap=0))
        started.append(appliance.Appliance(ns, program=program, tap=1, append="dns_prerender=0"))
        servers = {"keel": f"{appliance.guest_ip(0)}:53", "keel-unrendered": f"{appliance.guest_ip(1)}:53",
                   "nsd": "127.0.0.1:5301"}
        results = differential.probe(ns, work, zones, asked, servers)
        validated = {}
        for zone, name, rdtype in ((SMALL, f"www.{SMALL}", "A"), (SMALL, f"nope.{SMALL}", "A"),
                                   (SMALL, f"www.{SMALL}", "TXT"), (SMALL, f"x.wild.{SMALL}", "TXT"),
                                   (SMALL, f"secure.{SMALL}", "DS"), ("gen.test", "gen.test", "SOA"),
                                   ("gen.test", "nx-nothing.gen.test", "A")):
            validated[(name, rdtype)] = delv(ns, work, zone, anchors[zone], name, rdtype)
    finally:
        for thing in reversed(started):
            thing.close()
        ns.close()

    assert results["keel"] == results["keel-unrendered"], "pre-rendered answers differ from computed ones"
    def signed(hex_wire):
        s = compare.summarize(hex_wire)
        return s and any(rrset[2] == dns.rdatatype.RRSIG for rrset in s.get("answer", []) + s.get("authority", []))
    signatures = sum(1 for r in results["keel"] if signed(r))
    assert signatures > len(asked) // 2, f"only {signatures} of {len(asked)} answers carry signatures"
    failures, named = [], {}
    origins = [z + "." for z in zones]
    for i, (label, wire) in enumerate(asked):
        k, r = unordered(compare.summarize(results["keel"][i])), unordered(compare.summarize(results["nsd"][i]))
        if not compare.differing_fields(k, r):
            named["same"] = named.get("same", 0) + 1
            continue
        name = differences.classify(differences.NSD, wire, k, r, origins)
        if name is None:
            failures.append(compare.describe(label, wire.hex(), k, r, "nsd"))
        else:
            named[name] = named.get(name, 0) + 1
    print(f"\n{denial}: {len(asked)} queries against NSD: " + ", ".join(f"{k} {v}" for k, v in sorted(named.items())))
    with open(os.path.join(work, "differences.txt"), "w") as f:
        f.write("\n".join(failures))
    assert not failures, f"{len(failures)} unexplained differences (all in {work}/differences.txt):\n" + \
        "\n".join(failures[:20])

    for (name, rdtype), out in validated.items():
        if denial == "nsec3-opt-out" and name in (f"x.wild.{SMALL}", "nx-nothing.gen.test"):  # wildcards
            # RFC 5155 §8.8: the next closer's cover has opt-out set, so a wildcard
            # answer is insecure (an unsigned delegation could hide there): NSD's the same.
            assert "; unsigned answer" in out, f"delv {name} {rdtype}:\n{out}"
            continue
        assert "fully validated" in out, f"delv {name} {rdtype}:\n{out}"
    assert "negative response, fully validated" in validated[(f"nope.{SMALL}", "A")]
    assert "NXDOMAIN" in validated[(f"nope.{SMALL}", "A")]
    assert "NXRRSET" in validated[(f"www.{SMALL}", "TXT")]


@pytest.mark.skipif(not os.path.exists("/usr/bin/qemu-system-x86_64"), reason="needs qemu-system-x86")
def test_image_in_qemu_validated(tmp_path):
    """The bootable image (microvm, TCG) with an NSEC3 zone and an NSEC zone:
    `delv` validates a positive answer, an NXDOMAIN and a NODATA from each."""
    work = str(tmp_path)
    text = small_zone()
    signed, anchors = {}, {}
    signed[SMALL], anchors[SMALL] = signer.sign_nsec3(SMALL, text, os.path.join(work, "sign3"), iterations=0)
    other = "nsec.test"
    signed[other], anchors[other] = signer.sign_nsec(other, text.replace(SMALL, other),
                                                     os.path.join(work, "sign1"))
    zones_dir = os.path.join(work, "zones")
    zonegen.write_zone_set(zones_dir, signed)
    image = appliance.build(zones_dir, "kvm")
    ns = appliance.Namespace(taps=1, prefix="dnssec")
    server = None
    try:
        server = appliance.Appliance(ns, image=image)
        outputs = {(zone, name, rdtype): delv(ns, work, zone, anchors[zone], f"{name}.{zone}", rdtype)
                   for zone in (SMALL, other)
                   for name, rdtype in (("www", "A"), ("nope", "A"), ("www", "TXT"), ("x.wild", "TXT"))}
    finally:
        if server:
            server.close()
        ns.close()
    for key, out in outputs.items():
        assert "fully validated" in out, f"delv {key}:\n{out}"
    for zone in (SMALL, other):
        assert "NXDOMAIN" in outputs[(zone, "nope", "A")]
        assert "NXRRSET" in outputs[(zone, "www", "TXT")]


@pytest.mark.skipif(not os.path.exists("/usr/bin/qemu-system-x86_64"), reason="needs qemu-system-x86")
def test_hundred_thousand_signed_records_in_64_mib(tmp_path):
    """Issue 19's goal: a 100,000-record signed zone (25,000 A records signed
    by Knot with NSEC3: each name's RRSIG and NSEC3 with its RRSIG) served by
    the image in 64 MiB, and validated."""
    work = str(tmp_path)
    text = "".join(line + "\n" for line in zonegen.a_records_zone(25000, origin="big.test").splitlines()
                   if not line.startswith("$ORIGIN"))
    signed, anchor = signer.sign_nsec3("big.test", text, os.path.join(work, "sign"), timeout=600)
    records = sum(1 for line in signed.splitlines() if line.strip() and not line.startswith((";", "$")))
    assert records >= 100000, records
    zones_dir = os.path.join(work, "zones")
    zonegen.write_zone_set(zones_dir, {"big.test": signed})
    image = appliance.build(zones_dir, "kvm")
    ns = appliance.Namespace(taps=1, prefix="dnssec")
    server = None
    try:
        server = appliance.Appliance(ns, image=image, memory=os.environ.get("KEEL_DNSSEC_MEMORY", "64M"), timeout=600)
        loaded = server.output()
        positive = delv(ns, work, "big.test", anchor, "host12345.big.test", "A")
        negative = delv(ns, work, "big.test", anchor, "nope.big.test", "A")
    finally:
        if server:
            server.close()
        ns.close()
    print("\n" + "\n".join(line for line in loaded.splitlines() if "dns:" in line))
    assert "fully validated" in positive, positive
    assert "NXDOMAIN" in negative and "fully validated" in negative, negative
