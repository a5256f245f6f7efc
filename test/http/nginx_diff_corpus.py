"""The generated corpus of test_nginx_diff.py: malformed, odd and pipelined
requests as (unique name, bytes), from tables of request-line, target, header
field and body damage, each case also between two good requests on one
connection, and pipelines of 2 to 20 requests with a bad one placed in them."""

# Both servers' limits: Keel's request line 8 KiB (keel/http/limits.hpp),
# nginx's large_client_header_buffers 8k (the line and its CRLF).
LINE_LIMIT = 8 * 1024
OK = "GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n"


def req(line, fields=("Host: a",), body="", eol="\r\n"):
    head = "".join(f + eol for f in (line, *fields)) + eol
    return (head + body).encode("latin-1")


# ---- the corpus -------------------------------------------------------------

def request_lines():
    methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "FOO",
               "get", "Get", "G@T", "GET/", "M-SEARCH", "X" * 40]
    for m in methods:
        yield f"method {m}", req(f"{m} /index.html HTTP/1.1")
    versions = ["HTTP/1.1", "HTTP/1.0", "HTTP/0.9", "HTTP/1.2", "HTTP/1.9", "HTTP/2.0",
                "HTTP/3.0", "HTTP/2", "HTTP/1.10", "HTTP/01.1", "HTTP/1.01", "HTTP/1",
                "HTTP/1.1.1", "http/1.1", "Http/1.1", "HTTP/9.9", "HTTP/99999999999.1",
                "HTTP/1.x", "HTTPS/1.1", "HTTP/ 1.1", "HTTP /1.1", "HTTP\\1.1", "HTTP/-1.1",
                "HTTP/1.1 ", "HTTP/1.1\t"]
    for v in versions:
        yield f"version {v!r}", req(f"GET /index.html {v}")
    shapes = {
        "no version": "GET /index.html",
        "no target": "GET HTTP/1.1",
        "method only": "GET",
        "empty line only": "",
        "two spaces before target": "GET  /index.html HTTP/1.1",
        "two spaces before version": "GET /index.html  HTTP/1.1",
        "leading space": " GET /index.html HTTP/1.1",
        "tab separators": "GET\t/index.html\tHTTP/1.1",
        "extra token": "GET /index.html HTTP/1.1 x",
        "space in target": "GET /index .html HTTP/1.1",
        "NUL in target": "GET /index\0.html HTTP/1.1",
        "CR in line": "GET /index\r.html HTTP/1.1",
        "DEL in method": "GE\x7fT /index.html HTTP/1.1",
        "high byte in method": "G\xe9T /index.html HTTP/1.1",
    }
    for name, line in shapes.items():
        yield f"line {name}", req(line)
    yield "line leading CRLF", b"\r\n" + req("GET /index.html HTTP/1.1")
    yield "line two leading CRLFs", b"\r\n\r\n" + req("GET /index.html HTTP/1.1")
    yield "line leading LF", b"\n" + req("GET /index.html HTTP/1.1")


def targets():
    forms = {
        "origin": "/index.html",
        "root": "/",
        "query": "/index.html?a=b&c",
        "empty query": "/index.html?",
        "fragment": "/index.html#x",
        "double slash": "//index.html",
        "dot segment": "/./index.html",
        "encoded letter": "/%69ndex.html",
        "encoded lowercase hex": "/%69%6e%64ex.html",
        "encoded slash": "/css%2Fsite.css",
        "encoded NUL": "/index.html%00",
        "bad escape": "/index%zz.html",
        "short escape": "/index.html%4",
        "trailing percent": "/index.html%",
        "brace": "/index.html{",
        "pipe": "/index.html|",
        "backslash": "/index.html\\",
        "quote": '/index.html"',
        "caret": "/index.html^",
        "raw UTF-8": "/\xc3\xa9.html",
        "relative": "index.html",
        "absolute http": "http://a/index.html",
        "absolute HTTP upper": "HTTP://a/index.html",
        "absolute https": "https://a/index.html",
        "absolute port": "http://a:8080/index.html",
        "absolute no path": "http://a",
        "absolute empty host": "http:///index.html",
        "absolute userinfo": "http://u@a/index.html",
        "absolute ftp": "ftp://a/index.html",
        "absolute IPv6": "http://[::1]/index.html",
        "absolute bad port": "http://a:x/index.html",
        "asterisk": "*",
        "authority": "a:80",
        "dot-dot": "/../index.html",
    }
    for method in ("GET", "HEAD", "OPTIONS"):
        for name, target in forms.items():
            yield f"target {method} {name}", req(f"{method} {target} HTTP/1.1")
    yield "target CONNECT authority", req("CONNECT a:80 HTTP/1.1")
    yield "target CONNECT origin", req("CONNECT /index.html HTTP/1.1")
    # Around the request-line limit of both: the line without CRLF at the
    # limit minus one, at it, and past it; an overlong method too.
    fixed = len("GET / HTTP/1.1")
    for over in (-2, -1, 0, 1, 100, 4096):
        target = "/index.html?" + "a" * (LINE_LIMIT - fixed - len("index.html?") + over)
        yield f"target long {over:+d}", req(f"GET {target} HTTP/1.1")
    yield "target long method", req("G" * (LINE_LIMIT + 10) + " / HTTP/1.1")


def header_fields():
    cases = {
        "no colon": ["Host: a", "X-A b"],
        "space before colon": ["Host: a", "X-A : b"],
        "tab before colon": ["Host: a", "X-A\t: b"],
        "space before colon Host": ["Host : a"],
        "empty name": ["Host: a", ": b"],
        "space in name": ["Host: a", "X A: b"],
        "paren in name": ["Host: a", "X(A): b"],
        "slash in name": ["Host: a", "X/A: b"],
        "underscore in name": ["Host: a", "X_A: b"],
        "dot in name": ["Host: a", "X.A: b"],
        "NUL in name": ["Host: a", "X\0A: b"],
        "NUL in value": ["Host: a", "X-A: b\0c"],
        "SOH in value": ["Host: a", "X-A: b\x01c"],
        "DEL in value": ["Host: a", "X-A: b\x7fc"],
        "tab in value": ["Host: a", "X-A: b\tc"],
        "high bytes in value": ["Host: a", "X-A: \xe9\xff"],
        "ESC in name": ["Host: a", "X\x1bA: b"],
        "high byte in name": ["Host: a", "X\xe9A: b"],
        "bare CR in value": ["Host: a", "X-A: b\rc"],
        "bare CR before CRLF": ["Host: a", "X-A: b\r"],
        "obs-fold space": ["Host: a", "X-A: b", " c"],
        "obs-fold tab": ["Host: a", "X-A: b", "\tc"],
        "obs-fold Host": ["Host: a", " b"],
        "leading whitespace first field": [" X-A: b", "Host: a"],
        "empty value": ["Host: a", "X-A:"],
        "no space after colon": ["Host:a"],
        "trailing whitespace value": ["Host: a \t"],
        "duplicate Host equal": ["Host: a", "Host: a"],
        "duplicate Host different": ["Host: a", "Host: b"],
        "Host list": ["Host: a, b"],
        "missing Host": ["X-A: b"],
        "empty Host": ["Host:"],
        "Host space": ["Host: a b"],
        "Host slash": ["Host: a/b"],
        "Host at": ["Host: u@a"],
        "Host port": ["Host: a:80"],
        "Host bad port": ["Host: a:x"],
        "Host big port": ["Host: a:99999"],
        "Host IPv6": ["Host: [::1]:80"],
        "Host bad IPv6": ["Host: [::1"],
        "Host underscore": ["Host: a_b"],
        "Host percent": ["Host: a%41"],
        "Host backslash": ["Host: a\\b"],
        "Host lowercase name": ["host: a"],
        "Connection close": ["Host: a", "Connection: close"],
        "Connection keep-alive": ["Host: a", "Connection: keep-alive"],
        "Connection other": ["Host: a", "Connection: x, close"],
        "Expect 100-continue no body": ["Host: a", "Expect: 100-continue"],
        "Expect other": ["Host: a", "Expect: x"],
    }
    for name, fields in cases.items():
        yield f"field {name}", req("GET /index.html HTTP/1.1", fields)
    yield "field missing Host HTTP/1.0", req("GET /index.html HTTP/1.0", ["X-A: b"])
    yield "field duplicate Host HTTP/1.0", req("GET /index.html HTTP/1.0", ["Host: a", "Host: b"])
    yield "field bare LF", req("GET /index.html HTTP/1.1", eol="\n")
    yield "field bare LF after request line", b"GET /index.html HTTP/1.1\nHost: a\r\n\r\n"
    yield "field bare LF end", b"GET /index.html HTTP/1.1\r\nHost: a\r\n\n"
    yield "field bare CR end", b"GET /index.html HTTP/1.1\r\nHost: a\r\n\r"
    # Sizes: one field near nginx's 8k buffer and Keel's 16 KiB section,
    # and the field count around Keel's 100.
    for size in (4000, 8000, 8200, 16000, 17000):
        fields = ["Host: a", "X-A: " + "b" * size]
        yield f"field long {size}", req("GET /index.html HTTP/1.1", fields)
    for count in (99, 100, 101, 200):
        fields = ["Host: a"] + [f"X-{i}: b" for i in range(count - 1)]
        yield f"field count {count}", req("GET /index.html HTTP/1.1", fields)
    fields = ["Host: a"] + [f"X-{i}: " + "b" * 1000 for i in range(20)]
    yield "field section 20 KB", req("GET /index.html HTTP/1.1", fields)


CHUNKS = {
    "plain": "5\r\nhello\r\n0\r\n\r\n",
    "two chunks": "2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n",
    "upper hex": "A\r\n0123456789\r\n0\r\n\r\n",
    "leading zeros": "0005\r\nhello\r\n0\r\n\r\n",
    "0x prefix": "0x5\r\nhello\r\n0\r\n\r\n",
    "plus sign": "+5\r\nhello\r\n0\r\n\r\n",
    "minus sign": "-5\r\nhello\r\n0\r\n\r\n",
    "space after size": "5 \r\nhello\r\n0\r\n\r\n",
    "space before size": " 5\r\nhello\r\n0\r\n\r\n",
    "extension": "5;a=b\r\nhello\r\n0\r\n\r\n",
    "extension no value": "5;a\r\nhello\r\n0\r\n\r\n",
    "extension quoted": '5;a="b c"\r\nhello\r\n0\r\n\r\n',
    "extension space": "5 ;a=b\r\nhello\r\n0\r\n\r\n",
    "extension empty": "5;\r\nhello\r\n0\r\n\r\n",
    "extension bad char": "5;a=@\r\nhello\r\n0\r\n\r\n",
    "overflow 2^64+5": "10000000000000005\r\nhello\r\n0\r\n\r\n",
    "overflow all f": "ffffffffffffffffff\r\nhello\r\n0\r\n\r\n",
    "size not hex": "g\r\nhello\r\n0\r\n\r\n",
    "empty size": "\r\nhello\r\n0\r\n\r\n",
    "data longer than size": "3\r\nhello\r\n0\r\n\r\n",
    "no CRLF after data": "5\r\nhello0\r\n\r\n",
    "bare LF chunk line": "5\nhello\r\n0\r\n\r\n",
    "bare LF after data": "5\r\nhello\n0\r\n\r\n",
    "trailer": "5\r\nhello\r\n0\r\nX-T: y\r\n\r\n",
    "trailer no colon": "5\r\nhello\r\n0\r\nbad\r\n\r\n",
    "trailer obs-fold": "5\r\nhello\r\n0\r\nX-T: y\r\n z\r\n\r\n",
    "trailer space before colon": "5\r\nhello\r\n0\r\nX-T : y\r\n\r\n",
    "last chunk with extension": "5\r\nhello\r\n0;a=b\r\n\r\n",
    "no last chunk": "5\r\nhello\r\n",
}


def bodies():
    get = "GET /index.html HTTP/1.1"
    lengths = {
        "5": ["Content-Length: 5"],
        "0": ["Content-Length: 0"],
        "leading zeros": ["Content-Length: 005"],
        "plus": ["Content-Length: +5"],
        "minus": ["Content-Length: -5"],
        "hex": ["Content-Length: 0x5"],
        "decimal point": ["Content-Length: 5.0"],
        "space inside": ["Content-Length: 5 5"],
        "empty": ["Content-Length:"],
        "letters": ["Content-Length: five"],
        "list equal": ["Content-Length: 5, 5"],
        "list equal no space": ["Content-Length: 5,5"],
        "list different": ["Content-Length: 5, 6"],
        "list empty element": ["Content-Length: 5,"],
        "two fields equal": ["Content-Length: 5", "Content-Length: 5"],
        "two fields different": ["Content-Length: 5", "Content-Length: 6"],
        "huge": ["Content-Length: 99999999999999999999999"],
        "over 64 bits": ["Content-Length: 18446744073709551621"],
        "over the body limit": ["Content-Length: 2000000"],
        "name case": ["content-LENGTH: 5"],
    }
    for name, fields in lengths.items():
        yield f"length {name}", req(get, ["Host: a", *fields], "hello")
    yield "length short body", req(get, ["Host: a", "Content-Length: 10"], "hello")
    yield "length on HEAD", req("HEAD /index.html HTTP/1.1", ["Host: a", "Content-Length: 5"],
                                "hello")
    yield "length on POST", req("POST /index.html HTTP/1.1", ["Host: a", "Content-Length: 5"],
                                "hello")
    yield "length on HTTP/1.0", req("GET /index.html HTTP/1.0", ["Content-Length: 5"], "hello")
    codings = {
        "chunked": ["Transfer-Encoding: chunked"],
        "CHUNKED": ["Transfer-Encoding: CHUNKED"],
        "chunked, chunked": ["Transfer-Encoding: chunked, chunked"],
        "chunked twice in fields": ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"],
        "gzip, chunked": ["Transfer-Encoding: gzip, chunked"],
        "chunked, gzip": ["Transfer-Encoding: chunked, gzip"],
        "gzip then chunked in fields": ["Transfer-Encoding: gzip", "Transfer-Encoding: chunked"],
        "identity": ["Transfer-Encoding: identity"],
        "identity, chunked": ["Transfer-Encoding: identity, chunked"],
        "gzip": ["Transfer-Encoding: gzip"],
        "x-custom": ["Transfer-Encoding: x-custom"],
        "chunked with parameter": ["Transfer-Encoding: chunked;q=1"],
        "empty": ["Transfer-Encoding:"],
        "comma only": ["Transfer-Encoding: ,"],
        "list empty element": ["Transfer-Encoding: , chunked"],
        "name case": ["transfer-encoding: chunked"],
        "with Content-Length": ["Transfer-Encoding: chunked", "Content-Length: 5"],
        "with Content-Length first": ["Content-Length: 5", "Transfer-Encoding: chunked"],
        "with Content-Length 0": ["Transfer-Encoding: chunked", "Content-Length: 0"],
        "space before colon": ["Transfer-Encoding : chunked"],
    }
    for name, fields in codings.items():
        yield f"coding {name}", req(get, ["Host: a", *fields], CHUNKS["plain"])
    yield "coding chunked HTTP/1.0", req("GET /index.html HTTP/1.0",
                                         ["Transfer-Encoding: chunked"], CHUNKS["plain"])
    yield "coding chunked POST", req("POST /index.html HTTP/1.1",
                                     ["Host: a", "Transfer-Encoding: chunked"], CHUNKS["plain"])
    for name, body in CHUNKS.items():
        yield f"chunks {name}", req(get, ["Host: a", "Transfer-Encoding: chunked"], body)
    yield "chunks over the body limit", req(get, ["Host: a", "Transfer-Encoding: chunked"],
                                            "200000\r\n" + "a" * 0x200000 + "\r\n0\r\n\r\n")
    yield "expect 100-continue with body", req(
        get, ["Host: a", "Content-Length: 5", "Expect: 100-continue"], "hello")


# Requests that may sit in a pipeline, and bad ones to put among them.
GOOD = {
    "get": OK,
    "head": "HEAD /index.html HTTP/1.1\r\nHost: a\r\n\r\n",
    "missing": "GET /missing HTTP/1.1\r\nHost: a\r\n\r\n",
    "css": "GET /css/site.css HTTP/1.1\r\nHost: a\r\n\r\n",
    "length body": "GET /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
    "chunked body": "GET /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + CHUNKS["plain"],
    "post": "POST /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
}
BAD = {
    "bad version": "GET /index.html HTTP/1.2x\r\nHost: a\r\n\r\n",
    "space before colon": "GET /index.html HTTP/1.1\r\nHost : a\r\n\r\n",
    "missing Host": "GET /index.html HTTP/1.1\r\nX-A: b\r\n\r\n",
    "bad length": "GET /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n",
    "length and chunked": "GET /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                          "Transfer-Encoding: chunked\r\n\r\n" + CHUNKS["plain"],
    "bad chunk": "GET /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "x\r\n",
    "gzip coding": "GET /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
    "HTTP/2.0": "GET /index.html HTTP/2.0\r\nHost: a\r\n\r\n",
}
ENDING = {
    "Connection close": "GET /index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    "HTTP/1.0": "GET /index.html HTTP/1.0\r\n\r\n",
    "HTTP/1.0 keep-alive": "GET /index.html HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
}


def pipelines():
    kinds = list(GOOD)
    for n in (2, 3, 5, 10, 20):
        yield f"pipeline {n} get", (OK * n).encode()
        mixed = "".join(GOOD[kinds[i % len(kinds)]] for i in range(n))
        yield f"pipeline {n} mixed", mixed.encode()
    for kind, text in GOOD.items():
        yield f"pipeline 3 same {kind}", (text * 3).encode()
    for bad, text in BAD.items():
        for n, at in ((3, 0), (3, 1), (3, 2), (10, 5)):
            reqs = [GOOD[kinds[i % len(kinds)]] for i in range(n)]
            reqs[at] = text
            yield f"pipeline {n} {bad} at {at}", "".join(reqs).encode()
    for end, text in ENDING.items():
        for n, at in ((3, 1), (5, 2)):
            reqs = [OK] * n
            reqs[at] = text
            yield f"pipeline {n} {end} at {at}", "".join(reqs).encode()


def corpus():
    """Each case alone, then again between two good requests on one
    connection ("middle ..."), then the pipelines."""
    single = []
    for part in (request_lines, targets, header_fields, bodies):
        single += list(part())
    out = single + [(f"middle {name}", OK.encode() + data + OK.encode()) for name, data in single]
    out += list(pipelines())
    names = [name for name, _ in out]
    assert len(names) == len(set(names)), "case names must be unique"
    return out
