"""The appliance as a secondary (dns_secondary=): NSD 4.6 and Knot 3 as primaries in a
network namespace this test creates, beside the appliance's Linux build on a TAP device
(run as root; nsd, knot, bind9-dnsutils, python3-dnspython):

    /usr/bin/python3 -m pytest -v test/dns/test_secondary.py

Keel starts with no copy of the zones, transfers them (AXFR from NSD, which keeps no IXFR
history, so its answer to IXFR is the whole zone; IXFR with deltas from Knot's journal) and
answers dig with the primary's data. A zone changed on the primary reaches Keel by the
primary's own NOTIFY (NSD on SIGHUP, Knot on zone-reload), or by one the test sends from the
primary's address. NOTIFY from another address is REFUSED; one signed with a key Keel does
not hold NOTAUTH with a BADKEY TSIG (as NSD answers); a zone whose transfers are signed with
the right key loads, one with the wrong secret does not and answers SERVFAIL, as does a zone
whose primary stopped answering past the SOA's expire time.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

import appliance
from secondary_peers import (KEY, KNOT_PORT, KNOT_ZONE, NSD_PORT, NSD_SECONDARY_PORT, NSD_ZONES, OTHER,
                             PRIMARY, SECRET, STRANGER, WRONG, Primary, client, counter, dig,
                             nsd_secondary_conf, start_asker, wait_serial, write_zone, zone_text)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP"),
    pytest.mark.skipif(shutil.which("dig") is None, reason="needs dig (bind9-dnsutils)"),
    pytest.mark.skipif(shutil.which("nsd") is None, reason="needs nsd"),
]

BUILT = {}  # the Linux build the fixture made
# signed.test is ~50 KB: NSD's signed AXFR comes in several messages, each MAC chained.
SIGNED_EXTRA = "".join(f't{i} TXT "{"y" * 180}"\n' for i in range(250))


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    work = str(tmp_path_factory.mktemp("dns-secondary"))
    compiled = os.path.join(work, "compiled")  # the image's own zone: Keel is primary for it
    os.makedirs(compiled)
    write_zone(compiled, "own.test", zone_text(1))
    program = appliance.build(compiled, "linux", secondary=True)
    BUILT["program"] = program
    zones_dir = os.path.join(work, "zones")
    os.makedirs(zones_dir)
    for zone in NSD_ZONES:
        write_zone(zones_dir, zone, zone_text(1, expire=6 if zone == "expire.test" else 1209600,
                                              refresh=1 if zone == "expire.test" else 3600,
                                              extra=SIGNED_EXTRA if zone == "signed.test" else ""))
    write_zone(zones_dir, KNOT_ZONE, zone_text(1))
    ns = appliance.Namespace(prefix="keel-dns-secondary")
    started = []
    try:
        ns.sh(f"ip addr add {STRANGER}/24 dev tap0")
        nsd = Primary(ns, "nsd", work, zones_dir)
        started.append(nsd)
        knot = None
        if shutil.which("knotd"):
            knot = Primary(ns, "knot", work, zones_dir)
            started.append(knot)
        secondaries = [f"sec.test:{PRIMARY}#{NSD_PORT}", f"signed.test:{PRIMARY}#{NSD_PORT}@{KEY[1]}",
                       f"wrongkey.test:{PRIMARY}#{NSD_PORT}@{OTHER[1]}", f"expire.test:{PRIMARY}#{NSD_PORT}"]
        if knot:
            secondaries.append(f"{KNOT_ZONE}:{PRIMARY}#{KNOT_PORT}")
        keys = f"{KEY[0]}:{KEY[1]}:{KEY[2]},{OTHER[0]}:{OTHER[1]}:{WRONG}"
        keel = appliance.Appliance(ns, program=program,
                                   append=f"dns_secondary={','.join(secondaries)} dns_key={keys} dns_stats=1 "
                                          "dns_xfr_in_max=65535")
        started.append(keel)
        yield ns, keel, nsd, knot, zones_dir
    finally:
        for thing in reversed(started):
            thing.close()
        ns.close()



def test_zones_come_from_the_primary(setup):
    ns, keel, nsd, _, _ = setup
    for zone in ("sec.test", "signed.test", "expire.test"):
        wait_serial(keel, zone, 1)
        for name, rtype in ((zone, "SOA"), (f"www.{zone}", "A"), (zone, "MX"), (f"txt.{zone}", "TXT"),
                            (f"nx.{zone}", "A")):
            assert dig(ns, keel.address, name, rtype) == dig(ns, PRIMARY, name, rtype, port=NSD_PORT), name
    # NSD keeps no IXFR history: the first copy came by AXFR (there was none to apply deltas to).
    assert re.search(r"secondary sec\.test\.: serial 1 from 10\.53\.0\.1#5300 \(AXFR", keel.output())
    # The image's own zone is served as before.
    assert dig(ns, keel.address, "www.own.test") == ("NOERROR", ["192.0.2.10"])


def test_nsd_notify_brings_the_new_serial(setup):
    ns, keel, nsd, _, zones_dir = setup
    wait_serial(keel, "sec.test", 1)
    write_zone(zones_dir, "sec.test", zone_text(2, www="192.0.2.20", extra="new A 192.0.2.21\n"))
    nsd.reload()  # NSD notifies Keel, which asks for the SOA and transfers
    wait_serial(keel, "sec.test", 2)
    assert dig(ns, keel.address, "www.sec.test") == ("NOERROR", ["192.0.2.20"])
    assert dig(ns, keel.address, "new.sec.test") == ("NOERROR", ["192.0.2.21"])
    assert dig(ns, keel.address, "txt.sec.test", "TXT") == ("NOERROR", ['"serial 2"'])
    # NSD answers Keel's IXFR with the whole zone (RFC 1995 §4): read as such.
    assert re.search(r"sec\.test\.: serial 2 .*\((IXFR|AXFR)", keel.output())


def test_a_notify_from_the_primary_address(setup):
    ns, keel, nsd, _, zones_dir = setup
    wait_serial(keel, "sec.test", 2)
    # The zone file changes but NSD is not told: our own NOTIFY from its address moves Keel,
    # which still finds NSD's old serial (2): nothing to transfer.
    time.sleep(1.5)  # a counters line after the last check
    before = counter(keel, "current")
    r = client(ns, keel.address, "sec.test", PRIMARY)
    assert r == {"rcode": "NOERROR", "opcode": "NOTIFY", "aa": True, "questions": 1, "tsig_error": None}
    deadline = time.monotonic() + 10
    while counter(keel, "current") <= before:
        assert time.monotonic() < deadline, keel.output()[-2000:]
        time.sleep(0.2)


def test_a_zone_over_the_bound_keeps_the_old_copy(setup):
    ns, keel, nsd, _, zones_dir = setup
    wait_serial(keel, "sec.test", 2)
    # Serial 3 is ~100 KB on the wire, over dns_xfr_in_max=65535: refused, counted, serial 2 kept.
    many = "".join(f'big{i} TXT "{"x" * 200}"\n' for i in range(500))
    write_zone(zones_dir, "sec.test", zone_text(3, www="192.0.2.30", extra=many))
    nsd.reload()
    keel.wait_for(r"secondary sec\.test\.: (IXFR|AXFR) failed: the transfer is over 65535 octets", timeout=30)
    keel.wait_for(r"too-big [1-9]", timeout=10)
    assert dig(ns, keel.address, "www.sec.test") == ("NOERROR", ["192.0.2.20"])
    assert dig(ns, keel.address, "big1.sec.test", "TXT")[0] == "NXDOMAIN"
    assert "sec.test.: serial 3" not in keel.output()


def test_notify_from_elsewhere_is_refused(setup):
    ns, keel, _, _, _ = setup
    r = client(ns, keel.address, "sec.test", STRANGER)
    # NSD's query_error: the header alone, the query's flags (AA here) kept.
    assert r == {"rcode": "REFUSED", "opcode": "NOTIFY", "aa": True, "questions": 0, "tsig_error": None}
    # A zone Keel is no secondary for: as before (the image's own zone REFUSED, others NXDOMAIN).
    assert client(ns, keel.address, "own.test", PRIMARY)["rcode"] == "REFUSED"
    assert client(ns, keel.address, "nowhere.test", PRIMARY)["rcode"] == "NXDOMAIN"
    keel.wait_for(r"notify-refused [1-9]", timeout=10)


def test_notify_with_an_unknown_key_is_notauth_badkey(setup):
    ns, keel, _, _, _ = setup
    r = client(ns, keel.address, "signed.test", PRIMARY, "unknown-key", SECRET)
    assert r["rcode"] == "NOTAUTH" and r["tsig_error"] == 17, r  # BADKEY, with a TSIG (as NSD)
    r = client(ns, keel.address, "signed.test", PRIMARY, KEY[1], SECRET)
    assert r["rcode"] == "NOERROR" and r["aa"] and r.get("verified"), r  # signed back
    # Unsigned, for a zone whose primary uses a key: REFUSED.
    assert client(ns, keel.address, "signed.test", PRIMARY)["rcode"] == "REFUSED"


def header_of(ns, address, name, port=53):
    """dig's status, flags and EDNS lines for `name` A (the flags line without its counts)."""
    out = appliance.run(ns.exec_args(["dig", "+norec", "+time=2", "-p", str(port), f"@{address}", name]),
                        check=False).stdout
    return [re.sub(r", id: \d+", "", line).strip()
            for line in out.splitlines() if line.startswith((";; ->>HEADER", ";; flags", "; EDNS", "; EDE"))]


def test_notify_answers_are_nsds(setup, tmp_path):
    """The same NOTIFY messages to Keel and to NSD 4.6 configured as a secondary of the same
    zones with the same allow-notify: the same RCODE, flags, question count and TSIG error."""
    ns, keel, _, _, _ = setup
    work = str(tmp_path / "nsd-secondary")
    os.makedirs(work)
    conf = os.path.join(work, "nsd.conf")
    with open(conf, "w") as f:
        f.write(nsd_secondary_conf(work))
    with open(os.path.join(work, "output.log"), "w") as log:
        nsd = subprocess.Popen(ns.exec_args(["nsd", "-d", "-c", conf]), stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        reference = f"{PRIMARY}#{NSD_SECONDARY_PORT}"
        deadline = time.monotonic() + 20  # until NSD answers (NOTIFY needs the zone set up, not its data)
        while dig(ns, PRIMARY, "signed.test", "SOA", port=NSD_SECONDARY_PORT)[0] == "no answer":
            assert time.monotonic() < deadline and nsd.poll() is None, open(os.path.join(work, "nsd.log")).read()
            time.sleep(0.2)
        cases = [("sec.test", PRIMARY), ("sec.test", STRANGER), ("signed.test", PRIMARY),
                 ("signed.test", PRIMARY, "unknown-key", SECRET), ("signed.test", PRIMARY, KEY[1], SECRET),
                 ("signed.test", STRANGER, KEY[1], SECRET), ("nowhere.test", PRIMARY)]
        for zone, source, *key in cases:
            ours = client(ns, keel.address, zone, source, *key)
            theirs = client(ns, reference, zone, source, *key)
            assert ours == theirs, (zone, source, key, ours, theirs)
        # A zone without a copy: Keel's wrongkey.test, NSD's signed.test (its transfers refused):
        # SERVFAIL, EDE 14 "Zone is configured but not loaded".
        ours = header_of(ns, keel.address, "www.wrongkey.test")
        theirs = header_of(ns, PRIMARY, "www.signed.test", port=NSD_SECONDARY_PORT)
        assert ours == theirs and "Not Ready" in ours[-1], (ours, theirs)
    finally:
        os.killpg(nsd.pid, signal.SIGTERM)
        nsd.wait(timeout=10)


def test_signed_transfers_and_a_wrong_secret(setup):
    ns, keel, _, _, _ = setup
    wait_serial(keel, "signed.test", 1)
    assert re.search(r"signed\.test\.: serial 1 .* in [2-9]\d* messages\)", keel.output())
    assert dig(ns, keel.address, "www.signed.test") == ("NOERROR", ["192.0.2.10"])
    assert dig(ns, keel.address, "t249.signed.test", "TXT") == dig(ns, PRIMARY, "t249.signed.test", "TXT",
                                                                   port=NSD_PORT)
    # Keel's other-key has another secret than NSD's: NOTAUTH (BADSIG), no copy, SERVFAIL.
    keel.wait_for(r"secondary wrongkey\.test\.: check failed: TSIG: the primary's TSIG error 16, RCODE 9", timeout=30)
    assert dig(ns, keel.address, "www.wrongkey.test")[0] == "SERVFAIL"
    assert "wrongkey.test.: serial" not in keel.output()


def test_knot_as_primary_with_ixfr(setup):
    ns, keel, _, knot, zones_dir = setup
    if knot is None:
        pytest.skip("needs knotd (knot)")
    wait_serial(keel, KNOT_ZONE, 1)
    assert dig(ns, keel.address, f"www.{KNOT_ZONE}") == dig(ns, PRIMARY, f"www.{KNOT_ZONE}", port=KNOT_PORT)
    write_zone(zones_dir, KNOT_ZONE, zone_text(2, www="192.0.2.30", extra="added A 192.0.2.31\n"))
    knot.reload()  # Knot stores the difference in its journal and notifies
    wait_serial(keel, KNOT_ZONE, 2)
    assert re.search(rf"{re.escape(KNOT_ZONE)}\.: serial 2 .*\(IXFR", keel.output()), keel.output()[-2000:]
    assert dig(ns, keel.address, f"www.{KNOT_ZONE}") == ("NOERROR", ["192.0.2.30"])
    assert dig(ns, keel.address, f"added.{KNOT_ZONE}") == ("NOERROR", ["192.0.2.31"])
    assert dig(ns, keel.address, f"txt.{KNOT_ZONE}", "TXT") == ("NOERROR", ['"serial 2"'])


def test_bad_settings_stop_the_boot_with_a_clear_error(setup):
    ns = appliance.Namespace(prefix="keel-dns-secondary")
    cases = {"dns_secondary=sec.test": r"dns_secondary: 'sec.test' is not ZONE:ADDRESS\[#PORT\]\[@KEY\]",
             "dns_secondary=sec.test:10.53.0.1#99999": r"dns_secondary: '99999' is not a port",
             "dns_secondary=sec.test:10.53.0.1@nokey": r"dns_secondary: key 'nokey\.' is not in dns_key=",
             "dns_secondary=a.test:10.53.0.1,A.test.:10.53.0.9": r"dns_secondary: zone 'a\.test\.' is named twice",
             "dns_xfr_in_max=1000": r"dns_xfr_in_max: '1000' is less than one message \(65535\)"}
    try:
        for append, error in cases.items():
            with pytest.raises(AssertionError, match=error):
                appliance.Appliance(ns, program=BUILT["program"], append=append, timeout=10)
    finally:
        ns.close()


def test_a_zone_expires_when_the_primary_is_gone(setup):
    """Last: stops NSD. expire.test has REFRESH 1 s and EXPIRE 6 s."""
    ns, keel, nsd, _, _ = setup
    wait_serial(keel, "expire.test", 1)
    assert dig(ns, keel.address, "www.expire.test") == ("NOERROR", ["192.0.2.10"])
    nsd.close()
    deadline = time.monotonic() + 30
    while dig(ns, keel.address, "www.expire.test")[0] != "SERVFAIL":
        assert time.monotonic() < deadline, keel.output()[-3000:]
        time.sleep(0.5)
    # NSD's answer for an expired zone: EDE 24 (Invalid Data), "Zone has expired".
    assert header_of(ns, keel.address, "www.expire.test")[-1] == "; EDE: 24 (Invalid Data): (Zone has expired)"
    # Zones that are not expired still answer from their copy.
    assert dig(ns, keel.address, "www.sec.test") == ("NOERROR", ["192.0.2.20"])
    keel.wait_for(r"servfail [1-9]", timeout=10)


@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="needs QEMU")
def test_the_image_is_a_secondary_too(tmp_path):
    """The image under QEMU (TCG) on the stack's own TCP client: a zone of several messages
    (3,000 A records, ~75 KB), then a new serial after NSD's NOTIFY, while a client asks every
    5 ms: each query is answered, from the old copy or the new, none lost or failed."""
    work = str(tmp_path)
    compiled, zones_dir = os.path.join(work, "compiled"), os.path.join(work, "zones")
    os.makedirs(compiled)
    os.makedirs(zones_dir)
    write_zone(compiled, "own.test", zone_text(1))
    image = appliance.build(compiled, "kvm", secondary=True)
    many = "".join(f"h{i} A 10.{i // 250}.{i % 250}.1\n" for i in range(3000))
    write_zone(zones_dir, "big.test", zone_text(1, extra=many))
    ns = appliance.Namespace(prefix="keel-dns-secondary")
    started = []
    try:
        started.append(Primary(ns, "nsd", work, zones_dir, zones={"big.test": None}))
        keel = appliance.Appliance(ns, image=image, append=f"dns_secondary=big.test:{PRIMARY}#{NSD_PORT}")
        started.append(keel)
        wait_serial(keel, "big.test", 1, timeout=60)
        assert dig(ns, keel.address, "h2999.big.test") == ("NOERROR", ["10.11.249.1"])
        write_zone(zones_dir, "big.test", zone_text(2, www="192.0.2.99", extra=many))
        asker, script = start_asker(ns, keel.address, "www.big.test", 8)
        try:
            time.sleep(1)
            started[0].reload()
            wait_serial(keel, "big.test", 2, timeout=60)
            out, err = asker.communicate(timeout=60)
        finally:
            os.unlink(script)
        seen = json.loads(out or "{}")
        print(f"answers during the transfer and swap: {seen}")
        assert set(seen) == {"192.0.2.10", "192.0.2.99"}, (seen, err[-2000:])
        assert dig(ns, keel.address, "www.big.test") == ("NOERROR", ["192.0.2.99"])
        assert dig(ns, keel.address, "h0.big.test") == ("NOERROR", ["10.0.0.1"])
    finally:
        for thing in reversed(started):
            thing.close()
        ns.close()
