"""The accepted differences between Keel and a reference server, by name.

Each classifier recognises one behaviour, documented in docs/dns.md
("Differences from NSD and Knot"), from the query and both responses. A
difference no classifier recognises is unexplained and fails the test, so
a classifier must be narrow: it checks that the behaviour explains what
differs, and that nothing else does.
"""
import struct

A, NS, CNAME, SOA, MX, AAAA, SRV, DNAME, OPT, RRSIG, NSEC, IXFR, ANY = 1, 2, 5, 6, 15, 28, 33, 39, 41, 46, 47, 251, 255
FORMERR, NOTIMP, REFUSED, NOTAUTH = 1, 4, 5, 9


def inspect_query(wire):
    """What the classifiers need from a (possibly malformed) query."""
    q = {"size": len(wire), "qname": None, "qtype": None, "qclass": None, "trailing": False,
         "other_additional": False, "options": [], "edns_version": None}
    if len(wire) < 12:
        return q
    q["id"], flags, q["qdcount"], q["ancount"], q["nscount"], q["arcount"] = struct.unpack("!HHHHHH", wire[:12])
    q["opcode"], q["rcode_bits"] = (flags >> 11) & 0xf, flags & 0xf
    pos, labels = 12, []
    while pos < len(wire) and 0 < wire[pos] <= 63:
        labels.append(wire[pos + 1:pos + 1 + wire[pos]].decode("latin-1").lower())
        pos += 1 + wire[pos]
    if pos + 5 > len(wire) or wire[pos] != 0:
        return q
    q["qname"] = ".".join(labels) + "."
    q["qtype"], q["qclass"] = struct.unpack("!HH", wire[pos + 1:pos + 5])
    pos += 5
    for i in range(q["nscount"] + q["arcount"]):
        start = pos
        while pos < len(wire) and wire[pos] != 0 and wire[pos] < 0xc0:
            pos += 1 + wire[pos]
        pos += 2 if pos < len(wire) and wire[pos] >= 0xc0 else 1
        if pos + 10 > len(wire):
            return q
        rtype, rclass, ttl, length = struct.unpack("!HHIH", wire[pos:pos + 10])
        if i >= q["nscount"]:
            if rtype == OPT and wire[start] == 0:
                q["edns_version"] = (ttl >> 16) & 0xff
                opts, p = wire[pos + 10:pos + 10 + length], 0
                while p + 4 <= len(opts):
                    code, olen = struct.unpack("!HH", opts[p:p + 4])
                    q["options"].append(code)
                    p += 4 + olen
            else:
                q["other_additional"] = True
        pos += 10 + length
    q["trailing"] = pos < len(wire)
    return q


def zone_of(name, zones):
    best = None
    for z in zones:
        if name == z or name.endswith("." + z) or z == ".":
            if best is None or len(z) > len(best):
                best = z
    return best


def only(k, r, *fields):
    """True if k and r are equal apart from `fields`."""
    keys = set(k) | set(r)
    return all(k.get(f) == r.get(f) for f in keys if f not in fields)


def rtypes(section):
    return {rr[2] for rr in section}


# --- the behaviours ------------------------------------------------------------

def additional_for_mx_srv(q, k, r, zones):
    """Knot adds A/AAAA of MX and SRV targets; Keel, like NSD with minimal-responses, only for NS."""
    extra = set(r["additional"]) - set(k["additional"])
    return (only(k, r, "additional") and set(k["additional"]) <= set(r["additional"]) and extra
            and rtypes(k["answer"]) & {MX, SRV} and all(rr[2] in (A, AAAA) for rr in extra))


def truncated_glue(q, k, r, zones):
    """A referral whose glue does not fit: NSD 4.6 leaves glue out without TC (it predates
    RFC 9471); Knot sets TC but lists A and AAAA of each server together, where Keel (and NSD)
    list all A before all AAAA, so different records fit."""
    return (NS in rtypes(k["authority"]) and k["authority"] == r["authority"] and "TC" in k["flags"] + r["flags"]
            and only(k, r, "flags", "additional")
            and all(rr[2] in (A, AAAA) for rr in k["additional"] + r["additional"]))


def chain_across_zones(q, k, r, zones):
    """A CNAME or DNAME chain that leads into another zone the server serves: NSD and Keel
    follow it there (RFC 1034 §4.3.2 step 3a restarts at the target); Knot stops at the
    zone's edge."""
    n = len(r["answer"])
    if n == 0 or k["answer"][:n] != r["answer"] or k["question"] != r["question"]:
        return False
    last = r["answer"][-1]
    if last[2] != CNAME:
        return False
    owner, target = last[0], last[4][0]
    return zone_of(owner, zones) != zone_of(target, zones)


def dname_loop(q, k, r, zones):
    """A DNAME whose target is below itself: NSD and Keel stop after one substitution;
    Knot follows its CNAME chain limit."""
    n = len(k["answer"])
    return (n >= 1 and k["answer"][0][2] == DNAME and r["answer"][:n] == k["answer"] and len(r["answer"]) > n
            and all(rr[2] == CNAME for rr in r["answer"][n:]) and only(k, r, "answer", "answer_owners"))


def dnssec_type_at_cname(q, k, r, zones):
    """QTYPE RRSIG or NSEC at a CNAME: Knot answers NODATA, Keel and NSD follow the CNAME."""
    return q["qtype"] in (RRSIG, NSEC) and not r["answer"] and k["answer"] and k["answer"][0][2] == CNAME


def any_choice(q, k, r, zones):
    """RFC 8482 leaves open which RRset answers ANY: NSD (and Keel) take the first A, AAAA,
    SOA, MX or PTR in zone-file order, Knot its own pick."""
    return (q["qtype"] == ANY and len(k["answer"]) == 1 and len(r["answer"]) == 1
            and k["answer"][0][0] == r["answer"][0][0] and k["answer"][0][2] != r["answer"][0][2]
            and only(k, r, "answer", "additional", "flags", "authority"))


def class_any(q, k, r, zones):
    """QCLASS ANY: NSD and Keel answer without AA and without the SOA of negative answers;
    Knot answers as for IN."""
    return (q["qclass"] == ANY and "AA" not in k["flags"] and "AA" in r["flags"]
            and all(rr[2] == SOA for rr in set(r["authority"]) - set(k["authority"]))
            and (only(k, r, "flags", "authority") or any_choice(q, k, r, zones)))


def type0_notimp(q, k, r, zones):
    """QTYPE 0: Knot says NOTIMP; NSD and Keel treat it as any unknown type."""
    return q["qtype"] == 0 and r["rcode"] == NOTIMP


def ixfr_at_apex(q, k, r, zones):
    """IXFR over UDP for a served zone: NSD and Keel refuse it (no transfers allowed), Knot NOTAUTH."""
    return q["qtype"] == IXFR and k["rcode"] == REFUSED and r["rcode"] == NOTAUTH and only(k, r, "rcode")


def refused_class(q, k, r, zones):
    """Classes other than IN, CH and ANY: NSD and Keel refuse without the question, with
    EDNS Extended Error 21 (RFC 8914); Knot refuses with the question. For CH, the same
    Extended Error is the only difference."""
    return (q["qclass"] not in (1, ANY) and k["rcode"] == r["rcode"] == REFUSED
            and only(k, r, "question", "edns"))


def error_echoes_question(q, k, r, zones):
    """FORMERR and NOTIMP: NSD and Keel answer with the header only; Knot adds the question
    (and an OPT)."""
    return (k.get("rcode") in (FORMERR, NOTIMP) and r.get("rcode") == k.get("rcode") and not k.get("question")
            and r.get("question") and only(k, r, "question", "edns", "flags"))


def drops_malformed(q, k, r, zones):
    """What NSD and Keel answer with FORMERR (or NOTIMP, or the NSD-style empty NOERROR for a
    question-less query with an OPT), Knot drops: no question to answer, names it cannot read."""
    return r is None and k is not None and (k.get("rcode") in (FORMERR, NOTIMP, 0) and not k.get("question")
                                            or "unparseable" in k)


def query_rcode_bits(q, k, r, zones):
    """A query with RCODE bits set: NSD and Keel say FORMERR, Knot ignores them."""
    return q.get("rcode_bits") and k.get("rcode") == FORMERR and r.get("rcode") != FORMERR


def other_additional(q, k, r, zones):
    """Records other than one OPT at the root in the additional section: NSD and Keel say
    FORMERR (no TSIG), Knot ignores them."""
    return q["other_additional"] and k.get("rcode") == FORMERR and r.get("rcode") != FORMERR


def trailing_octets(q, k, r, zones):
    """Octets after the last record: NSD and Keel ignore them, Knot says FORMERR."""
    return q["trailing"] and r.get("rcode") == FORMERR and k.get("rcode") != FORMERR


def nsid(q, k, r, zones):
    """NSID (RFC 5001): Knot answers with its host name, NSD without an nsid setting and Keel not at all."""
    return 3 in q["options"] and only(k, r, "edns") and k["edns"][:3] == r["edns"][:3]


def badvers(q, k, r, zones):
    """BADVERS: NSD and Keel keep the query's flags but AD and leave the DO bit out; Knot keeps RD and DO."""
    return q["edns_version"] not in (None, 0) and k["rcode"] == r["rcode"] == 16 and only(k, r, "flags", "edns")


def opcode_not_query(q, k, r, zones):
    """Opcodes other than QUERY: NSD and Keel answer NOTIMP (NOTIFY: NXDOMAIN or REFUSED)
    with the header only; Knot adds the question, answers NOTIFY with NOTAUTH, and sends
    UPDATE responses dnspython cannot read."""
    return q.get("opcode", 0) != 0 and k is not None and not k.get("question") and (
        r is None or "unparseable" in r or r.get("question"))


KNOT = [additional_for_mx_srv, truncated_glue, chain_across_zones, dname_loop, dnssec_type_at_cname, any_choice,
        class_any, type0_notimp, ixfr_at_apex, refused_class, opcode_not_query, error_echoes_question,
        drops_malformed, query_rcode_bits, other_additional, trailing_octets, nsid, badvers]
NSD = [truncated_glue]


def classify(classifiers, query_wire, keel, ref, zones):
    """The name of the accepted difference that explains it, or None."""
    q = inspect_query(query_wire)
    for classify_one in classifiers:
        try:
            if keel is not None and ref is not None or classify_one in (drops_malformed, opcode_not_query):
                if classify_one(q, keel, ref, zones):
                    return classify_one.__name__.replace("_", "-")
        except (KeyError, TypeError, IndexError):
            continue
    return None
