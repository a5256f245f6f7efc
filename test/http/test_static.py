"""examples/web's static files (examples/web/site, embedded at build time)
against curl, and beside nginx serving the same folder: the Linux-process
build on a TAP device in a network namespace this test makes (root only;
test/net/tcp_harness.py's Net).

    /usr/bin/python3 -m pytest -v test/http/test_static.py

curl -I, -r, --compressed, If-None-Match and If-Modified-Since (304), a
405, a redirect, refused traversal; then the differential: 65 requests
and 256 combinations of precondition, encoding and range, sent to Keel and
to nginx (Debian's nginx-light, in the same
namespace on its loopback, gzip_static on, the same files and times),
status codes and the headers that matter compared, every known difference
asserted as it is (docs/http.md, "Differences from nginx").
"""
import email.utils
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "net"))

import nginx_peer  # noqa: E402
from tcp_harness import KEEL, ROOT, Net  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

WEB = "examples/web"
SITE = os.path.join(ROOT, WEB, "site")
URL = f"http://{KEEL}"
NGINX = nginx_peer.URL


@pytest.fixture(scope="module", params=["linux", "kvm"])
def web(request):
    net = Net()
    try:
        net.keel(WEB, request.param, ready=rf"listening on {KEEL}:80")
        yield net
    finally:
        net.close()


def curl(net, *args):
    """curl's response head(s) and content, as (head text, body bytes)."""
    dump = [] if "-I" in args else ["-D", "-"]  # -I writes the head itself
    result = subprocess.run(net.args(["curl", "-sS", "--max-time", "20", *dump, *args]),
                            capture_output=True, timeout=30)
    assert result.returncode == 0, result.stderr
    head, _, body = result.stdout.partition(b"\r\n\r\n")
    return head.decode("latin-1"), body


def field(head, name):
    m = re.search(rf"^{name}: (.*?)\r?$", head, re.I | re.M)
    return m[1] if m else None


def status(head):
    return int(head.split()[1])


def site(rel):
    with open(os.path.join(SITE, rel), "rb") as f:
        return f.read()


def http_date(rel):
    return email.utils.formatdate(int(os.stat(os.path.join(SITE, rel)).st_mtime), usegmt=True)


def test_head_has_the_files_length_time_and_etag(web):
    head, body = curl(web, "-I", f"{URL}/")
    assert status(head) == 200, head
    assert body == b""
    assert field(head, "Content-Length") == str(len(site("index.html")))
    assert field(head, "Content-Type") == "text/html; charset=utf-8"
    assert field(head, "Last-Modified") == http_date("index.html")
    assert re.fullmatch(r'"[0-9a-f]{32}"', field(head, "ETag"))
    assert field(head, "Vary") == "Accept-Encoding"  # index.html has a gzip variant
    get_head, body = curl(web, f"{URL}/index.html")
    assert body == site("index.html")
    assert field(get_head, "ETag") == field(head, "ETag")


def test_ranges(web):
    data = site("robots.txt")
    head, body = curl(web, "-r", "0-9", f"{URL}/robots.txt")
    assert status(head) == 206, head
    assert body == data[:10]
    assert field(head, "Content-Range") == f"bytes 0-9/{len(data)}"
    head, body = curl(web, "-r", "-5", f"{URL}/robots.txt")
    assert body == data[-5:]
    head, body = curl(web, "-r", "10-", f"{URL}/robots.txt")
    assert body == data[10:]
    head, body = curl(web, "-r", f"{len(data)}-", f"{URL}/robots.txt")
    assert status(head) == 416, head
    assert field(head, "Content-Range") == f"bytes */{len(data)}"
    # If-Range with the current ETag: the range; with another: all of it.
    etag = field(curl(web, "-I", f"{URL}/robots.txt")[0], "ETag")
    head, body = curl(web, "-r", "0-3", "-H", f"If-Range: {etag}", f"{URL}/robots.txt")
    assert (status(head), body) == (206, data[:4])
    head, body = curl(web, "-r", "0-3", "-H", 'If-Range: "old"', f"{URL}/robots.txt")
    assert (status(head), body) == (200, data)


def brotli(rel):
    """The brotli variant keel_static_files makes (brotli -q 11)."""
    return subprocess.run(["brotli", "-q", "11", "-c", os.path.join(SITE, rel)],
                          capture_output=True, check=True).stdout


def test_compressed(web):
    css = site("css/site.css")
    # Debian's curl asks for "deflate, gzip, br, zstd": br, the smaller, at
    # equal weight.
    head, body = curl(web, "--compressed", f"{URL}/css/site.css")
    assert status(head) == 200, head
    assert field(head, "Content-Encoding") == "br"
    assert field(head, "Vary") == "Accept-Encoding"
    assert int(field(head, "Content-Length")) == len(brotli("css/site.css")) < len(css)
    assert body == css  # curl decoded it
    head, body = curl(web, "-H", "Accept-Encoding: gzip", "--compressed", f"{URL}/css/site.css")
    assert field(head, "Content-Encoding") == "gzip"
    assert int(field(head, "Content-Length")) < len(css)
    assert body == css
    head, body = curl(web, "-H", "Accept-Encoding: br;q=0.5, gzip", f"{URL}/css/site.css")
    assert field(head, "Content-Encoding") == "gzip"
    head, body = curl(web, "-H", "Accept-Encoding: br", f"{URL}/css/site.css")
    assert (field(head, "Content-Encoding"), body) == ("br", brotli("css/site.css"))
    head, body = curl(web, "-H", "Accept-Encoding: gzip;q=0", f"{URL}/css/site.css")
    assert field(head, "Content-Encoding") is None
    assert body == css


def test_conditional(web):
    head, _ = curl(web, "-I", f"{URL}/css/site.css")
    etag, modified = field(head, "ETag"), field(head, "Last-Modified")
    head, body = curl(web, "-H", f"If-None-Match: {etag}", f"{URL}/css/site.css")
    assert status(head) == 304, head
    assert body == b""
    assert field(head, "ETag") == etag
    head, _ = curl(web, "-H", f"If-Modified-Since: {modified}", f"{URL}/css/site.css")
    assert status(head) == 304, head
    head, _ = curl(web, "-H", 'If-Match: "other"', f"{URL}/css/site.css")
    assert status(head) == 412, head


def test_methods_redirects_and_traversal(web):
    head, _ = curl(web, "-X", "POST", f"{URL}/index.html")
    assert status(head) == 405, head
    assert field(head, "Allow") == "GET, HEAD"
    head, _ = curl(web, f"{URL}/css")
    assert status(head) == 301 and field(head, "Location") == "/css/", head
    assert status(curl(web, f"{URL}/css/")[0]) == 404  # no index.html there
    assert status(curl(web, f"{URL}/missing")[0]) == 404
    for bad in ("/../service.cpp", "/css/../../service.cpp", "/%2e%2e/service.cpp",
                "/css%2F..%2F..%2Fservice.cpp"):
        assert status(curl(web, "--path-as-is", f"{URL}{bad}")[0]) == 400, bad
    # The API beside the files.
    head, body = curl(web, f"{URL}/api/items")
    assert status(head) == 200 and body.startswith(b"["), head


# ---- the differential against nginx ----------------------------------------

@pytest.fixture(scope="module")
def nginx(web):
    yield from nginx_peer.serve(web)


def raw(net, base, target, method="GET", headers=()):
    args = ["--path-as-is", "-X", method] if method not in ("GET", "HEAD") else ["--path-as-is"]
    if method == "HEAD":
        args = ["--path-as-is", "-I"]
    for h in headers:
        args += ["-H", h]
    head, _ = curl(net, *args, base + target)
    return head


def summary(head):
    """What the comparison looks at: status and the fields that matter. The
    content of a redirect or an error is each server's own (nginx sends an
    HTML page, Keel nothing), so its length and type are left out."""
    media = field(head, "Content-Type")
    code = status(head)
    own_content = code >= 300 and code != 304
    return {
        "status": code,
        "length": None if own_content else field(head, "Content-Length"),
        "range": field(head, "Content-Range"),
        "etag": field(head, "ETag") is not None,
        "modified": field(head, "Last-Modified"),
        "type": None if own_content or not media else media.split(";")[0],
        "encoding": field(head, "Content-Encoding"),
        "vary": field(head, "Vary"),
    }


def cases(etag_of, modified):
    """(name, target, method, headers) for the differential."""
    later = email.utils.formatdate(time.time() + 3600, usegmt=True)
    earlier = "Thu, 01 Jan 1970 00:00:00 GMT"
    out = []
    for target in ("/", "/index.html", "/css/site.css", "/robots.txt", "/missing", "/css",
                   "/css/", "/index.html/", "/%69ndex.html", "/index.html?x=1"):
        for method in ("GET", "HEAD"):
            out.append((f"{method} {target}", target, method, ()))
    t = "/robots.txt"
    for spec in ("0-0", "0-9", "5-", "-5", "-1000", "0-1000", "10-5", "bytes10", "1000-",
                 "0-1,3-4", "0-5,2-8", "-0", "0-0,-1", "x=0-1", "0-1,1000-2000", " bytes=2-3",
                 "BYTES=2-3", "2-3,", "1-2;x"):
        header = spec if "=" in spec else f"bytes={spec}"
        header = header.strip()
        if spec == "bytes10":
            header = "bytes=10"
        out.append((f"Range {header}", t, "GET", (f"Range: {header}",)))
    out += [
        ("If-None-Match current", t, "GET", (f"If-None-Match: {etag_of(t)}",)),
        ("If-None-Match weak current", t, "GET", (f"If-None-Match: W/{etag_of(t)}",)),
        ("If-None-Match other", t, "GET", ('If-None-Match: "x"',)),
        ("If-None-Match *", t, "GET", ("If-None-Match: *",)),
        ("If-Modified-Since exact", t, "GET", (f"If-Modified-Since: {modified(t)}",)),
        ("If-Modified-Since later", t, "GET", (f"If-Modified-Since: {later}",)),
        ("If-Modified-Since earlier", t, "GET", (f"If-Modified-Since: {earlier}",)),
        ("If-Modified-Since junk", t, "GET", ("If-Modified-Since: junk",)),
        ("If-Match current", t, "GET", (f"If-Match: {etag_of(t)}",)),
        ("If-Match other", t, "GET", ('If-Match: "x"',)),
        ("If-Match *", t, "GET", ("If-Match: *",)),
        ("If-Unmodified-Since earlier", t, "GET", (f"If-Unmodified-Since: {earlier}",)),
        ("If-Unmodified-Since exact", t, "GET", (f"If-Unmodified-Since: {modified(t)}",)),
        ("If-None-Match other + IMS exact", t, "GET",
         ('If-None-Match: "x"', f"If-Modified-Since: {modified(t)}")),
        ("If-Range current", t, "GET", ("Range: bytes=0-3", f"If-Range: {etag_of(t)}")),
        ("If-Range other", t, "GET", ("Range: bytes=0-3", 'If-Range: "x"')),
        ("If-Range date", t, "GET", ("Range: bytes=0-3", f"If-Range: {modified(t)}")),
        ("HEAD with Range", t, "HEAD", ("Range: bytes=0-3",)),
        ("gzip", "/css/site.css", "GET", ("Accept-Encoding: gzip",)),
        ("gzip q=0", "/css/site.css", "GET", ("Accept-Encoding: gzip;q=0",)),
        ("br only", "/css/site.css", "GET", ("Accept-Encoding: br",)),
        ("gzip range", "/css/site.css", "GET", ("Accept-Encoding: gzip", "Range: bytes=0-9")),
        ("POST", "/index.html", "POST", ()),
        ("DELETE", "/index.html", "DELETE", ()),
        ("dot-dot", "/../index.html", "GET", ()),
        ("encoded dot-dot", "/css/%2e%2e/index.html", "GET", ()),
    ]
    return out


# Where Keel answers differently from nginx, on purpose (docs/http.md,
# "Differences from nginx"): (Keel's status, nginx's). The other fields of
# these follow from the status and are not compared.
EXPECTED_DIFFERENCES = {
    # RFC 9110 §14.1.1-14.2: a Range with invalid syntax (last < first, no
    # '-') is ignored: 200 with all of it. nginx answers 416.
    "Range bytes=10-5": (200, 416),
    "Range bytes=10": (200, 416),
    "Range bytes=1-2;x": (200, 416),
    # RFC 9110 §5.6.1: empty list elements are allowed ("2-3," is one
    # range); nginx refuses them.
    "Range bytes=2-3,": (206, 416),
    # Several satisfiable ranges: nginx sends multipart/byteranges, Keel the
    # whole representation (a documented choice RFC 9110 §14.2 allows).
    "Range bytes=0-1,3-4": (200, 206),
    "Range bytes=0-5,2-8": (200, 206),
    "Range bytes=0-0,-1": (200, 206),
    # RFC 9110 §14.2: Range is defined for GET only; nginx honours it on HEAD.
    "HEAD with Range": (200, 206),
    # nginx's if_modified_since is "exact" by default: only the very date is
    # 304; RFC 9110 §13.1.3 says "earlier than or equal to".
    "If-Modified-Since later": (304, 200),
    # A directory without index.html: nginx refuses to list it (403), Keel
    # has no listing to refuse (404).
    "GET /css/": (404, 403),
    "HEAD /css/": (404, 403),
    # A range of the gzip variant: Keel serves it (RFC 9110 §14: a range of
    # the selected representation); nginx ignores Range for gzip_static.
    "gzip range": (206, 200),
    # A percent-encoded dot segment: nginx decodes and resolves it
    # (/css/%2e%2e/index.html is /index.html); Keel refuses it as it does
    # a plain one that the client did not remove (decision 0100).
    "encoded dot-dot": (400, 200),
}


def test_differential_with_nginx(nginx):
    def validators(base):
        def etag_of(target):
            return field(raw(nginx, base, target, "HEAD"), "ETag")

        def modified(target):
            return field(raw(nginx, base, target, "HEAD"), "Last-Modified")
        return etag_of, modified

    # The same requests, each carrying the validators of the server it goes to.
    ours = cases(*validators(URL))
    theirs = cases(*validators(NGINX))
    statuses = {}
    differences = {}
    for (name, target, method, headers), (_, _, _, nginx_headers) in zip(ours, theirs):
        a = summary(raw(nginx, URL, target, method, headers))
        b = summary(raw(nginx, NGINX, target, method, nginx_headers))
        if a["status"] != b["status"]:
            statuses[name] = (a["status"], b["status"])
            continue
        diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
        if diff:
            differences[name] = diff
    print(f"{len(ours)} requests; statuses that differ: {statuses}; fields: {differences}")
    assert statuses == EXPECTED_DIFFERENCES
    # nginx-light has no brotli module: to a client that accepts br only,
    # it sends identity; Keel its brotli variant (docs/http.md).
    css = "css/site.css"
    assert differences == {"br only": {"length": (str(len(brotli(css))), str(len(site(css)))),
                                       "encoding": ("br", None)}}


def test_differential_combinations(nginx):
    """Every combination of target, precondition, Accept-Encoding and Range
    (4 x 8 x 2 x 4 = 256 requests), to each server with its own validators.
    The one expected difference: a range of a gzip variant (Keel 206 or
    416, nginx 200 with all of it; see EXPECTED_DIFFERENCES)."""
    earlier = "Thu, 01 Jan 1970 00:00:00 GMT"

    def requests(base):
        head = {t: raw(nginx, base, t, "HEAD") for t in
                ("/", "/index.html", "/css/site.css", "/robots.txt")}
        out = []
        for target, h in head.items():
            etag, modified = field(h, "ETag"), field(h, "Last-Modified")
            for condition in ((), (f"If-None-Match: {etag}",), ('If-None-Match: "x"',),
                              (f"If-Modified-Since: {modified}",),
                              (f"If-Modified-Since: {earlier}",), (f"If-Match: {etag}",),
                              ('If-Match: "x"',), (f"If-Unmodified-Since: {earlier}",)):
                for encoding in ((), ("Accept-Encoding: gzip",)):
                    for rng in ((), ("Range: bytes=0-9",), ("Range: bytes=-5",),
                                ("Range: bytes=99999-",)):
                        out.append((target, condition + encoding + rng))
        return out

    has_variant = {"/", "/index.html", "/css/site.css"}
    unexpected = []
    for (target, ours), (_, theirs) in zip(requests(URL), requests(NGINX)):
        a = summary(raw(nginx, URL, target, "GET", ours))
        b = summary(raw(nginx, NGINX, target, "GET", theirs))
        if a == b:
            continue
        gzip_range = (target in has_variant and any("gzip" in h for h in ours)
                      and any(h.startswith("Range") for h in ours))
        if gzip_range and a["status"] in (206, 416) and b["status"] == 200:
            continue
        unexpected.append((target, ours, a, b))
    assert unexpected == []
