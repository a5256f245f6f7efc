"""One differential run: every query to every server (prober.py inside the
namespace), then each Keel response compared with each reference's."""
import collections
import json
import os
import subprocess

import compare
import differences

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def probe(ns, work, zones, queries, servers, timeout=900, prober="prober.py"):
    """servers: {name: "address:port"}. Returns {name: [hex or None per query]}.
    `prober`: prober.py (UDP) or tcp_prober.py."""
    queries_file = os.path.join(work, "queries.json")
    results_file = os.path.join(work, "results.json")
    with open(queries_file, "w") as f:
        json.dump([[label, wire.hex()] for label, wire in queries], f)
    args = [PYTHON, os.path.join(HERE, prober), "--ready", ",".join(zones), queries_file, results_file,
            *(f"{name}={where}" for name, where in servers.items())]
    result = subprocess.run(ns.exec_args(args), capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"prober failed: {result.stdout[-3000:]}{result.stderr[-3000:]}")
    with open(results_file) as f:
        return json.load(f)


REFERENCE_RULES = {"nsd": differences.NSD, "knot": differences.KNOT}


def compare_runs(queries, results, keel, references, zones):
    """Keel's responses against each reference's: {reference: (named Counter, [unexplained text])}."""
    origins = [z.lower().rstrip(".") + "." for z in zones]
    report = {}
    for ref in references:
        named, unexplained = collections.Counter(), []
        for i, (label, wire) in enumerate(queries):
            k, r = compare.summarize(results[keel][i]), compare.summarize(results[ref][i])
            if not compare.differing_fields(k, r):
                named["same"] += 1
                continue
            name = differences.classify(REFERENCE_RULES[ref], wire, k, r, origins)
            if name is None:
                unexplained.append(compare.describe(label, wire.hex(), k, r, ref))
            else:
                named[name] += 1
        report[ref] = (named, unexplained)
    return report


def documented_names(doc_path):
    with open(doc_path) as f:
        return f.read()
