// The loader trusts nothing: every truncation and corruption is rejected with a status.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

#include "runtime/blob_format.hpp"
#include "test_helpers.hpp"

namespace keel::firewall::testing {
namespace {

std::vector<uint8_t> sample_blob() {
  std::string text =
      "interface e0 { } define b = { 10.0.0.1, 10.0.0.2, 10.0.0.3 }\nchain f hook input policy "
      "drop {\n";
  for (int i = 0; i < 100; ++i) text += "  ip saddr 10.1.0." + std::to_string(i) + " drop\n";
  for (int i = 0; i < 20; ++i) text += "  tcp dport " + std::to_string(1000 + i) + " accept\n";
  text += "  iif e0 ip saddr $b udp dport 1-100 log prefix \"x\" accept\n  ttl < 3 reject\n}\n";
  CompileResult r = compile_source(text, "t.fw");
  EXPECT_TRUE(r.ruleset);
  return encode_tables(build_tables(*r.ruleset));
}

// Rewrites the head's checksum so corruption reaches the structural checks.
void reseal(std::vector<uint8_t>& blob) {
  if (blob.size() < blob::kHeadSize) return;
  const uint64_t sum = blob::head_checksum(blob.data());
  std::memcpy(blob.data() + offsetof(blob::Header, checksum), &sum, sizeof(sum));
}

// A copy of `blob` on pages of its own, as keel_firewall_rules() places it in an image.
struct PageAlignedBlob {
  static constexpr size_t kPage = 4096;
  explicit PageAlignedBlob(std::span<const uint8_t> blob)
      : size(blob.size()),
        bytes(static_cast<uint8_t*>(std::aligned_alloc(kPage, (size + kPage - 1) / kPage * kPage)),
              &std::free) {
    std::memcpy(bytes.get(), blob.data(), size);
  }
  std::span<const uint8_t> span() const { return {bytes.get(), size}; }
  size_t size;
  std::unique_ptr<uint8_t, decltype(&std::free)> bytes;
};

TEST(Loader, RoundTrip) {
  Classifier c;
  ASSERT_EQ(c.load(sample_blob()), LoadStatus::ok);
  Packet p;
  p.proto = kProtoTcp;
  p.dport = 1010;
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::accept);
}

TEST(Loader, RejectsHeaderProblems) {
  std::vector<uint8_t> blob = sample_blob();
  Classifier c;
  EXPECT_EQ(c.load({}), LoadStatus::truncated);
  std::vector<uint8_t> bad = blob;
  bad[0] = 'X';
  EXPECT_EQ(c.load(bad), LoadStatus::bad_magic);
  bad = blob;
  bad[8] = 9;
  EXPECT_EQ(c.load(bad), LoadStatus::bad_version);
  bad = blob;
  bad[blob::kDirectoryOffset + 3] ^= 1;  // the directory is under the head's checksum
  EXPECT_EQ(c.load(bad), LoadStatus::bad_checksum);
  bad = blob;
  bad[blob::kChainsOffset] ^= 1;  // so are the chains
  EXPECT_EQ(c.load(bad), LoadStatus::bad_checksum);
  bad = blob;
  bad.push_back(0);
  EXPECT_EQ(c.load(bad), LoadStatus::trailing_bytes);
}

// Every pool starts aligned, after the head, inside the blob and on no other pool.
TEST(Loader, RejectsBadDirectories) {
  const std::vector<uint8_t> blob = sample_blob();
  auto with = [&](uint32_t pool, auto change) {
    std::vector<uint8_t> bad = blob;
    blob::PoolRef ref;
    uint8_t* at = bad.data() + blob::kDirectoryOffset + pool * sizeof(ref);
    std::memcpy(&ref, at, sizeof(ref));
    change(ref);
    std::memcpy(at, &ref, sizeof(ref));
    reseal(bad);
    return Classifier().load(bad);
  };
  const uint32_t partitions = 1, probes = 2, keys = 8, rules = 15;  // for_each_pool's order
  EXPECT_EQ(with(keys, [](blob::PoolRef& r) { r.offset += 4; }), LoadStatus::bad_size);
  EXPECT_EQ(with(keys, [](blob::PoolRef& r) { r.offset = 0; }), LoadStatus::bad_size);
  EXPECT_EQ(with(rules, [&](blob::PoolRef& r) { r.count = blob.size(); }), LoadStatus::bad_size);
  EXPECT_EQ(with(rules, [](blob::PoolRef& r) { r.count = ~uint64_t{0} / 2; }),
            LoadStatus::bad_size);
  EXPECT_EQ(with(blob::kStringBytes, [&](blob::PoolRef& r) { r.offset = blob.size() + 64; }),
            LoadStatus::bad_size);
  EXPECT_EQ(with(blob::kStringOffsets, [](blob::PoolRef& r) { r.count = 1; }),
            LoadStatus::bad_size);  // no strings[0]
  // The pools may lie in any order (the compiler's is blob::kPlacement), but never overlap.
  blob::PoolRef probes_ref;
  std::memcpy(&probes_ref, blob.data() + blob::kDirectoryOffset + probes * sizeof(probes_ref),
              sizeof(probes_ref));
  ASSERT_GT(probes_ref.count, 0u);
  EXPECT_EQ(with(partitions, [&](blob::PoolRef& r) { r.offset = probes_ref.offset; }),
            LoadStatus::bad_size);
}

// The descriptors every lookup reads (partitions, probes, trees...) share the head's page.
TEST(Loader, PlacesTheDescriptorsFirst) {
  const std::vector<uint8_t> blob = sample_blob();
  blob::PoolRef refs[blob::kPoolCount];
  std::memcpy(refs, blob.data() + blob::kDirectoryOffset, sizeof(refs));
  for (uint32_t pool : {0u, 1u, 2u, 3u, 4u, 11u}) EXPECT_LE(refs[pool].offset, refs[5].offset);
  EXPECT_LT(refs[11].offset + refs[11].count * sizeof(TreeTable), 4096u);
}

// The tables compiled into an image are used where they lie: no copy, and the same checks.
TEST(Loader, MapsInPlace) {
  const std::vector<uint8_t> blob = sample_blob();
  const PageAlignedBlob placed(blob);
  Classifier c;
  ASSERT_EQ(c.map(placed.span()), LoadStatus::ok);
  const uint8_t* first = placed.span().data();
  const auto* rules = reinterpret_cast<const uint8_t*>(c.tables().rules.data());
  EXPECT_TRUE(rules > first && rules < first + placed.size);  // inside the blob: not copied
  Packet p;
  p.proto = kProtoTcp;
  p.dport = 1010;
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::accept);
  // A blob that does not start on a cache line is refused by map and copied by load.
  std::vector<uint8_t> shifted(blob.size() + 1);
  std::memcpy(shifted.data() + 1, blob.data(), blob.size());
  const std::span<const uint8_t> unaligned(shifted.data() + 1, blob.size());
  EXPECT_EQ(Classifier().map(unaligned), LoadStatus::misaligned);
  EXPECT_EQ(Classifier().load(unaligned), LoadStatus::ok);
}

// A corrupted blob compiled into an image is refused, with a status that says why, and a
// classifier that refused keeps the rules it had.
TEST(Loader, RefusesACorruptedMappedBlob) {
  const std::vector<uint8_t> blob = sample_blob();
  Classifier c;
  const PageAlignedBlob good(blob);
  ASSERT_EQ(c.map(good.span()), LoadStatus::ok);
  std::vector<uint8_t> bad = blob;
  bad[blob::kDirectoryOffset + 17] ^= 0x40;  // a pool's offset, unsealed
  const PageAlignedBlob corrupted(bad);
  EXPECT_EQ(c.map(corrupted.span()), LoadStatus::bad_checksum);
  EXPECT_STREQ(to_string(LoadStatus::bad_checksum), "checksum mismatch");
  reseal(bad);
  const PageAlignedBlob resealed(bad);
  EXPECT_EQ(c.map(resealed.span()), LoadStatus::bad_size);
  EXPECT_STREQ(to_string(LoadStatus::bad_size), "inconsistent table sizes");
  Packet p;
  p.proto = kProtoTcp;
  p.dport = 1010;
  EXPECT_EQ(c.classify(ChainKind::filter, Hook::input, p).action, Action::accept);
  const auto* rules = reinterpret_cast<const uint8_t*>(c.tables().rules.data());
  EXPECT_TRUE(rules > good.span().data() && rules < good.span().data() + good.size);
}

TEST(Loader, RejectsEveryTruncation) {
  std::vector<uint8_t> blob = sample_blob();
  Classifier c;
  for (size_t n = 0; n < blob.size(); ++n) {
    EXPECT_NE(c.load(std::span(blob.data(), n)), LoadStatus::ok) << n;
  }
}

TEST(Loader, CorruptPayloadNeverCrashesAndIsMostlyRejected) {
  std::vector<uint8_t> blob = sample_blob();
  std::mt19937 rng(7);
  size_t rejected = 0;
  constexpr int kTrials = 3000;
  for (int i = 0; i < kTrials; ++i) {
    std::vector<uint8_t> bad = blob;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) {
      size_t at = sizeof(blob::kMagic) + rng() % (bad.size() - sizeof(blob::kMagic));
      bad[at] = static_cast<uint8_t>(rng());
    }
    reseal(bad);
    Classifier c;
    if (c.load(bad) != LoadStatus::ok) {
      ++rejected;
      continue;
    }
    // Accepted corruption (e.g. a changed address) must still be safe to use.
    std::mt19937 prng(i);
    for (int k = 0; k < 50; ++k) {
      Packet p;
      p.saddr = static_cast<uint32_t>(prng());
      p.dport = static_cast<uint16_t>(prng());
      p.proto = static_cast<uint8_t>(prng());
      p.iif = static_cast<uint8_t>(prng());
      p.ttl = static_cast<uint8_t>(prng());
      c.classify(ChainKind::filter, Hook::input, p);
    }
  }
  EXPECT_GT(rejected, 0u);
}

// Packed tuple entries are validated field by field before a lookup may trust them.
TEST(Loader, RejectsBadPackedTupleEntries) {
  CompileResult r = compile_source(
      "chain f hook forward policy accept {\n  ip saddr 10.0.0.0/8 tcp dport 80 drop\n"
      "  ip saddr 11.0.0.0/8 tcp dport 80 drop\n  ip daddr 10.1.2.0/24 udp sport 1-9 accept\n}\n",
      "t.fw");
  ASSERT_TRUE(r.ruleset);
  const Tables good = build_tables(*r.ruleset);
  ASSERT_FALSE(good.tuple_entries.empty());
  Classifier c;
  ASSERT_EQ(c.adopt(good), LoadStatus::ok);
  auto with = [&](auto change) {
    Tables t = good;
    change(t);
    return Classifier().adopt(std::move(t));
  };
  EXPECT_EQ(with([](Tables& t) { t.tuple_entries[0].rule = 99; }), LoadStatus::bad_index);
  EXPECT_EQ(with([](Tables& t) { t.tuple_entries[0].saddr_length = 33; }), LoadStatus::bad_size);
  EXPECT_EQ(with([](Tables& t) {
              t.tuple_entries[0].saddr_length = 8;
              t.tuple_entries[0].saddr = 0x0A000001u;
            }),
            LoadStatus::bad_order);
  EXPECT_EQ(
      with([](Tables& t) { t.tuple_entries[0].dport_lo = 2, t.tuple_entries[0].dport_hi = 1; }),
      LoadStatus::bad_order);
  EXPECT_EQ(with([](Tables& t) { t.tuples[0].format = static_cast<TupleFormat>(7); }),
            LoadStatus::bad_enum);
  EXPECT_EQ(with([](Tables& t) {
              t.tuples[0].entries_first = static_cast<uint32_t>(t.tuple_entries.size());
            }),
            LoadStatus::bad_index);
  EXPECT_EQ(with([](Tables& t) {  // two entries of one bucket out of rule order
              for (TupleTable& tt : t.tuples) {
                for (uint32_t b = 0; b + 1u < (1u << tt.bucket_bits) + 1; ++b) {
                  uint32_t lo = t.keys[tt.offsets_first + b], hi = t.keys[tt.offsets_first + b + 1];
                  if (hi - lo >= 2)
                    std::swap(t.tuple_entries[tt.entries_first + lo],
                              t.tuple_entries[tt.entries_first + lo + 1]);
                  if (hi - lo >= 2) return;
                }
              }
              t.tuple_entries[0].rule = 99;  // no bucket of two: fail anyway so the test notices
            }),
            LoadStatus::bad_order);
}

// Set tables: hash slots (rules, the empty key, the table's size) and interval pairs and index
// entries (order, rules, leaf and segment entries, bounds) are checked before a lookup trusts them.
TEST(Loader, RejectsCorruptSetTables) {
  std::string text = "chain f hook forward policy accept {\n";
  for (int i = 0; i < 100; ++i)
    text += "  ip saddr 10.2." + std::to_string(i * 7 % 256) + "." + std::to_string(i) + " drop\n";
  for (int i = 0; i < 100; ++i)
    text += "  ip daddr " + std::to_string(20 + i) + "." + std::to_string(i * 13 % 256) +
            ".0.0/16 accept\n";
  CompileResult r = compile_source(text + "}\n", "t.fw");
  ASSERT_TRUE(r.ruleset);
  const Tables good = build_tables(*r.ruleset);
  ASSERT_EQ(Classifier().adopt(good), LoadStatus::ok);
  size_t h = good.sets.size(), iv = good.sets.size();
  for (size_t i = 0; i < good.sets.size(); ++i) {
    if (good.sets[i].kind == SetKind::exact_hash) h = i;
    if (good.sets[i].kind == SetKind::intervals && good.sets[i].index_bits > 0) iv = i;
  }
  ASSERT_LT(h, good.sets.size());
  ASSERT_LT(iv, good.sets.size());
  auto with = [&](auto change) {
    Tables t = good;
    change(t, t.sets[h], t.sets[iv]);
    return Classifier().adopt(std::move(t));
  };
  auto used_slot = [](const Tables& t, const SetTable& s) {
    uint32_t i = 0;
    while (t.keys[s.first + 2 * i] == s.index_first) ++i;
    return s.first + 2 * i;
  };
  // Hash: the loader checks the table's size and bounds, not its slots (decision 0064); the
  // probe stops after every slot and answers no rule for a slot's rule outside the rules.
  auto lookup = [](const Tables& t, uint32_t saddr) {
    Classifier c;
    EXPECT_EQ(c.adopt(t), LoadStatus::ok);
    Packet p;
    p.saddr = saddr;
    return c.first_match(ChainKind::filter, Hook::forward, p);
  };
  {
    Tables t = good;
    const uint32_t slot = used_slot(t, t.sets[h]);
    const uint32_t key = t.keys[slot];
    ASSERT_NE(lookup(t, key), kNoRule);
    t.keys[slot + 1] = static_cast<uint32_t>(t.rules.size());  // a slot's rule past the rules
    EXPECT_EQ(lookup(t, key), kNoRule);
    t.keys[slot + 1] = 0xFFFFFFFEu;
    EXPECT_EQ(lookup(t, key), kNoRule);
  }
  {
    Tables t = good;  // no empty slot: a probe for an absent key still ends
    SetTable& s = t.sets[h];
    for (uint32_t i = 0; i < s.count; ++i)
      t.keys[s.first + 2 * i] = s.index_first + 1 + i, t.keys[s.first + 2 * i + 1] = 0;
    EXPECT_EQ(lookup(t, s.index_first), kNoRule);
    EXPECT_EQ(lookup(t, s.index_first + 1), 0u);
  }
  EXPECT_EQ(with([](Tables&, SetTable& s, SetTable&) { s.count = 3; }), LoadStatus::bad_size);
  EXPECT_EQ(with([](Tables& t, SetTable& s, SetTable&) {
              s.first = static_cast<uint32_t>(t.keys.size() - s.count);
            }),
            LoadStatus::bad_index);
  // Intervals and their index.
  EXPECT_EQ(with([](Tables& t, SetTable&, SetTable& s) {
              std::swap(t.keys[s.first + 2], t.keys[s.first + 4]);
            }),
            LoadStatus::bad_order);
  EXPECT_EQ(with([](Tables& t, SetTable&, SetTable& s) {
              t.keys[s.first + 3] = static_cast<uint32_t>(t.rules.size());
            }),
            LoadStatus::bad_index);
  EXPECT_EQ(with([](Tables& t, SetTable&, SetTable& s) {
              s.first = static_cast<uint32_t>(t.keys.size() - s.count);
            }),
            LoadStatus::bad_index);
  auto index_entry = [](const Tables& t, const SetTable& s, bool leaf) {
    uint32_t b = 0;
    while (((t.keys[s.index_first + b] & kSetIndexLeaf) != 0) != leaf) ++b;
    return s.index_first + b;
  };
  EXPECT_EQ(
      with([&](Tables& t, SetTable&, SetTable& s) { t.keys[index_entry(t, s, false)] = s.count; }),
      LoadStatus::bad_order);
  EXPECT_EQ(with([&](Tables& t, SetTable&, SetTable& s) {
              t.keys[index_entry(t, s, false)] = kSetIndexLeaf | 0;
            }),
            LoadStatus::bad_order);
  EXPECT_EQ(with([&](Tables& t, SetTable&, SetTable& s) { ++t.keys[index_entry(t, s, true)]; }),
            LoadStatus::bad_order);
  EXPECT_EQ(
      with([&](Tables& t, SetTable&, SetTable& s) {  // a leaf where a boundary crosses the bucket
        const uint32_t e = index_entry(t, s, false);
        t.keys[e] = set_index_leaf(t.keys[s.first + 2 * t.keys[e] + 1]);
      }),
      LoadStatus::bad_order);
  EXPECT_EQ(with([](Tables&, SetTable&, SetTable& s) { s.index_bits = 25; }), LoadStatus::bad_size);
  EXPECT_EQ(with([](Tables& t, SetTable&, SetTable& s) {
              s.index_first = static_cast<uint32_t>(t.keys.size()) - 4;
            }),
            LoadStatus::bad_index);
}

// Decision trees are checked line by line: split fields, exits forward only (no cycles) and
// inside the tree, walk depth, root references, leaf octet ranges and rule order in leaves.
TEST(Loader, RejectsCorruptTrees) {
  std::string text = "chain f hook forward policy accept {\n";
  for (int i = 0; i < 400; ++i) {
    const std::string third = i % 2 ? std::to_string(i % 13) + ".0/24" : "0.0/16";
    text += "  ip saddr 10." + std::to_string(i % 7) + "." + third + " tcp dport " +
            std::to_string(i % 50) + "-" + std::to_string(i % 50 + i % 9) +
            (i % 2 ? " accept\n" : " drop\n");
  }
  CompileResult r = compile_source(text + "}\n", "t.fw");
  ASSERT_TRUE(r.ruleset);
  const Tables good = build_tables(*r.ruleset);
  ASSERT_FALSE(good.trees.empty());
  ASSERT_EQ(Classifier().adopt(good), LoadStatus::ok);
  const TreeTable& tree = good.trees[0];
  ASSERT_GT(tree.lines_count, 2u);
  auto with = [&](auto change) {
    Tables t = good;
    change(t, t.tree_lines.data() + t.trees[0].lines_first);
    return Classifier().adopt(std::move(t));
  };
  // The first exit of any line that is a leaf of two octets or more.
  auto two_octet_leaf = [&](TreeLine* lines) -> uint32_t& {
    for (uint32_t n = 0;; ++n)
      for (uint32_t& exit : lines[n].exit)
        if ((exit & kTreeLeafRef) && leaf_count(exit) >= 2) return exit;
  };
  auto line_exit = [&](TreeLine* lines) -> uint32_t& {  // an exit to a line
    for (uint32_t n = 0;; ++n)
      for (uint32_t& exit : lines[n].exit)
        if (!(exit & kTreeLeafRef)) return exit;
  };
  EXPECT_EQ(with([](Tables&, TreeLine* l) { l[0].fields |= 5u << 3; }), LoadStatus::bad_enum);
  EXPECT_EQ(with([](Tables&, TreeLine* l) { l[0].fields |= 1u << 21; }), LoadStatus::bad_enum);
  EXPECT_EQ(with([&](Tables&, TreeLine* l) { line_exit(l) = 0; }),
            LoadStatus::bad_index);  // backwards: a cycle
  EXPECT_EQ(with([&](Tables&, TreeLine* l) { line_exit(l) = tree.lines_count; }),
            LoadStatus::bad_index);
  EXPECT_EQ(
      with([&](Tables& t, TreeLine*) { t.tree_roots[t.trees[0].roots_first] = tree.lines_count; }),
      LoadStatus::bad_index);
  EXPECT_EQ(with([](Tables& t, TreeLine*) { t.trees[0].root_bits = kMaxTreeRootBits + 1; }),
            LoadStatus::bad_size);
  EXPECT_EQ(with([](Tables& t, TreeLine*) { t.trees[0].root_field = kTupleFields; }),
            LoadStatus::bad_enum);
  EXPECT_EQ(with([](Tables& t, TreeLine*) {  // more root references than the pool holds
              t.trees[0].root_field = 0;
              t.trees[0].root_bits = kMaxTreeRootBits;
            }),
            LoadStatus::bad_index);
  EXPECT_EQ(with([&](Tables&, TreeLine* l) {  // a leaf's octets past the tree's
              uint32_t& leaf = two_octet_leaf(l);
              leaf = leaf_ref(tree.octets_count - 1, leaf_count(leaf));
            }),
            LoadStatus::bad_index);
  EXPECT_EQ(with([&](Tables& t, TreeLine* l) {
              t.leaf_octets[t.trees[0].octets_first + leaf_first(two_octet_leaf(l))].rule[1] =
                  static_cast<uint32_t>(t.rules.size());
            }),
            LoadStatus::bad_index);
  EXPECT_EQ(with([&](Tables& t, TreeLine* l) {  // two lanes of an octet out of rule order
              uint32_t* rule =
                  t.leaf_octets[t.trees[0].octets_first + leaf_first(two_octet_leaf(l))].rule;
              ASSERT_NE(rule[0], rule[7]);  // equal rules are in order either way
              std::swap(rule[0], rule[7]);
            }),
            LoadStatus::bad_order);
  EXPECT_EQ(
      with([&](Tables& t, TreeLine* l) {  // a leaf's second octet before its first in rule order
        LeafOctet* o =
            t.leaf_octets.data() + t.trees[0].octets_first + leaf_first(two_octet_leaf(l));
        ASSERT_LT(o[0].rule[7], o[1].rule[0]);
        std::swap(o[0], o[1]);
      }),
      LoadStatus::bad_order);
  EXPECT_EQ(with([](Tables& t, TreeLine*) {
              t.trees[0].octets_first = static_cast<uint32_t>(t.leaf_octets.size());
            }),
            LoadStatus::bad_index);
  EXPECT_EQ(with([](Tables& t, TreeLine*) {
              t.trees[0].lines_first = static_cast<uint32_t>(t.tree_lines.size());
            }),
            LoadStatus::bad_index);
  EXPECT_EQ(with([](Tables& t, TreeLine*) { t.trees.clear(); }),
            LoadStatus::bad_index);  // probes name a tree
  // A chain of lines one deeper than a walk may go, each line's exits the next line.
  EXPECT_EQ(with([](Tables& t, TreeLine*) {
              TreeTable& deep = t.trees[0];
              deep.root_bits = 0;
              deep.roots_first = static_cast<uint32_t>(t.tree_roots.size());
              t.tree_roots.push_back(0);
              deep.lines_first = static_cast<uint32_t>(t.tree_lines.size());
              deep.lines_count = kMaxTreeLines + 1;
              for (uint32_t n = 0; n < deep.lines_count; ++n) {
                TreeLine line;
                for (uint32_t& exit : line.exit)
                  exit = n + 1 < deep.lines_count ? n + 1 : leaf_ref(0, 0);
                t.tree_lines.push_back(line);
              }
            }),
            LoadStatus::bad_size);
}

}  // namespace
}  // namespace keel::firewall::testing
