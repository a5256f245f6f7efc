"""examples/web's /metrics (web_metrics=1; decision 0115), for the Linux-process
build and the image in QEMU (TCG), read with curl in the test's namespace and
parsed with prometheus_client's own text parser (Debian's
python3-prometheus-client): every family once, valid names, and counters that
move with traffic (ping: the stack's ICMP counters; requests: the server's;
the access log's lines: the syslog sender's).

    /usr/bin/python3 -m pytest -v test/http/test_metrics.py
"""
import os
import re
import sys

import pytest
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "net"))

from tcp_harness import KEEL, Net, run  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

HOST = "10.0.0.1"  # the namespace's end of the TAP (nothing listens: the datagrams are sent)
NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


@pytest.fixture(scope="module", params=["linux", "kvm"])
def web(request):
    net = Net()
    try:
        net.keel("examples/web", request.param, args=f"web_metrics=1 web_https_port=0 web_log=1 syslog={HOST}:5514",
                 ready=rf"listening on {KEEL}:80")
        yield net
    finally:
        net.close()


def scrape(net):
    """The page as {(name, labels): value}, through the real parser."""
    result = run(net.args(["curl", "-sS", "--max-time", "20", "-D", "-",
                           f"http://{KEEL}/metrics"]), timeout=30, check=False)
    assert result.returncode == 0, result.stderr
    head, _, body = result.stdout.partition("\n\n")  # text mode: CRLF read as LF
    assert re.search(r"(?im)^content-type: text/plain; version=0\.0\.4", head), head
    samples, families = {}, []
    for family in text_string_to_metric_families(body):
        families.append(family.name)
        assert NAME.fullmatch(family.name)
        for s in family.samples:
            assert NAME.fullmatch(s.name)
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    assert len(families) == len(set(families)), "a family appears twice"
    return samples


def test_metrics_parse_and_move_with_traffic(web):
    before = scrape(web)
    # The stack's, one per interface, the console's and the web server's.
    for key in [("keel_net_udp_rx_total", ()), ("keel_console_dropped_bytes_total", ()),
                ("keel_net_link_arp_rx_requests_total", (("interface", "0"),)),
                ("keel_http_responses_total", (("class", "2xx"),)),
                ("keel_http_connections_open", ())]:
        assert key in before, key
    echo = ("keel_net_icmp4_rx_echo_requests_total", ())
    requests = ("keel_http_requests_total", ())
    ping = web.sh(f"ping -n -c 3 -W 5 {KEEL}", check=False)
    assert ping.returncode == 0, ping.stdout
    after = scrape(web)
    assert after[echo] == before[echo] + 3
    # This scrape and the one before: each a request, answered 2xx.
    assert after[requests] == before[requests] + 1
    ok = ("keel_http_responses_total", (("class", "2xx"),))
    assert after[ok] == before[ok] + 1
    assert after[("keel_net_tcp_passive_opens_total", ())] >= 2
    # The syslog sender's counters (syslog=): the access log line of the
    # first scrape went out as a message.
    sent = ("keel_syslog_sent_total", ())
    assert after[sent] >= before[sent] + 1
    assert after[("keel_syslog_drops_total", (("reason", "queue_full"),))] == 0
    # Memory in use: more than nothing, less than the whole (the image: -m 128M; the process:
    # a resident set well under that).
    memory = after[("keel_memory_in_use_bytes", ())]
    assert 256 * 1024 < memory < 128 << 20, memory
