"""`keel demo dmz` (issue 23): the CETIC study's DMZ for real, examples/web and examples/dns
behind the router and the firewall image, all under QEMU. From the outside namespace the demo
resolves the web server's name, fetches its page, uses its REST API directly and through the
firewall's published port, and meets a blocked TCP and UDP port; this checks each answer.
`--libvirt` (issue 21): the same guests as libvirt domains on libvirt networks, the same
answers, and no domain, network, bridge or namespace left after it ends or is stopped."""
import json
import os
import re
import signal
import subprocess

from conftest import ROOT
from libvirt_host import libvirtd, virsh  # noqa: F401 (libvirtd: a fixture)

DEMO = os.path.join(ROOT, "examples", "firewall", "dmz_demo.py")


def steps(output):
    """{step title: [answer lines]} from the demo's `dmz: TITLE`, `$ command`, `-> answer` lines,
    and the firewall's console lines under "the firewall's console"."""
    found, title = {}, None
    for line in output.splitlines():
        if line.startswith("dmz: "):
            title = line[len("dmz: "):]
            found[title] = []
        elif title and line.strip().startswith(("->", "|")):
            found[title].append(line.strip()[2:].strip())
    return found


def answer(found, prefix):
    titles = [t for t in found if t.startswith(prefix)]
    assert len(titles) == 1, f"no single step '{prefix}' in {list(found)}"
    return found[titles[0]]


def test_the_dmz_resolves_serves_translates_and_blocks():
    result = subprocess.run(["/usr/bin/python3", DEMO], capture_output=True, text=True, timeout=1200)
    check_answers(result)


def check_answers(result):
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found = steps(result.stdout)
    assert answer(found, "rules pushed") == [] and "loaded" in result.stdout
    assert answer(found, "allowed: DNS (UDP)") == ["172.16.0.10"]
    soa = answer(found, "allowed: DNS over TCP")
    assert len(soa) == 1 and soa[0].split()[:3] == ["ns.dmz.test.", "hostmaster.dmz.test.", "2026112701"]
    assert answer(found, "allowed: HTTP to www.dmz.test") == ["<title>Keel</title>"]
    created = json.loads(answer(found, "allowed: the REST API")[0])
    assert created == {"id": created["id"], "name": "demo"}
    assert json.loads(answer(found, "translated:")[0]) == [created]
    assert "timed out" in answer(found, "blocked: TCP")[0]
    assert any("timed out" in line for line in answer(found, "blocked: UDP"))
    assert "ttl=62" in answer(found, "allowed: ping")[0]  # two routers on the way
    console = answer(found, "the firewall's console")
    assert any(line.startswith("dmz blocked:") and "DPT=22" in line for line in console), console
    assert any(line.startswith("dmz blocked:") and "PROTO=UDP" in line and "DPT=9" in line for line in console)


def defined():
    """The names of every libvirt domain and network, defined or running."""
    return (set(virsh("list", "--all", "--name").stdout.split()),
            set(virsh("net-list", "--all", "--name").stdout.split()))


def leftovers(pid):
    """What the demo with this pid would have made, if it is still there."""
    bridges = [f"kd{n}{pid}" for n in "omd"] + [f"kdc{pid}"]
    names = virsh("list", "--all", "--name").stdout + virsh("net-list", "--all", "--name").stdout
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return ([b for b in bridges if os.path.exists(f"/sys/class/net/{b}")]
            + re.findall(rf"keel-dmz-{pid}-\S+", names)
            + re.findall(rf"keel-dmz-out-{pid}-\S+", namespaces))


def test_the_dmz_on_libvirt_answers_the_same_and_is_undefined_after(libvirtd):
    before = defined()
    result = subprocess.run(["/usr/bin/python3", DEMO, "--libvirt"], capture_output=True, text=True,
                            timeout=1200)
    check_answers(result)
    started = re.findall(r"dmz: libvirt domain keel-dmz-(\d+)-(\w+) started", result.stdout)
    assert sorted(name for _, name in started) == ["dns", "firewall", "router", "web"]
    assert "undefined 4 domains and 3 networks" in result.stdout
    assert defined() == before
    assert leftovers(started[0][0]) == []


def test_the_dmz_on_libvirt_stopped_midway_leaves_nothing(libvirtd):
    before = defined()
    demo = subprocess.Popen(["/usr/bin/python3", DEMO, "--libvirt"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output = ""
        for line in demo.stdout:  # the first domain is defined and started, the rest not yet
            output += line
            if "dmz: libvirt domain" in line:
                break
        assert "dmz: libvirt domain" in output, output
        demo.send_signal(signal.SIGTERM)
        output += demo.communicate(timeout=300)[0]
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
    assert demo.returncode != 0 and "interrupted; what the demo started was stopped" in output, output
    assert defined() == before
    assert leftovers(demo.pid) == []
