"""examples/web against real clients, through a TAP device in a network
namespace this test makes (root only; test/net/tcp_harness.py's Net), for the
Linux-process build and the image in QEMU (TCG):

    /usr/bin/python3 -m pytest -v test/http/test_web.py

curl fetches the page several times on one connection, python requests
drives the REST API (POST, GET, DELETE, errors), nc sends a pipelined pair
and malformed requests (400), and a slowloris client (a partial header,
then nothing) gets 408 and the close at the header timeout while another
client is served meanwhile.
"""
import json
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "net"))

from tcp_harness import KEEL, PYTHON, Net, run  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

WEB = "examples/web"
HEADER_TIMEOUT_S = 2
# Short timeouts so the slowloris case takes seconds; stats every second
# show the counters.
ARGS = f"web_header_timeout={HEADER_TIMEOUT_S * 1000} web_stats=1 web_log=1"
URL = f"http://{KEEL}"


@pytest.fixture(scope="module", params=["linux", "kvm"])
def web(request):
    net = Net()
    try:
        index = net.keel(WEB, request.param, args=ARGS, ready=rf"listening on {KEEL}:80")
        net.web = index
        yield net
    finally:
        net.close()


def curl(net, *args, timeout=30):
    return run(net.args(["curl", "-sS", "--max-time", "20", *args]), timeout=timeout, check=False)


def nc(net, data, timeout=30):
    """Sends `data` with OpenBSD nc, half-closes (-N), returns all it read."""
    result = run(net.args(["nc", "-N", "-w", "10", KEEL, "80"]), timeout=timeout, check=False,
                 input=data)
    return result.stdout


def test_page_several_times_on_one_connection(web):
    result = curl(web, "-v", f"{URL}/", f"{URL}/", f"{URL}/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("<h1>Keel web appliance</h1>") == 3
    assert result.stderr.count("Re-using existing connection") == 2, result.stderr
    assert "Content-Type: text/html; charset=utf-8" in result.stderr
    assert result.stderr.count("Connected to") == 1
    # The access log (web_log=1; off by default): one line per response.
    web.wait_for(web.web, r'web: 10\.0\.0\.1:\d+ "GET /" 200 \d+', timeout=10)


REST_CLIENT = r"""
import json, sys, requests
url = sys.argv[1] + "/api/items"
s = requests.Session()
out = []
def note(r):
    out.append([r.status_code, r.headers.get("Content-Type"), r.headers.get("Location"),
                r.text and r.json()])
note(s.post(url, json={"name": "lamp", "watts": 40}))
note(s.post(url, json={"name": "fan"}))
note(s.get(url))
note(s.get(url + "/1"))
note(s.delete(url + "/1"))
note(s.get(url + "/1"))
note(s.delete(url + "/1"))
note(s.get(url))
note(s.post(url, data="{not json", headers={"Content-Type": "application/json"}))
note(s.post(url, data="name=x", headers={"Content-Type": "application/x-www-form-urlencoded"}))
note(s.post(url, json=[1, 2]))
note(s.put(url, json={}))
print(json.dumps(out))
"""


def test_rest_api_with_python_requests(web):
    result = run(web.args([PYTHON, "-c", REST_CLIENT, URL]), timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    js = "application/json"
    assert got[0] == [201, js, "/api/items/1", {"id": 1, "name": "lamp", "watts": 40}]
    assert got[1] == [201, js, "/api/items/2", {"id": 2, "name": "fan"}]
    assert got[2] == [200, js, None, [{"id": 1, "name": "lamp", "watts": 40},
                                      {"id": 2, "name": "fan"}]]
    assert got[3] == [200, js, None, {"id": 1, "name": "lamp", "watts": 40}]
    assert got[4][0] == 204 and got[4][3] == ""
    assert got[5][0] == 404 and "error" in got[5][3]
    assert got[6][0] == 404
    assert got[7] == [200, js, None, [{"id": 2, "name": "fan"}]]
    assert [g[0] for g in got[8:]] == [400, 415, 422, 405]


def test_pipelined_pair_with_nc(web):
    pair = (f"GET /api/items/999 HTTP/1.1\r\nHost: {KEEL}\r\n\r\n"
            f"GET / HTTP/1.1\r\nHost: {KEEL}\r\n\r\n")
    out = nc(web, pair)
    statuses = re.findall(r"HTTP/1\.1 (\d{3})", out)
    assert statuses == ["404", "200"], out
    assert out.index("no such item") < out.index("<h1>")


@pytest.mark.parametrize("request_text", [
    "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "GET / HTTP/1.1\nHost: a\n\n",          # bare LF (decision 0100)
    "GET / HTTP/1.1\r\nHost : a\r\n\r\n",   # whitespace before the colon
])
def test_malformed_request_gets_400_and_close(web, request_text):
    out = nc(web, request_text + f"GET / HTTP/1.1\r\nHost: {KEEL}\r\n\r\n")
    assert re.findall(r"HTTP/1\.1 (\d{3})", out) == ["400"], out
    assert "Connection: close" in out


SLOWLORIS = r"""
import socket, sys, time, requests
addr, timeout = sys.argv[1], float(sys.argv[2])
slow = socket.create_connection((addr, 80), timeout=30)
slow.sendall(b"GET / HTTP/1.1\r\nHost: a\r\nX-Slow: ")
start = time.monotonic()
# Meanwhile another client is served, several times.
served = [requests.get(f"http://{addr}/", timeout=10).status_code for _ in range(3)]
got = b""
while True:
    b = slow.recv(4096)
    if not b:
        break
    got += b
print(served, round(time.monotonic() - start, 2), got.split(b"\r\n")[0].decode())
"""


def test_slowloris_gets_408_at_the_header_timeout_while_others_are_served(web):
    result = run(web.args([PYTHON, "-c", SLOWLORIS, KEEL, str(HEADER_TIMEOUT_S)]), timeout=60,
                 check=False)
    assert result.returncode == 0, result.stderr
    match = re.fullmatch(r"\[200, 200, 200\] ([\d.]+) (.*)\n", result.stdout)
    assert match, result.stdout
    assert match[2] == "HTTP/1.1 408 Request Timeout"
    # At the timeout: not before it (measured from after the partial header
    # was sent), and not long after.
    assert HEADER_TIMEOUT_S - 0.5 <= float(match[1]) < 3 * HEADER_TIMEOUT_S, result.stdout
    # The appliance counted it (its counter line comes every second).
    web.wait_for(web.web, r"timeouts header [1-9]", timeout=10)
