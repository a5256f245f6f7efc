"""`keel-fw stats RULES PACKETS`: the distinct cache lines and 4 KiB pages of the tables each
lookup reads (runtime/touches.hpp, compiled into keel-fw only; docs/decisions/0065). Host only."""
import ipaddress
import random

from nft_helpers import keelfw

FORWARD = "kind=filter hook=forward"


def network(address, length):
    return str(ipaddress.ip_network(f"{address}/{length}", strict=False))


def stats(tmp_path, rules, packets):
    (tmp_path / "rules.fw").write_text(rules)
    (tmp_path / "packets.txt").write_text("".join(f"{FORWARD} {p}\n" for p in packets))
    out = {}
    for line in keelfw("stats", str(tmp_path / "rules.fw"), str(tmp_path / "packets.txt")).splitlines():
        words = line.split()
        if words[0] == "pool":
            out[f"pool {words[1]}"] = (float(words[3]), float(words[5]))
        else:
            out[words[0]] = float(words[1])
    return out


def test_a_lookup_reads_its_partition_probe_bucket_entry_and_rule(tmp_path):
    rules = "chain c hook forward policy accept {\n  ip saddr 10.0.0.1 drop\n  ip saddr 10.0.0.2 drop\n}\n"
    hit = "proto=6 saddr=10.0.0.1 daddr=10.9.9.9 sport=1 dport=2"
    miss = "proto=6 saddr=10.7.7.7 daddr=10.9.9.9 sport=1 dport=2"
    s = stats(tmp_path, rules, [hit, miss])
    assert s["lookups"] == 2
    # The family's dispatch (decision 0138), partition, probe, table, bucket offsets: both; the
    # bucket's entry and the rule: the hit only.
    assert (s["lines_mean"], s["lines_max"]) == (6, 7)
    assert (s["pages_mean"], s["pages_max"], s["blob_pages"]) == (1, 1, 1)
    assert s["pool rules"] == (0.5, 0.5)


def test_tree_lookups_count_lines_and_pages(tmp_path):
    rnd = random.Random(7)
    lines = []
    for _ in range(400):  # 5-tuples of many shapes: the compiler builds a decision tree
        src = f"10.{rnd.randrange(4)}.{rnd.randrange(256)}.{rnd.randrange(256)}"
        dst = f"172.16.{rnd.randrange(256)}.{rnd.randrange(256)}"
        src, dst = network(src, rnd.choice([16, 20, 24, 28, 32])), network(dst, rnd.choice([12, 16, 22, 24, 30]))
        low = rnd.randrange(1, 1024)
        lines.append(f"  ip saddr {src} ip daddr {dst} tcp dport {low}-{low + rnd.randrange(3)} drop")
    rules = "chain c hook forward policy accept {\n" + "\n".join(lines) + "\n}\n"
    packets = [f"proto=6 saddr=10.{rnd.randrange(4)}.{rnd.randrange(256)}.9 "
               f"daddr=172.16.{rnd.randrange(256)}.{rnd.randrange(256)} sport=5 dport={rnd.randrange(1, 1024)}"
               for _ in range(300)]
    s = stats(tmp_path, rules, packets)
    assert s["trees"] >= 1
    assert 1 <= s["pages_mean"] <= s["lines_mean"] and s["pages_p99"] <= s["pages_max"]
    assert s["pages_all"] <= s["blob_pages"]
    lines_of_octets, _ = s["pool leaf_octets"]
    assert lines_of_octets > 0 and round(lines_of_octets * s["lookups"]) % 4 == 0  # octets: 4 lines
    assert s["pool trees"][0] > 0 and s["pool tree_roots"][0] > 0


def test_without_packets_stats_prints_the_tables_only(tmp_path):
    (tmp_path / "rules.fw").write_text("chain c hook input policy drop {\n  tcp dport 22 accept\n}\n")
    out = keelfw("stats", str(tmp_path / "rules.fw"))
    assert out.startswith("rules 1\n") and "lines_mean" not in out
