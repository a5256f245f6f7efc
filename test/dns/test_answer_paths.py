"""The pre-rendered answers (decision 0082) against the computed ones: for
every query, the server with pre-rendering must send the same octets as the
server without it (a property of the answer path, checked on the host by
dns_answer_paths, test/dns/answer_paths.cpp, from an IPv4 and an IPv6 client).

The queries are the differential test's (queries.py) and, for every name of
each zone, its types and others at UDP sizes none, 512, 1232 and 4096 (with
and without DO) and in mixed case; the zones are the features set, the
truncation zone and generated zones with large RRsets (zonegen.big_rrsets),
served with our EDNS payload at 1232 and at 4096. Answers larger than the
client's size are where the two paths once disagreed: the pre-rendered path
denied the RRset (NODATA) where the computed one set TC.
Signed zones (NSEC and NSEC3, signer.py) are asked with DO on and off.

    /usr/bin/python3 -m pytest -v test/dns/test_answer_paths.py
"""
import os
import random
import shutil
import subprocess

import pytest

import queries
import signer
import zonegen

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(os.environ.get("KEEL_HOST_BUILD", os.path.join(ROOT, "build", "host")),
                    "test", "dns", "dns_answer_paths")

SIZES = (None, 512, 1232, 4096)
TYPES = [1, 28, 16, 15, 2, 6, 5, 12, 33, 35, 39, 43, 44, 52, 99, 257, 255, 65280, 65534, 46, 47, 48, 0, 41]
SEEDS = range(1, 9)


def variants(fqdns, rng):
    """Each name with each type, at every size, DO on and off, some in mixed case."""
    out = []
    for fqdn in fqdns:
        for qtype in TYPES:
            for size in SIZES:
                for do in ((False, True) if size is not None else (False,)):
                    shown = queries.mixed_case(fqdn, rng) if rng.random() < 0.3 else fqdn
                    out.append(queries.query(shown, qtype, flags=rng.choice([0, 0x0100]), edns=size, do=do,
                                             rng=rng))
    return out


def features_set():
    zones = dict(zonegen.FEATURES, **zonegen.TRUNCATION)
    asked = [wire for _, wire in queries.features_queries() + queries.truncation_queries()]
    names = set()
    for origin, text in zones.items():
        for line in text.splitlines():
            words = line.split()
            if not words or line[0].isspace() or words[0].startswith(("$", ";")):
                continue
            owner = words[0]
            names.add(origin + "." if owner == "@" else owner if owner.endswith(".") else f"{owner}.{origin}.")
    fqdns = sorted(names) + [f"below.x.{n}" for n in sorted(names)]
    return zones, asked + variants(fqdns, random.Random(1))


def generated_set(seed):
    text, names, cuts, dnames = zonegen.generated_zone(seed, big=12)
    zones = {"gen.test": text, "example.net": zonegen.FEATURES["example.net"]}
    asked = [wire for _, wire in queries.generated_queries(names, cuts, dnames, seed)]
    fqdns = ["gen.test."] + [f"{n}.gen.test." for n in names] + \
        [f"{p}.{n}.gen.test." for n in cuts + dnames for p in ("x", "ns0", "a.b")]
    return zones, asked + variants(fqdns, random.Random(seed))


def check(zones, asked, folder, payload):
    zonegen.write_zone_set(folder, zones)
    queries_file = os.path.join(folder, "queries.hex")
    with open(queries_file, "w") as f:
        f.write("".join(wire.hex() + "\n" for wire in asked))
    args = [TOOL, "--payload", str(payload), queries_file,
            *(f"{name}={os.path.join(folder, name + '.zone')}" for name in sorted(zones))]
    result = subprocess.run(args, capture_output=True, text=True, timeout=600)
    print(result.stdout.splitlines()[-1] if result.stdout else result.stderr)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    # The property means something only if both paths were taken, and answers were truncated.
    summary = dict(item.rsplit(" ", 1) for item in result.stdout.splitlines()[-1].split(", "))
    assert int(summary["pre-rendered"]) > len(asked) // 4
    assert int(summary["truncated"]) > 0


pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="build the host tree first (dns_answer_paths)")


@pytest.mark.parametrize("payload", [1232, 4096])
def test_features_zones_both_paths_agree(payload, tmp_path):
    zones, asked = features_set()
    check(zones, asked, str(tmp_path), payload)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("payload", [1232, 4096])
def test_generated_zones_both_paths_agree(seed, payload, tmp_path):
    zones, asked = generated_set(seed)
    check(zones, asked, str(tmp_path), payload)


@pytest.mark.skipif(not (shutil.which("ldns-signzone") and shutil.which("knotd")), reason="needs ldnsutils and knot")
@pytest.mark.parametrize("denial", ["nsec", "nsec3"])
def test_signed_zones_both_paths_agree(denial, tmp_path):
    """Signed zones (signer.py), every query with DO on and off: with DO the
    signed answers take the computed path in both servers; without it the
    pre-rendered answers must still be the computed ones."""
    text, names, cuts, dnames = zonegen.generated_zone(3, big=12)
    sign = signer.sign_nsec if denial == "nsec" else signer.sign_nsec3
    signed, _ = sign("gen.test", text, str(tmp_path / "sign"))
    zones = {"gen.test": signed}
    asked = [wire for _, wire in queries.generated_queries(names, cuts, dnames, 3)]
    fqdns = ["gen.test."] + [f"{n}.gen.test." for n in names] + [f"x.{n}.gen.test." for n in cuts + dnames]
    check(zones, asked + variants(fqdns, random.Random(3)), str(tmp_path), 1232)
