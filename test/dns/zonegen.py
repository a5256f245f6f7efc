"""Zone sets for the differential test (test_differential.py) and bench/dns.

Each zone set is a folder of NAME.zone files that NSD, Knot and Keel all load.
`features` covers every type and answer path by hand; `generated` is a random
zone drawn from a seed (names of 1-4 labels, random types, wildcards, empty
non-terminals, delegations with and without glue, CNAME chains, DNAMEs);
`a_records_zone` is the 2015 IncludeOS paper's zone. The queries for them
are in queries.py.
"""
import os
import random

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

# Answers too large for the client's UDP size (RFC 2181 §9): TXT sets at the
# apex and below it of ~800, ~2,900 and ~6,000 octets, AAAA sets of ~1,700 and
# ~5,600, an A set of ~1,600, a long MX set and a delegation whose glue does
# not fit. The differential test asks them at every size (queries.py).
TRUNCATION = {
    "big.test": "$TTL 3600\n"
    "@ SOA ns1 hostmaster 1 7200 3600 1209600 300\n@ NS ns1\n@ NS ns2\n"
    "ns1 A 192.0.2.1\nns2 A 192.0.2.2\nns2 AAAA 2001:db8::2\n@ A 192.0.2.3\n"
    + "".join(f'@ TXT "apex-{i:02d}-' + "v" * 220 + '"\n' for i in range(12))
    + "".join(f'mid TXT "mid-{i}-' + "m" * 180 + '"\n' for i in range(4))
    + "".join(f'huge TXT "huge-{i:02d}-' + "h" * 240 + '"\n' for i in range(24))
    + "".join(f"v6 AAAA 2001:db8:6::{i:x}\n" for i in range(1, 61))
    + "".join(f"v6many AAAA 2001:db8:7::{i:x}\n" for i in range(1, 201))
    + "".join(f"v4 A 198.18.0.{i}\n" for i in range(1, 101))
    + "".join(f"mx MX {i} mail{i}.a-rather-long-mail-host-name.example.net.\n" for i in range(40))
    + "both A 192.0.2.9\n" + "".join(f"both AAAA 2001:db8:8::{i:x}\n" for i in range(1, 61))
    + "alias CNAME v6many\n"
    + "".join(f"deleg NS ns{i}.deleg\nns{i}.deleg A 198.19.0.{i}\nns{i}.deleg AAAA 2001:db8:9::{i:x}\n"
              for i in range(1, 31)),
}


# Presentation forms NSD reads (issue 19; test/dns/zones/valid/presentation.zone
# holds more): the differential test serves this zone beside TRUNCATION, so
# NSD's and Knot's answers for what they read are compared with Keel's.
FORMS = {
    "forms.test": r"""
$TTL 1d
@	IN	SOA	ns hostmaster ( 1 ; serial "not a string"
			3h 1h 1w 5m )  ; timers with units
	NS	ns
ns	A	192.0.2.1
hinfo	HINFO	"PC" "Linux"
hinfo	HINFO	"Intel x86 (64-bit)" "Debian GNU/Linux; 12"
hinfo	hinfo	VAX-11/780 UNIX
hinfo	HINFO	"" "\"quoted\" \\ \059 \065\066C"
txt	TXT	"a;b" "c(d)e" ; comment after quotes "with a quote"
txt	TXT	( "first" ; a comment inside parentheses "x"
		  "second" )
txt	TXT	unquoted\;semicolon back\\slash
paren	( IN
	  A 192.0.2.3 )
	TXT	"owner from the line before"
\065\066c	A	192.0.2.4
dot\.in\.label	A	192.0.2.5
sip	NAPTR	100 10 "U" "E2U+sip" "!^(.*)$!sip:\\1@forms.test!" .
alias	CNAME	dot\.in\.label
mail	MINFO	owner errors.forms.test.
rp	RP	hostmaster.forms.test. txt
afs	AFSDB	1 afs1.example.net.
kx	KX	10 kx.example.net.
_http._tcp	URI	10 1 "https://www.forms.test/a;b"
child	NS	ns.child
ns.child	A	192.0.2.6
child	CDS	60485 13 2 D4B7D520E7BB5F0F67674A0CCEB1E3E0614B93C4F9E99B8383F6A1E4469DA50A
_25._tcp.mx	SMIMEA	3 1 1 0C72AC70B745AC19998811B131D662C9AC69DBDBE7CB23E5B514B56664C5D3D6
""",
}


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


def generated_zone(seed, names=400, big=0):
    """A random zone 'gen.test' and the owner names it holds; with `big`, that
    many large RRsets too (big_rrsets), drawn from their own generator so the
    rest of the zone stays the one the seed gives."""
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
    if big:
        data_owners = [o for o, have in owners.items() if have and not have & {"CNAME", "NS", "DNAME", "SOA"}
                       and not below_special(o)]
        big_lines, big_owners, big_cuts = big_rrsets(random.Random(seed * 7919 + big), data_owners, big)
        lines += big_lines
        owners.update({o: {"big"} for o in big_owners})
        cuts.update(big_cuts)
    text = "\n".join(lines) + "\n"
    names = [o for o in owners if o != "@"]
    return text, names, sorted(cuts), sorted(dnames)


def big_rrsets(rng, data_owners, count):
    """Zone lines with RRsets too large for some UDP sizes (RFC 2181 §9
    truncation): TXT sets at the apex, many AAAA or A, long MX sets, and a
    delegation whose in-domain glue does not fit (RFC 9471). Returns the lines,
    the owners they add and the cuts they make."""
    lines, added, cuts = [], [], []

    def txt_set(owner, records):
        for i in range(records):
            text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789=-") for _ in range(rng.randrange(60, 250)))
            lines.append(f'{owner} TXT "{i:03d}{text}"')

    txt_set("@", rng.randrange(3, 25))  # a big apex TXT set (SPF, site verifications)
    for i in range(count):
        kind = rng.choice(["txt", "aaaa", "a", "mx", "deleg", "existing"])
        owner = f"big{i}"
        if kind == "existing" and data_owners:
            owner, kind = rng.choice(data_owners), rng.choice(["txt", "aaaa"])
        if owner not in data_owners:
            added.append(owner)
        if kind == "txt":
            txt_set(owner, rng.randrange(2, 40))
        elif kind == "aaaa":
            lines += [f"{owner} AAAA 2001:db8:b16::{k:x}" for k in range(1, rng.randrange(20, 200))]
        elif kind == "a":
            lines += [f"{owner} A 198.18.{k >> 8}.{k & 255}" for k in range(1, rng.randrange(30, 300))]
        elif kind == "mx":
            lines += [f"{owner} MX {k} mx{k}.a-rather-long-mail-host-name.example.net."
                      for k in range(rng.randrange(10, 80))]
        else:
            cuts.append(owner)
            for k in range(rng.randrange(4, 40)):
                lines += [f"{owner} NS ns{k}.{owner}", f"ns{k}.{owner} A 198.19.{i}.{k}",
                          f"ns{k}.{owner} AAAA 2001:db8:{i:x}::{k:x}"]
    return lines, added, cuts


def a_records_zone(count=10000, origin="bench.test"):
    """The 2015 IncludeOS paper's zone: `count` A records (host0 .. host<count-1>)."""
    lines = ["$TTL 3600", f"@ SOA ns1.{origin}. hostmaster.{origin}. 1 7200 3600 1209600 300",
             f"@ NS ns1.{origin}.", "ns1 A 10.0.0.1"]
    lines += [f"host{i} A 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(count)]
    return "\n".join(lines) + "\n"
