"""The peers of test_secondary.py: NSD and Knot as primaries of the appliance (their
configurations, with NOTIFY and transfers for the appliance's address), the zones they serve,
and the test's own clients (NOTIFY from a chosen address, dig, the appliance's counters)."""
import base64
import json
import os
import re
import signal
import subprocess
import tempfile
import time

import appliance
import refservers

PRIMARY = appliance.host_ip()  # NSD and Knot listen here, beside the TAP
STRANGER = "10.53.0.3"         # a second host-side address: not the primary
NSD_PORT, KNOT_PORT = 5300, 5302
NSD_SECONDARY_PORT = 5304  # NSD as a secondary too, to compare NOTIFY answers with
SECRET = base64.b64encode(b"keel-secondary-test-secret-32byt").decode()
WRONG = base64.b64encode(b"another-secret-that-nsd-does-not").decode()
KEY = ("hmac-sha256", "xfr-key", SECRET)
# NSD's other-key has SECRET; Keel's has WRONG: NSD answers Keel's queries NOTAUTH/BADSIG.
OTHER = ("hmac-sha256", "other-key", SECRET)


def zone_text(serial, www="192.0.2.10", extra="", expire=1209600, refresh=3600):
    return (f"$TTL 300\n@ SOA ns1 hostmaster {serial} {refresh} 2 {expire} 300\n@ NS ns1\n"
            f"ns1 A {PRIMARY}\nwww A {www}\n@ MX 10 mail\nmail A 192.0.2.25\n"
            f'txt TXT "serial {serial}"\n{extra}')


# NSD: plain zones (NOTIFY to Keel, transfers to anyone), a signed one, one signed with a
# secret Keel does not have, and one that expires 6 s after the primary goes quiet.
NSD_ZONES = {"sec.test": None, "signed.test": KEY, "wrongkey.test": OTHER, "expire.test": None}
KNOT_ZONE = "knot.test"

CLIENT = r"""
import json, socket, struct, sys
import dns.message, dns.opcode, dns.rcode, dns.tsig, dns.tsigkeyring
address, zone, source = sys.argv[1:4]
address, _, port = address.partition("#")  # "10.53.0.2" or "10.53.0.1#5304"
q = dns.message.make_query(zone, "SOA")
q.set_opcode(dns.opcode.NOTIFY)
q.flags = (q.flags | 0x400) & ~0x100  # AA as primaries send it, no RD
keyring = None
if len(sys.argv) > 4:
    keyring = dns.tsigkeyring.from_text({sys.argv[4]: sys.argv[5]})
    q.use_tsig(keyring, keyname=sys.argv[4], algorithm=dns.tsig.HMAC_SHA256)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((source, 0))
s.settimeout(10)
s.sendto(q.to_wire(), (address, int(port or 53)))
data = s.recv(65535)
flags, qdcount, arcount = struct.unpack("!H", data[2:4])[0], data[5], data[11]
out = {"rcode": dns.rcode.to_text(flags & 0xf), "opcode": dns.opcode.to_text((flags >> 11) & 0xf),
       "aa": bool(flags & 0x400), "questions": qdcount, "tsig_error": None}
if keyring and arcount:
    out["tsig_error"] = struct.unpack("!H", data[-4:-2])[0]  # (Other Data empty)
    if out["tsig_error"] == 0:  # signed with our key: dnspython checks the MAC
        dns.message.from_wire(data, keyring=keyring, request_mac=q.mac)
        out["verified"] = True
print(json.dumps(out))
"""


# Asks `name` A over UDP every 5 ms for `seconds`; counts the answers by their address.
ASKER = r"""
import collections, json, sys, time
import dns.message, dns.query, dns.exception
address, name, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
seen = collections.Counter()
end = time.monotonic() + seconds
while time.monotonic() < end:
    try:
        r = dns.query.udp(dns.message.make_query(name, "A"), address, timeout=2)
        seen[",".join(sorted(str(x) for rrset in r.answer for x in rrset)) or dns.rcode.to_text(r.rcode())] += 1
    except dns.exception.Timeout:
        seen["timeout"] += 1
    time.sleep(0.005)
print(json.dumps(seen))
"""


def start_asker(ns, address, name, seconds):
    """ASKER in the background: (process, script path); its stdout is the JSON of counts."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="keel-dns-secondary-", delete=False) as f:
        f.write(ASKER)
    return subprocess.Popen(ns.exec_args(["/usr/bin/python3", f.name, address, name, str(seconds)]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), f.name


def client(ns, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="keel-dns-secondary-", delete=False) as f:
        f.write(CLIENT)
    try:
        r = appliance.run(ns.exec_args(["/usr/bin/python3", f.name, *args]), timeout=60, check=False)
    finally:
        os.unlink(f.name)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def counter(keel, name):
    """The last counters line's `secondary ... NAME N`."""
    found = re.findall(rf"\| secondary checks .*?\b{name} (\d+)", keel.output())
    return int(found[-1]) if found else 0


def dig(ns, address, name, rtype="A", port=53, extra=""):
    out = appliance.run(ns.exec_args(["sh", "-c", f"dig +norec +time=2 +tries=2 -p {port} @{address} "
                                                  f"{name} {rtype} {extra}"]), check=False).stdout
    status = re.search(r"status: (\w+)", out)
    answers = sorted(line.split(None, 4)[4] for line in out.split(";; ANSWER SECTION:")[-1].split("\n\n")[0]
                     .splitlines()[1:] if line and not line.startswith(";")) if "ANSWER SECTION" in out else []
    return (status.group(1) if status else "no answer"), answers


def nsd_conf(work, zones_dir, zones):
    text = refservers.NSD_CONF.format(address=PRIMARY, port=NSD_PORT, zones=zones_dir, work=work)
    for key in (KEY, OTHER):
        text += f'key:\n  name: {key[1]}\n  algorithm: {key[0]}\n  secret: "{key[2]}"\n'
    for zone, key in zones.items():
        keyname = key[1] if key else "NOKEY"
        text += (f"zone:\n  name: {zone}\n  zonefile: {zone}.zone\n"
                 f"  provide-xfr: {appliance.guest_ip()} {keyname}\n"
                 f"  notify: {appliance.guest_ip()} {keyname}\n")
    return text


def nsd_secondary_conf(work):
    """NSD as a secondary of the same zones Keel takes, from the same primary, with NOTIFY
    allowed from it: the reference for Keel's NOTIFY answers."""
    text = refservers.NSD_CONF.format(address=PRIMARY, port=NSD_SECONDARY_PORT, zones=work, work=work)
    text += f'key:\n  name: {KEY[1]}\n  algorithm: {KEY[0]}\n  secret: "{KEY[2]}"\n'
    for zone, key in (("sec.test", None), ("signed.test", KEY)):
        keyname = key[1] if key else "NOKEY"
        text += (f"zone:\n  name: {zone}\n  zonefile: {zone}.zone\n"
                 f"  request-xfr: {PRIMARY}@{NSD_PORT} {keyname}\n  allow-notify: {PRIMARY} {keyname}\n")
    return text


KNOT_CONF = """server:
  listen: {address}@{port}
  rundir: {work}
  user: root
log:
  - target: {work}/knot.log
    any: info
database:
  storage: {work}/knotdb
remote:
  - id: keel
    address: {keel}@53
acl:
  - id: keel-xfr
    address: {keel}
    action: transfer
zone:
  - domain: {zone}
    storage: {zones}
    file: {zone}.zone
    notify: keel
    acl: keel-xfr
    zonefile-load: difference
    journal-content: changes
    semantic-checks: off
"""


class Primary(refservers.Reference):
    """NSD or Knot as a primary (notify and provide-xfr for Keel), started in the namespace on
    the zone folder; log() and close() are Reference's."""

    def __init__(self, ns, kind, work, zones_dir, zones=NSD_ZONES):
        self.kind, self.work = kind, os.path.join(work, kind)
        os.makedirs(self.work, exist_ok=True)
        conf = os.path.join(self.work, f"{kind}.conf")
        with open(conf, "w") as f:
            if kind == "nsd":
                f.write(nsd_conf(self.work, zones_dir, zones))
                args = ["nsd", "-d", "-c", conf]
            else:
                os.makedirs(os.path.join(self.work, "knotdb"), exist_ok=True)
                f.write(KNOT_CONF.format(address=PRIMARY, port=KNOT_PORT, work=self.work, zones=zones_dir,
                                         keel=appliance.guest_ip(), zone=KNOT_ZONE))
                args = ["knotd", "-c", conf]
        self.conf = conf
        self.ns = ns
        self.output = open(os.path.join(self.work, "output.log"), "w+")
        self.process = subprocess.Popen(ns.exec_args(args), stdout=self.output, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        port = NSD_PORT if kind == "nsd" else KNOT_PORT
        zone = next(iter(zones)) if kind == "nsd" else KNOT_ZONE
        for _ in range(100):
            if dig(ns, PRIMARY, zone, "SOA", port=port)[0] == "NOERROR":
                return
            time.sleep(0.1)
        raise AssertionError(f"{kind} did not start:\n{self.log()}")

    def reload(self):
        if self.kind == "nsd":
            os.killpg(self.process.pid, signal.SIGHUP)  # NSD 4: reread changed zone files, NOTIFY
        else:
            out = self.ns.sh(f"knotc -c {self.conf} zone-reload {KNOT_ZONE}")
            assert "OK" in out.stdout, out.stdout + out.stderr


def write_zone(zones_dir, zone, text):
    with open(os.path.join(zones_dir, f"{zone}.zone"), "w") as f:
        f.write(text)



def wait_serial(keel, zone, serial, timeout=30):
    keel.wait_for(rf"dns: secondary {re.escape(zone)}\.: serial {serial} ", timeout=timeout)
