"""Keel's DNS appliance against NSD and Knot, on the same zone files, in a
network namespace this test creates (run as root, Debian packages nsd, knot,
python3-dnspython):

    /usr/bin/python3 -m pytest -v test/dns/test_differential.py

examples/dns is built for the Linux platform with each zone set compiled in
and runs on TAP devices through Keel's own network stack, twice: with its
pre-rendered answers and without (dns_prerender=0), so both answer paths are
compared. The `truncation` zone set holds RRsets larger than the clients' UDP
sizes (a big apex TXT set, many AAAA), asked at every size: TC with an empty
answer, never a denial. Thousands of generated queries per zone set (queries.py) go to all
servers; the responses are compared section by section with dnspython.
Every difference must be one of the named ones in differences.py, and each
of those must be described in docs/dns.md.
"""
import os
import shutil

import pytest

import appliance
import differential
import refservers
import queries
import zonegen

ROOT = appliance.ROOT
DOC = os.path.join(ROOT, "docs", "dns.md")

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP"),
    pytest.mark.skipif(not (shutil.which("nsd") and shutil.which("knotd")), reason="needs nsd and knot"),
]


def zone_set(name, folder):
    if name == "features":
        return zonegen.write_zone_set(folder, zonegen.FEATURES), queries.features_queries()
    if name == "truncation":
        zones = zonegen.write_zone_set(folder, dict(zonegen.TRUNCATION, **zonegen.FORMS))
        return zones, queries.truncation_queries() + queries.forms_queries()
    text, names, cuts, dnames = zonegen.generated_zone(seed=7)
    zones = zonegen.write_zone_set(folder, {"gen.test": text, "example.net": zonegen.FEATURES["example.net"]})
    return zones, queries.generated_queries(names, cuts, dnames, seed=7)


@pytest.mark.parametrize("name", ["features", "generated", "truncation"])
def test_answers_like_nsd_and_knot(name, tmp_path):
    zones_dir = str(tmp_path / "zones")
    zones, asked = zone_set(name, zones_dir)
    program = appliance.build(zones_dir, "linux")
    ns = appliance.Namespace(taps=2)
    started = []
    try:
        for kind, port in (("nsd", 5301), ("knot", 5302)):
            started.append(refservers.Reference(kind, str(tmp_path), zones_dir, zones, "127.0.0.1", port,
                                                ns.exec_args))
        started.append(appliance.Appliance(ns, program=program, tap=0))
        started.append(appliance.Appliance(ns, program=program, tap=1, append="dns_prerender=0"))
        servers = {"keel": f"{appliance.guest_ip(0)}:53", "keel-unrendered": f"{appliance.guest_ip(1)}:53",
                   "nsd": "127.0.0.1:5301", "knot": "127.0.0.1:5302"}
        results = differential.probe(ns, str(tmp_path), zones, asked, servers)
    finally:
        for thing in reversed(started):
            thing.close()
        ns.close()

    assert results["keel"] == results["keel-unrendered"], "pre-rendered answers differ from computed ones"
    answered = sum(1 for r in results["keel"] if r is not None)
    assert answered > 0.8 * len(asked), f"Keel answered only {answered} of {len(asked)}"
    report = differential.compare_runs(asked, results, "keel", ["nsd", "knot"], zones)
    with open(DOC) as f:
        doc = f.read()
    failures = []
    for ref, (named, unexplained) in report.items():
        print(f"\n{name}: {len(asked)} queries against {ref}: " +
              ", ".join(f"{k} {v}" for k, v in sorted(named.items())))
        failures += unexplained[:20]
        for difference in named:
            if difference != "same" and f"`{difference}`" not in doc:
                failures.append(f"difference {difference} with {ref} is not described in docs/dns.md")
    assert not failures, f"{len(failures)} unexplained differences:\n" + "\n".join(failures)
