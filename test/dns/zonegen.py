"""Zone sets and queries for the differential test (test_differential.py).

Each zone set is a folder of NAME.zone files that NSD, Knot and Keel all load.
`features` covers every type and answer path by hand; `generated` is a random
zone drawn from a seed (names of 1-4 labels, random types, wildcards, empty
non-terminals, delegations with and without glue, CNAME chains, DNAMEs).
Queries cover existing and missing names and types, wildcards, delegations
and glue, CNAME chains, empty non-terminals, apex queries, EDNS sizes from
none to 4096, mixed-case names, ANY, unknown types and classes, and
malformed and truncated messages.
"""
import os
import random
import struct

FEATURES = {
    "example.com": r"""
$ORIGIN example.com.
$TTL 3600
@       SOA ns1 hostmaster ( 2024010101 7200 3600 1209600 300 )
        NS  ns1
        NS  ns2.example.net.
        MX  10 mail
        MX  20 mail.example.net.
        A   192.0.2.1
        AAAA 2001:db8::1
        TXT "v=spf1 mx -all"
        CAA 0 issue "ca.example.net"
        CAA 128 tbs "Unknown"
        SPF "v=spf1 -all"
ns1     A   192.0.2.53
ns1     AAAA 2001:db8::53
mail    A   192.0.2.25
www     A   192.0.2.10
www     A   192.0.2.11
www     AAAA 2001:db8::10
ftp     CNAME www
chain1  CNAME chain2
chain2  CNAME chain3
chain3  CNAME www
dangling CNAME nowhere
loop1   CNAME loop2
loop2   CNAME loop1
toorg   CNAME www.example.org.
tonet   CNAME www.example.net.
tonetwild CNAME anything.wild.example.net.
tosub   CNAME host.sub
todeleg CNAME x.deleg
todname CNAME x.dn
*.wild  A   192.0.2.99
*.wild  TXT "wildcard"
*.wild  MX  10 mail
*.wc    CNAME www
*.wcloop CNAME loop1
a.b.c.ent A 192.0.2.7
*.d.ent AAAA 2001:db8::7
exists.wild A 192.0.2.98
sub.wild A 192.0.2.97
_sip._udp SRV 10 60 5060 sip
_sip._tcp SRV 0 0 0 .
sip     A   192.0.2.60
sip     NAPTR 100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .
sip     NAPTR 101 10 "" "" "" _sip._udp
ssh     SSHFP 1 1 123456789abcdef67890123456789abcdef67890
ssh     SSHFP 4 2 9d2d5a3b1e7c4f6a8b0c2d4e6f8091a2b3c4d5e6f708192a3b4c5d6e7f809102
_443._tcp.www TLSA 3 1 1 0C72AC70B745AC19998811B131D662C9AC69DBDBE7CB23E5B514B56664C5D3D6
ptr     PTR www
txts    TXT "one" two "three four" ""
txts    TXT "a \"quoted\" \\ string" "\0651\066\255"
long    TXT ( "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
              "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
              "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
              "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789" )
long    TXT "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
generic TYPE65280 \# 4 0a000001
generic TYPE65281 \# 0
hinfo   HINFO \# 10 03 783836 05 4c696e75 78
escaped\.dot A 192.0.2.70
\@sign  A 192.0.2.71
dn      DNAME example.net.
dn      A   192.0.2.80
dnloop  DNAME x.dnloop
sub     NS  ns1.sub
sub     NS  ns2.sub
sub     DS  60485 13 2 D4B7D520E7BB5F0F67674A0CCEB1E3E0614B93C4F9E99B8383F6A1E4469DA50A
ns1.sub A   192.0.2.201
ns2.sub A   192.0.2.202
ns2.sub AAAA 2001:db8::202
deleg   NS  ns.deleg
deleg   NS  ns1
deleg   NS  ns.elsewhere.example.org.
deleg   NS  ns.wild
ns.deleg A  192.0.2.210
below.deleg A 192.0.2.211
outside NS  ns.example.org.
outside NS  ns2.example.net.
""" + "".join(f"many    A   10.1.0.{i}\n" for i in range(1, 41))
    + "".join(f"fat     NS  ns{i}.fat\nns{i}.fat A 192.0.2.{i}\nns{i}.fat AAAA 2001:db8::f:{i}\n"
              for i in range(1, 15))
    + "".join(f"mxs     MX  {i} mail{i}.longer-names-take-more-room.example.net.\n" for i in range(1, 31)),
    "sub.example.com": r"""
$TTL 1800
@       SOA ns1 hostmaster 7 3600 600 86400 60
        NS  ns1
        NS  ns2
ns1     A   192.0.2.201
ns2     A   192.0.2.202
ns2     AAAA 2001:db8::202
host    A   192.0.2.203
*       TXT "sub wildcard"
""",
    "example.net": r"""
$TTL 7200
example.net. SOA ns1.example.net. hostmaster.example.net. 42 3600 600 86400 120
example.net. NS ns1.example.net.
example.net. NS ns2.example.net.
ns1.example.net. A 198.51.100.53
ns2.example.net. A 198.51.100.54
www.example.net. A 198.51.100.80
x.example.net.   A 198.51.100.81
*.wild.example.net. A 198.51.100.99
back.example.net. CNAME www.example.com.
""",
    "2.0.192.in-addr.arpa": r"""
$TTL 86400
@   SOA ns1.example.com. hostmaster.example.com. 1 3600 900 604800 300
    NS  ns1.example.com.
1   PTR example.com.
10  PTR www.example.com.
11  PTR www.example.com.
53  PTR ns1.example.com.
0/26 NS ns1.example.com.
""",
}

# Types used to query (the served ones, meta types and unknown ones).
QUERY_TYPES = [1, 2, 5, 6, 12, 13, 15, 16, 28, 33, 35, 39, 43, 44, 52, 99, 257, 65280,
               255, 0, 41, 250, 251, 252, 253, 254, 65535, 48, 46, 47]
COMMON_TYPES = [1, 28, 15, 16, 2, 6, 5, 255, 33, 43]


def write_zone_set(folder, zones):
    os.makedirs(folder, exist_ok=True)
    for name, text in zones.items():
        with open(os.path.join(folder, f"{name}.zone"), "w") as f:
            f.write(text.lstrip("\n"))
    return sorted(zones)


# --- the random zone ---------------------------------------------------------

def _label(rng):
    return rng.choice(["www", "mail", "a", "b", "c", "x1", "host", "srv", "db", "api", "_tcp", "n"]) + \
        (str(rng.randrange(100)) if rng.random() < 0.5 else "")


def generated_zone(seed, names=400):
    """A random zone 'gen.test' and the owner names it holds."""
    rng = random.Random(seed)
    origin = "gen.test."
    lines = [f"$ORIGIN {origin}", "$TTL 300",
             "@ SOA ns1 hostmaster 1 3600 600 86400 30", "@ NS ns1", "@ NS ns2.example.net.",
             "ns1 A 203.0.113.1", "@ A 203.0.113.2"]
    owners = {"@": {"SOA", "NS", "A"}, "ns1": {"A"}}
    cuts, dnames = set(), set()

    def below_special(name):
        parts = name.split(".")
        return any(".".join(parts[i:]) in cuts | dnames for i in range(1, len(parts)))

    for _ in range(names):
        depth = rng.choice([1, 1, 2, 2, 3, 4])
        name = ".".join(_label(rng) for _ in range(depth))
        if rng.random() < 0.06:
            name = "*." + name if rng.random() < 0.8 else "*"
        if below_special(name) or name in cuts or name in dnames:
            continue
        have = owners.setdefault(name, set())
        if "CNAME" in have:
            continue
        roll = rng.random()
        if roll < 0.06 and not have and not name.startswith("*"):
            cuts.add(name)
            sibling = rng.choice([o for o in owners if o != "@"])
            ns = [f"ns{rng.randrange(3)}.{name}", f"ns.{sibling}", "ns.example.org."][: rng.randrange(1, 4)]
            for target in ns:
                lines.append(f"{name} NS {target}")
                if target.endswith(name) and rng.random() < 0.8:
                    lines.append(f"{target} A 203.0.113.{rng.randrange(1, 255)}")
                    if rng.random() < 0.4:
                        lines.append(f"{target} AAAA 2001:db8:ff::{rng.randrange(1, 9999):x}")
            if rng.random() < 0.3:
                lines.append(f"{name} DS {rng.randrange(65536)} 13 2 {rng.randbytes(32).hex()}")
            have.add("NS")
            continue
        if roll < 0.14 and not have:
            target = rng.choice(list(owners) + ["nowhere", "www.example.net.", "x.example.org."])
            lines.append(f"{name} CNAME {target}")
            have.add("CNAME")
            continue
        if roll < 0.16 and not have and not name.startswith("*") and \
                not any(o.endswith("." + name) for o in owners):  # RFC 6672 §2.4: nothing below a DNAME
            lines.append(f"{name} DNAME {rng.choice(['example.net.', 'sub.gen.test.', 'x.example.org.'])}")
            dnames.add(name)
            have.add("DNAME")
            continue
        for _ in range(rng.randrange(1, 4)):
            t = rng.choice(["A", "A", "A", "AAAA", "AAAA", "MX", "TXT", "TXT", "SRV", "PTR", "CAA", "NS?"])
            if t == "A":
                lines.append(f"{name} A 203.0.113.{rng.randrange(1, 255)}")
            elif t == "AAAA":
                lines.append(f"{name} AAAA 2001:db8::{rng.randrange(1, 65535):x}")
            elif t == "MX":
                lines.append(f"{name} MX {rng.randrange(50)} {rng.choice(list(owners))}")
            elif t == "TXT":
                lines.append(f'{name} TXT "{rng.randbytes(rng.randrange(1, 40)).hex()}"')
            elif t == "SRV":
                lines.append(f"{name} SRV {rng.randrange(10)} {rng.randrange(100)} {rng.randrange(65536)} "
                             f"{rng.choice(list(owners))}")
            elif t == "PTR":
                lines.append(f"{name} PTR {rng.choice(list(owners))}")
            elif t == "CAA":
                lines.append(f'{name} CAA 0 issue "ca{rng.randrange(9)}.example"')
            else:
                continue
            have.add(t)
    text = "\n".join(lines) + "\n"
    names = [o for o in owners if o != "@"]
    return text, names, sorted(cuts), sorted(dnames)


# --- queries -----------------------------------------------------------------

def encode_name(text):
    out = b""
    for label in text.rstrip(".").split("."):
        if label:
            raw = label.encode()
            out += bytes([len(raw)]) + raw
    return out + b"\0"


def query(name, qtype=1, qclass=1, qid=None, flags=0, edns=None, do=False, rng=None, options=b""):
    """A query message; edns is None (no OPT) or the payload size."""
    qid = rng.randrange(65536) if qid is None else qid
    ar = 1 if edns is not None else 0
    msg = struct.pack("!HHHHHH", qid, flags, 1, 0, 0, ar) + encode_name(name) + struct.pack("!HH", qtype, qclass)
    if edns is not None:
        msg += b"\0" + struct.pack("!HHBBHH", 41, edns, 0, 0, 0x8000 if do else 0, len(options)) + options
    return msg


def mixed_case(name, rng):
    return "".join(c.upper() if rng.random() < 0.5 else c for c in name)


def _variants(rng):
    """Header flags and EDNS for one query: most plain, some with EDNS of every size."""
    flags = rng.choice([0, 0, 0x0100, 0x0100, 0x0010, 0x0020, 0x0130])
    edns = rng.choice([None, None, None, 512, 1232, 4096, 100, 1400])
    return flags, edns, edns is not None and rng.random() < 0.3


def name_queries(names, origin, rng, per_name=4):
    """(label, wire) for names that exist, with their types and others, in mixed case."""
    out = []
    for name in names:
        fqdn = name if name.endswith(".") else f"{name}.{origin}".replace("..", ".")
        for _ in range(per_name):
            qtype = rng.choice(COMMON_TYPES if rng.random() < 0.8 else QUERY_TYPES)
            flags, edns, do = _variants(rng)
            shown = mixed_case(fqdn, rng) if rng.random() < 0.3 else fqdn
            out.append((f"name {shown} type {qtype}", query(shown, qtype, flags=flags, edns=edns, do=do, rng=rng)))
    return out


def missing_queries(names, origin, rng, count):
    out = []
    for _ in range(count):
        base = rng.choice(names + ["@"])
        base = origin if base == "@" else f"{base}.{origin}"
        fqdn = f"{rng.choice(['nx', 'zz', 'q', 'deep.er'])}{rng.randrange(99)}.{base}"
        flags, edns, do = _variants(rng)
        qtype = rng.choice(COMMON_TYPES)
        out.append((f"missing {fqdn} type {qtype}", query(fqdn, qtype, flags=flags, edns=edns, do=do, rng=rng)))
    return out


def class_queries(origin, rng):
    out = []
    for qclass in (0, 2, 3, 4, 254, 255, 65535):
        for name in (origin, f"www.{origin}", "version.bind.", "id.server.", "nx.example.org."):
            for qtype in (1, 16, 255):
                out.append((f"class {qclass} {name} {qtype}",
                            query(name, qtype, qclass, edns=rng.choice([None, 1232]), rng=rng)))
    return out


def malformed_queries(rng, base_names):
    """Broken messages, each from a valid query (as a client might send them)."""
    out = []
    for i in range(240):
        name = rng.choice(base_names)
        good = query(name, rng.choice([1, 28, 16]), edns=rng.choice([None, 1232]), rng=rng)
        qid = good[:2]
        kind = i % 24
        if kind == 0:
            m = good[: rng.randrange(0, len(good))]
        elif kind == 1:
            m = good[:4] + struct.pack("!H", 0) + good[6:]  # QDCOUNT 0
        elif kind == 2:
            m = good[:4] + struct.pack("!H", 2) + good[6:]  # QDCOUNT 2, one question
        elif kind == 3:
            m = good[:6] + struct.pack("!H", 1) + good[8:]  # ANCOUNT that lies
        elif kind == 4:
            m = good[:8] + struct.pack("!H", 1) + good[10:]  # NSCOUNT that lies
        elif kind == 5:
            m = good[:10] + struct.pack("!H", 3) + good[12:]  # ARCOUNT that lies
        elif kind == 6:
            m = qid + b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00" + b"\x40" + b"a" * 64 + b"\x00\x00\x01\x00\x01"
        elif kind == 7:
            m = qid + b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00" + b"\xc0\x0c\x00\x01\x00\x01"  # pointer loop
        elif kind == 8:
            m = qid + b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00" + b"\x01a\xc0\x20\x00\x01\x00\x01"  # forward
        elif kind == 9:
            m = qid + b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00" + (b"\x3f" + b"x" * 63) * 4 + b"\x00\x00\x01\x00\x01"
        elif kind == 10:
            m = qid + b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00" + b"\x41abc\x00\x00\x01\x00\x01"  # label type 01
        elif kind == 11:
            m = good[:2] + struct.pack("!H", rng.choice([1, 2, 3, 5, 6, 15]) << 11) + good[4:]  # opcodes
        elif kind == 12:
            m = good[:2] + struct.pack("!H", 0x8000) + good[4:]  # a response
        elif kind == 13:
            m = good[:2] + struct.pack("!H", rng.randrange(1, 16)) + good[4:]  # RCODE set in a query
        elif kind == 14:
            m = query(name, 1, edns=1232, rng=rng)
            m = m[:-11] + b"\0" + struct.pack("!HHBBHH", 41, 1232, 0, rng.randrange(1, 256), 0, 0)  # EDNS version
        elif kind == 15:
            m = query(name, 1, edns=1232, rng=rng, options=b"\x00\x0a\x00\x09abc")  # option overruns
        elif kind == 16:
            m = query(name, 1, edns=1232, rng=rng)
            m = m[:10] + struct.pack("!H", 2) + m[12:] + m[-11:]  # two OPTs
        elif kind == 17:
            m = query(name, 1, rng=rng)
            m = m[:10] + struct.pack("!H", 1) + m[12:] + b"\x01x\x00" + struct.pack("!HHIH", 41, 512, 0, 0)
        elif kind == 18:
            m = good + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))  # trailing octets
        elif kind == 19:
            m = query(name, 1, edns=4096, rng=rng, options=b"\x00\x03\x00\x00\xfd\xe9\x00\x02hi")  # NSID, unknown
        elif kind == 20:
            m = good[:2] + struct.pack("!H", 0x0200) + good[4:]  # TC set in a query
        elif kind == 21:
            m = query(name, 1, rng=rng)
            m = m[:10] + struct.pack("!H", 1) + m[12:] + encode_name("a") + struct.pack("!HHIH", 1, 1, 0, 4) + b"\1\2\3\4"
        elif kind == 22:
            m = bytes(rng.randrange(256) for _ in range(rng.randrange(12, 40)))  # noise
        else:
            m = qid + b"\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00" + b"\0" + struct.pack("!HHIH", 41, 1232, 0, 0)
        out.append((f"malformed {kind}", m))
    return out


def features_queries(seed=1):
    rng = random.Random(seed)
    text = FEATURES["example.com"]
    names = sorted({line.split()[0] for line in text.splitlines()
                    if line and not line[0].isspace() and not line.startswith(("$", "@"))})
    queries = name_queries(names, "example.com.", rng, per_name=12)
    queries += name_queries(["", "www", "back", "x", "nx", "a.wild"], "example.net.", rng, per_name=6)
    queries += name_queries(["", "host", "ns2", "nx", "a.b"], "sub.example.com.", rng, per_name=8)
    queries += name_queries(["", "1", "10", "2", "5.0/26", "x.0/26"], "2.0.192.in-addr.arpa.", rng, per_name=6)
    queries += name_queries(["a.wild", "b.c.wild", "x.wc", "x.wcloop", "q.d.ent", "c.ent", "b.c.ent",
                             "x.exists.wild", "x.sub.wild", "host.sub", "a.b.dn", "x.dnloop", "x.deleg",
                             "ns.deleg", "a.b.outside", "x.fat", "x.many"], "example.com.", rng, per_name=8)
    queries += missing_queries(names, "example.com.", rng, 400)
    for qtype in QUERY_TYPES:
        for name in ("example.com.", "www.example.com.", "sub.example.com.", "nx.example.com.", "example.org."):
            queries.append((f"type {qtype} at {name}", query(name, qtype, edns=rng.choice([None, 1232]), rng=rng)))
    queries += class_queries("example.com.", rng)
    queries += malformed_queries(rng, ["www.example.com.", "example.com.", "nx.example.com.", "x.sub.example.com."])
    for name in ("many.example.com.", "fat.example.com.", "x.fat.example.com.", "mxs.example.com.",
                 "long.example.com.", "txts.example.com."):
        for size in (None, 100, 512, 600, 800, 1232, 4096):
            for qtype in (1, 2, 15, 16, 255, 28):
                queries.append((f"size {size} {name} {qtype}", query(name, qtype, edns=size, rng=rng)))
    return queries


def generated_queries(names, cuts, dnames, seed):
    rng = random.Random(seed)
    queries = name_queries(names, "gen.test.", rng, per_name=5)
    queries += missing_queries(names, "gen.test.", rng, 800)
    for name in cuts + dnames:
        for _ in range(6):
            fqdn = f"{rng.choice(['x', 'ns0', 'ns1', 'a.b'])}.{name}.gen.test."
            queries.append((f"below {fqdn}", query(fqdn, rng.choice(COMMON_TYPES), rng=rng)))
    queries += malformed_queries(rng, ["gen.test.", "www.gen.test.", "nx.gen.test."])[:120]
    return queries


def a_records_zone(count=10000, origin="bench.test"):
    """The 2015 IncludeOS paper's zone: `count` A records (host0 .. host<count-1>)."""
    lines = ["$TTL 3600", f"@ SOA ns1.{origin}. hostmaster.{origin}. 1 7200 3600 1209600 300",
             f"@ NS ns1.{origin}.", "ns1 A 10.0.0.1"]
    lines += [f"host{i} A 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(count)]
    return "\n".join(lines) + "\n"
