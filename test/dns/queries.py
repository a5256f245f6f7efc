"""Queries for the differential test (test_differential.py): existing and
missing names and types, wildcards, delegations and glue, CNAME chains, empty
non-terminals, apex queries, EDNS sizes from none to 4096 with and without DO,
mixed-case names, ANY, unknown and meta types, every class, and malformed and
truncated messages. Each is (label, wire).
"""
import random
import struct

from zonegen import FEATURES

# Types used to query (the served ones, meta types and unknown ones).
QUERY_TYPES = [1, 2, 5, 6, 12, 13, 15, 16, 28, 33, 35, 39, 43, 44, 52, 99, 257, 65280,
               255, 0, 41, 250, 251, 252, 253, 254, 65535, 48, 46, 47]
COMMON_TYPES = [1, 28, 15, 16, 2, 6, 5, 255, 33, 43]


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


TRUNCATION_SIZES = (None, 100, 512, 600, 1232, 1400, 4096)


def truncation_queries(seed=1):
    """Every name of zonegen.TRUNCATION with its types and others, at every
    UDP size, with and without DO: where an answer is truncated (TC, RFC 2181
    §9) and where it just fits."""
    rng = random.Random(seed)
    out = []
    names = ["", "mid", "huge", "v6", "v6many", "v4", "mx", "both", "alias", "deleg", "x.deleg", "ns1", "nx"]
    for name in names:
        fqdn = f"{name}.big.test." if name else "big.test."
        for qtype in (1, 28, 16, 15, 2, 6, 255, 5, 99):
            for size in TRUNCATION_SIZES:
                for do in ((False, True) if size is not None else (False,)):
                    shown = mixed_case(fqdn, rng) if rng.random() < 0.3 else fqdn
                    out.append((f"truncation {shown} type {qtype} size {size} do {do}",
                                query(shown, qtype, flags=0x0100, edns=size, do=do, rng=rng)))
    return out


def forms_queries(seed=2):
    """Each name of zonegen.FORMS with its type, A and ANY, with and without EDNS."""
    rng = random.Random(seed)
    out = []
    for name, qtype in [("hinfo", 13), ("txt", 16), ("paren", 1), ("paren", 16), ("abc", 1),
                        ("sip", 35), ("alias", 1), ("mail", 14), ("rp", 17), ("afs", 18), ("kx", 36),
                        ("_http._tcp", 256), ("child", 59), ("child", 43), ("x.child", 1), ("_25._tcp.mx", 53),
                        ("", 6), ("", 2)]:
        fqdn = f"{name}.forms.test." if name else "forms.test."
        for t in (qtype, 1, 255):
            for size in (None, 1232):
                out.append((f"forms {fqdn} type {t} size {size}", query(fqdn, t, edns=size, rng=rng)))
    return out
