"""`keel demo dmz` (issue 23): the CETIC study's DMZ for real, examples/web and examples/dns
behind the router and the firewall image, all under QEMU. From the outside namespace the demo
resolves the web server's name, fetches its page, uses its REST API directly and through the
firewall's published port, and meets a blocked TCP and UDP port; this checks each answer."""
import json
import os
import subprocess

from conftest import ROOT

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
