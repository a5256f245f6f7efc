"""Section-by-section comparison of DNS responses with dnspython, and the
named differences that are accepted (each one described in docs/dns.md,
"Differences from NSD and Knot"). Anything else is an unexplained difference
and fails the test."""
import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.rcode


def _rrsets(section, ordered):
    out = [(r.name.to_text().lower(), r.rdclass, r.rdtype, r.ttl,
            tuple(sorted(rd.to_text().lower() for rd in r))) for r in section]
    return out if ordered else sorted(out)


def summarize(hex_wire):
    """A comparable view of a response: None (no response), or its fields."""
    if hex_wire is None:
        return None
    wire = bytes.fromhex(hex_wire)
    try:
        m = dns.message.from_wire(wire, ignore_trailing=True)
    except (dns.exception.DNSException, ValueError) as e:
        # dnspython refuses some valid messages (unassigned opcodes): compare the octets.
        return {"unparseable": (type(e).__name__, wire.hex())}
    # From the header itself: dnspython's enums refuse unassigned opcodes.
    extended = (m.ednsflags >> 24) << 4 if m.edns >= 0 else 0
    return {
        "id": m.id,
        "opcode": (m.flags >> 11) & 0xf,
        "rcode": (m.flags & 0xf) | extended,
        "flags": dns.flags.to_text(m.flags & ~0x780f),
        # The question as text keeps its case: case must come back as asked.
        "question": [(q.name.to_text(), q.rdclass, q.rdtype) for q in m.question],
        "answer": _rrsets(m.answer, ordered=True),
        "authority": _rrsets(m.authority, ordered=False),
        "additional": _rrsets(m.additional, ordered=False),
        "edns": None if m.edns < 0 else (m.edns, m.payload, dns.flags.edns_to_text(m.ednsflags),
                                          sorted((o.otype, o.to_wire().hex() if hasattr(o, "to_wire") else "")
                                                 for o in m.options)),
        # Answer owners as written: an answer for a mixed-case question keeps its case.
        "answer_owners": [r.name.to_text() for r in m.answer],
    }


FIELDS = ("id", "opcode", "rcode", "flags", "question", "answer", "authority", "additional", "edns",
          "answer_owners", "unparseable")


def differing_fields(a, b):
    if a is None or b is None:
        return [] if a is b else ["response"]
    return [f for f in FIELDS if a.get(f) != b.get(f)]


def describe(label, query_hex, keel, ref, ref_name):
    lines = [f"{label}: query {query_hex}", f"  fields: {', '.join(differing_fields(keel, ref))}"]
    for name, s in (("keel", keel), (ref_name, ref)):
        lines.append(f"  {name}: {s}")
    return "\n".join(lines)
