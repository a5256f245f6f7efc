"""The request parser and server of examples/web against nginx (Debian's
nginx-light) serving the same folder (test/http/nginx_peer.py): a generated
corpus of malformed, odd and pipelined requests, each sent raw over a
socket to both (in one write, then a half-close; test/http/raw_client.py),
every answer parsed and compared: the statuses in order, how many, whether
the connection stayed open (a sentinel request after each case is answered
or not), the framing of each answer, Allow on 405 and Connection: close.

    /usr/bin/python3 -m pytest -v test/http/test_nginx_diff.py

Where the two differ on purpose (Keel stricter, decision 0100; nginx off
the RFC) the difference is asserted as it is, by class (KNOWN below,
docs/http.md "Differences from nginx"); any other difference fails. A sample
goes to the image under QEMU too, which must answer as the process. The
conditional and range requests are test_static.py's.
"""
import base64
import json
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "net"))

import nginx_peer  # noqa: E402
from nginx_diff_corpus import corpus  # noqa: E402
from tcp_harness import KEEL, PYTHON, Net, run  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

WEB = "examples/web"
CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw_client.py")
SERVERS = [[KEEL, 80], [nginx_peer.ADDRESS, nginx_peer.PORT]]
# After every case, on the same connection: answered only if the server
# kept the connection open and framed the case as both should. robots.txt
# is not asked for by any case, so its answer is the sentinel's.
SENTINEL = b"GET /robots.txt HTTP/1.1\r\nHost: sentinel\r\n\r\n"
SENTINEL_LENGTH = os.path.getsize(os.path.join(nginx_peer.SITE, "robots.txt"))
# ---- reading the answers ----------------------------------------------------

def methods(data):
    """The method of each request in `data` as both servers should see it,
    for HEAD's bodiless answers (well-formed cases only matter here)."""
    return re.findall(rb"(?:^|\r\n\r\n|hello|0\r\n\r\n)(HEAD|GET|POST) ", data)


def answers(data, heads):
    """The responses in `data`: dicts of status, framing ("length",
    "chunked", "close" or "none"), close (Connection: close), allow, and
    "sentinel" for the sentinel's. `heads` are the requests' methods in
    order (b"HEAD" has no content)."""
    out = []
    at = 0
    index = 0
    while at < len(data):
        if not data.startswith(b"HTTP/", at):
            out.append({"status": "raw", "framing": "close", "close": True, "allow": None})
            break  # no status line: an HTTP/0.9 answer, everything to the close
        end = data.find(b"\r\n\r\n", at)
        assert end >= 0, data[at:]
        lines = data[at:end].decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            fields.setdefault(name.strip().lower(), []).append(value.strip())
        at = end + 4
        if 100 <= status < 200:
            out.append({"status": status, "framing": "none", "close": False, "allow": None})
            continue
        head_only = index < len(heads) and heads[index] == b"HEAD"
        index += 1
        length = fields.get("content-length")
        chunked = "chunked" in ",".join(fields.get("transfer-encoding", [])).lower()
        framing = "chunked" if chunked else "length" if length else "close"
        if head_only or status in (204, 304):
            pass
        elif chunked:
            while True:
                line_end = data.index(b"\r\n", at)
                size = int(data[at:line_end].split(b";")[0], 16)
                at = line_end + 2 + size + 2
                if size == 0:
                    break
        elif length:
            at += int(length[0])
        else:
            at = len(data)
        connection = ",".join(fields.get("connection", [])).lower()
        # The last answer, robots.txt's whole: no case asks for it.
        sentinel = status == 200 and length == [str(SENTINEL_LENGTH)] and not head_only \
            and at == len(data)
        out.append({"status": status, "framing": framing, "close": "close" in connection,
                    "allow": fields.get("allow", [None])[0] if status == 405 else None,
                    "sentinel": sentinel})
    return out


def outcome(data, answer, end):
    """What is compared, as one short line: each answer's status with
    flags (L length, T chunked, E to the close; c Connection: close; A
    Allow on 405), then "+" if the sentinel was answered (the connection
    stayed open), "x" if not; "stuck" if the server neither answered nor
    closed."""
    heads = methods(data + SENTINEL)
    parts = []
    kept = False
    for a in answers(answer, heads):
        if a.get("sentinel"):
            kept = True
            continue
        flags = {"length": "L", "chunked": "T", "close": "E", "none": ""}[a["framing"]]
        flags += "c" if a["close"] else ""
        flags += "A" if a["allow"] else ""
        parts.append(f"{a['status']}{flags}")
    parts.append("+" if kept else "x")
    if end == "stuck":
        parts.append("stuck")
    return " ".join(parts)


# ---- the known differences --------------------------------------------------

# Where Keel answers differently from nginx on purpose, by class
# (docs/http.md, "Differences from nginx"): (class, the cases it covers as
# a regular expression over their names, Keel's outcome, nginx's). An
# outcome here is what is left after the answers both gave alike (the
# answers before a bad request in a pipeline). Every case a class names
# must differ exactly so, and every other case must not differ at all.
# Besides these, nginx never sends Allow with 405 (RFC 9110 §15.5.6 says
# MUST) and Keel always does: checked on its own, then left out.
KNOWN = [
    # Keel stricter (decision 0100): lines end in CRLF only, RFC 9112 §2.2.
    ("bare LF", r"field bare LF.*|line leading LF|chunks bare LF.*", "400Lc x", "200L +"),
    # RFC 9112 §3: one SP between the parts, HTTP-version = "HTTP/" DIGIT
    # "." DIGIT; nginx takes any whitespace and several digits.
    ("request-line grammar", r"line two spaces.*|version '(HTTP/1\.01|HTTP/1\.1 |HTTP/1\.10)'",
     "400Lc x", "200L +"),
    ("version grammar", r"version '(HTTP/2|HTTP/99999999999\.1)'", "400Lc x", "505Lc x"),
    ("version 0.9", r"version 'HTTP/0\.9'", "505Lc x", "400Lc x"),
    ("HTTP/0.9 request", r"line no version", "400Lc x", "rawEc x"),
    # RFC 9112 §3.2, RFC 3986: characters a target may not hold, a
    # fragment, a scheme HTTP does not serve.
    ("target characters", r"target (GET|HEAD) (backslash|brace|caret|pipe|quote|raw UTF-8)",
     "400Lc x", "404L +"),
    ("target characters", r"target (GET|HEAD) (fragment|absolute ftp)", "400Lc x", "200L +"),
    ("target characters", r"target OPTIONS (backslash|brace|caret|pipe|quote|raw UTF-8|"
     r"fragment|absolute ftp)", "400Lc x", "405L +"),
    ("CONNECT target", r"target CONNECT origin", "400Lc x", "405Lc x"),
    # RFC 9110 §5.1, §5.5, RFC 9112 §2.2: field names are tokens (nginx
    # drops the field, ignore_invalid_headers), values hold no CTL, a bare
    # CR is invalid.
    ("field characters", r"field (DEL in value|SOH in value|bare CR before CRLF|"
     r"(high byte|paren|slash) in name)", "400Lc x", "200L +"),
    # RFC 9112 §3.2: a Host with an invalid value MUST be 400.
    ("Host", r"field Host (at|backslash|bad IPv6|bad port|big port)", "400Lc x", "200L +"),
    # RFC 9112 §7.1: chunk-size is 1*HEXDIG, extensions follow their
    # grammar; trailer fields are fields (nginx skips them unchecked).
    ("chunk grammar", r"chunks (extension bad char|extension empty|space after size|"
     r"trailer (no colon|obs-fold|space before colon))", "400Lc x", "200L +"),
    # RFC 9112 §6.3: chunked not last (or not once) MUST be 400; nginx says
    # 501 (§6.1's SHOULD for a coding it does not know).
    ("Transfer-Encoding", r"coding (chunked with parameter|chunked, chunked|chunked, gzip|"
     r"comma only|empty|gzip|identity|x-custom)|pipeline .* gzip coding at .*",
     "400Lc x", "501Lc x"),
    ("Transfer-Encoding", r"coding gzip then chunked in fields", "501Lc x", "400Lc x"),
    # RFC 9110 §10.1.1: an expectation we cannot meet MAY be 417.
    ("Expect", r"field Expect other", "417Lc x", "200L +"),
    # nginx stricter than the RFC: an empty Host is what a client MUST send
    # for a target without authority (RFC 9112 §3.2); OWS after a value is
    # not part of it (RFC 9110 §5.5); a Content-Length list of one value
    # repeated MAY be taken (§8.6); empty list elements MUST be ignored
    # (§5.6.1).
    ("nginx refuses valid", r"field (empty Host|trailing whitespace value)|"
     r"length (list equal|list equal no space|two fields equal)", "200L +", "400Lc x"),
    ("nginx refuses valid", r"coding list empty element", "200L +", "501Lc x"),
    # RFC 9110 §9.1: a method the server does not implement SHOULD be 501
    # (nginx: 405 for an unknown upper-case one, 400 for any other token).
    ("methods", r"method (FOO|M-SEARCH|X{40})", "501L +", "405L +"),
    ("methods", r"method (get|Get)|target (CONNECT authority|OPTIONS asterisk)",
     "501L +", "400Lc x"),
    # A GET with Content-Length: 0 and 'hello' after it: 'hello' begins the
    # next method (then the sentinel's, or the next request's, line).
    ("methods", r"length 0", "501L x", "400Lc x"),
    ("methods", r"middle length 0", "501L +", "400Lc x"),
    ("methods", r"method TRACE", "405L +", "405Lc x"),
    # RFC 9110 §10.1.1: no 100 Continue for a request without content.
    ("100 Continue", r"field Expect 100-continue no body", "200L +", "100 200L +"),
    # Paths: Keel refuses dot segments and an encoded '/', which nginx
    # resolves or decodes, and does not merge slashes (merge_slashes); a
    # path it refuses is 400 with the connection kept (the framing is
    # sound), nginx closes after every 400.
    ("paths", r"target (GET|HEAD) (dot segment|encoded slash)", "400L +", "200L +"),
    ("paths", r"target OPTIONS dot segment", "400L +", "405L +"),
    ("paths", r"target (GET|HEAD) double slash", "404L +", "200L +"),
    ("paths", r"target (GET|HEAD|OPTIONS) (dot-dot|encoded NUL)", "400L +", "400Lc x"),
    # Limits (keel/http/limits.hpp): nginx's 8k buffer holds the request
    # line with its CRLF and each field line alone; Keel's 8 KiB line is
    # without CRLF, its 16 KiB and 100 fields are for the whole section;
    # nginx drops a GET's content unread, Keel counts it against max_body.
    ("limits", r"target long (-1|\+0)", "200L +", "414Lc x"),
    ("limits", r"target long \+1", "400Lc x", "414Lc x"),
    ("limits", r"target long method", "501Lc x", "414Lc x"),
    ("limits", r"field long (8200|16000)", "200L +", "400Lc x"),
    ("limits", r"field long 17000", "431Lc x", "400Lc x"),
    ("limits", r"field count (101|200)|field section 20 KB", "431Lc x", "200L +"),
    ("limits", r"length (huge|over 64 bits)", "413Lc x", "400Lc x"),
    ("limits", r"chunks over the body limit", "413Lc x", "200L +"),
]


def rest(keel, nginx):
    """The outcomes after the answers both gave alike."""
    a, b = keel.split(), nginx.split()
    same = 0
    while same < min(len(a), len(b)) - 1 and a[same] == b[same]:
        same += 1
    return " ".join(a[same:]), " ".join(b[same:])


def unexplained(got):
    """The cases whose difference no class of KNOWN explains, and the
    classes' cases that no longer differ as it says: both must be empty."""
    out = {}
    for name, (keel, nginx) in got.items():
        assert "405L " not in keel + " " and "405Lc " not in keel + " ", (name, keel)
        assert "A" not in nginx, (name, nginx)  # nginx's 405s have no Allow
        keel = keel.replace("405LA", "405L")
        known = [k for k in KNOWN if re.fullmatch(k[1], name)]
        middle = not known and name.startswith("middle ")
        if middle:
            known = [k for k in KNOWN if re.fullmatch(k[1], name[len("middle "):])]
        assert len(known) <= 1, (name, known)
        expected = (known[0][2], known[0][3]) if known else None
        if middle and expected:
            # Between two good requests: the second is answered where the
            # connection stays open.
            expected = tuple(re.sub(r"\+$", "200L +", e) for e in expected)
        if keel == nginx and expected is None:
            continue
        if keel != nginx and rest(keel, nginx) == expected:
            continue
        out[name] = (keel, nginx, known[0][0] if known else "unexplained")
    return out


# ---- the comparison ---------------------------------------------------------

@pytest.fixture(scope="module")
def servers():
    net = Net()
    try:
        net.keel(WEB, "linux", ready=rf"listening on {KEEL}:80")
        yield from nginx_peer.serve(net)
    finally:
        net.close()


@pytest.fixture(scope="module")
def image():
    net = Net()
    try:
        net.keel(WEB, "kvm", ready=rf"listening on {KEEL}:80")
        yield net
    finally:
        net.close()


def exchange(net, cases, servers=SERVERS):
    job = {"servers": servers,
           "cases": [base64.b64encode(data + SENTINEL).decode() for _, data in cases]}
    result = run(net.args([PYTHON, CLIENT]), input=json.dumps(job), timeout=600)
    out = {}
    for (name, data), row in zip(cases, json.loads(result.stdout)):
        out[name] = [outcome(data, base64.b64decode(got), end) for got, end in row]
    return out


def test_corpus_against_nginx(servers):
    cases = corpus()
    got = exchange(servers, cases)
    differ = sum(1 for keel, nginx in got.values() if keel.replace("A", "") != nginx)
    print(f"{len(cases)} cases; {differ} differ as known besides Allow")
    wrong = unexplained(got)
    for name, (keel, nginx, why) in sorted(wrong.items()):
        print(f"{name!r}: keel {keel!r} nginx {nginx!r} ({why})")
    assert wrong == {}


def test_image_answers_as_the_process(servers, image):
    """Every eighth case (a sample of each kind) to the image under QEMU
    (TCG): the same code, so the same answers as the Linux process."""
    sample = corpus()[::8]
    process = exchange(servers, sample, [SERVERS[0]])
    booted = exchange(image, sample, [SERVERS[0]])
    print(f"{len(sample)} cases to the image")
    assert booted == process
