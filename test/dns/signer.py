"""Signs test zones with Debian's DNSSEC tools, as an operator would before
compiling them into the appliance (Keel serves what the signer wrote,
docs/decisions/0145): NSEC with ldns-signzone (ldnsutils), NSEC3 with Knot
(knotd signs automatically and writes the signed zone back). Each returns
the signed zone text and the trust anchor (the KSK's DNSKEY RDATA).

ldns-signzone 1.8.3 is not used for NSEC3: its output leaves most of the
NSEC3 chain out (the records of names that hold data), which
ldns-verify-zone still calls complete."""
import os
import re
import subprocess
import time

KNOT_CONF = """server:
    rundir: {work}
    user: root:root
database:
    storage: {work}/db
policy:
  - id: nsec3
    algorithm: ecdsap256sha256
    nsec3: on
    nsec3-iterations: {iterations}
    nsec3-salt-length: {salt_length}
    nsec3-opt-out: {opt_out}
zone:
  - domain: {origin}
    storage: {work}/zones
    file: {origin}.zone
    dnssec-signing: on
    dnssec-policy: nsec3
    zonefile-sync: 0
    zonefile-load: difference-no-serial
    journal-content: all
"""


def _ksk(signed_text):
    for line in signed_text.splitlines():
        words = line.split()
        if "DNSKEY" in words:
            rdata = words[words.index("DNSKEY") + 1:]
            if rdata[0] == "257":
                return " ".join(rdata[:3]) + " " + "".join(rdata[3:]).split(";")[0]
    raise AssertionError("no KSK in the signed zone")


def sign_nsec(origin, text, work):
    """ldns-keygen makes a KSK and a ZSK (ECDSA P-256), ldns-signzone signs."""
    os.makedirs(work, exist_ok=True)
    source = os.path.join(work, f"{origin}.unsigned")
    with open(source, "w") as f:
        f.write(f"$ORIGIN {origin}.\n" + text)
    keys = []
    for extra in (["-k"], []):
        out = subprocess.run(["ldns-keygen", "-a", "ECDSAP256SHA256", *extra, origin], cwd=work,
                             capture_output=True, text=True, timeout=60, check=True)
        keys.append(os.path.join(work, out.stdout.strip()))
    signed = os.path.join(work, f"{origin}.signed")
    subprocess.run(["ldns-signzone", "-o", origin, "-f", signed, source, *keys], cwd=work,
                   capture_output=True, text=True, timeout=120, check=True)
    with open(signed) as f:
        signed_text = f.read()
    return signed_text, _ksk(signed_text)


def sign_nsec3(origin, text, work, iterations=0, salt_length=0, opt_out=False, timeout=60):
    """knotd (listening nowhere) signs the zone with NSEC3 and flushes it to its file."""
    os.makedirs(os.path.join(work, "zones"), exist_ok=True)
    os.makedirs(os.path.join(work, "db"), exist_ok=True)
    zone_file = os.path.join(work, "zones", f"{origin}.zone")
    with open(zone_file, "w") as f:
        f.write(f"$ORIGIN {origin}.\n" + text)
    conf = os.path.join(work, "knot.conf")
    with open(conf, "w") as f:
        f.write(KNOT_CONF.format(work=work, origin=origin, iterations=iterations, salt_length=salt_length,
                                 opt_out="on" if opt_out else "off"))
    log = open(os.path.join(work, "knotd.log"), "w")
    knotd = subprocess.Popen(["knotd", "-c", conf], stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            with open(zone_file) as f:
                signed_text = f.read()
            if re.search(r"\sNSEC3PARAM\s", signed_text) and "RRSIG" in signed_text:
                break
            if knotd.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"knotd did not sign {origin}: " + open(log.name).read()[-2000:])
            time.sleep(0.2)
    finally:
        subprocess.run(["knotc", "-c", conf, "stop"], capture_output=True, timeout=30)
        try:
            knotd.wait(timeout=30)
        except subprocess.TimeoutExpired:
            knotd.kill()
        log.close()
    return signed_text, _ksk(signed_text)
