// keel-fw: the firewall rule compiler.
//   keel-fw check RULES.fw                 report errors (file:line:column) and exit 1 on any
//   keel-fw compile RULES.fw -o TABLES.bin write classifier tables for a Keel image
//   keel-fw nft RULES.fw                   print an equivalent nftables ruleset (nft -f)
//   keel-fw classify TABLES.bin            read packet lines on stdin, print verdicts
//                                          (ACTION policy | ACTION rule ID [to NAT-TARGET])
//   keel-fw stats RULES.fw [PACKETS]       print table statistics; with packet lines (a file, or
//                                          - for stdin), the lines and pages each lookup reads
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "keel/firewall/classifier.hpp"
#include "keel/firewall/compiler.hpp"
#include "lookup_touches.hpp"
#include "packet_text.hpp"

using namespace keel::firewall;

namespace {
constexpr int kExitUsage = 2;

int usage() {
  std::cerr << "usage: keel-fw check RULES.fw\n"
               "       keel-fw compile RULES.fw -o TABLES.bin\n"
               "       keel-fw nft RULES.fw\n"
               "       keel-fw classify TABLES.bin < packets\n"
               "       keel-fw stats RULES.fw [PACKETS]\n";
  return kExitUsage;
}

// A snat or dnat rule's target as in the rules file: ADDRESS[:PORT[-PORT]].
std::string nat_target(const RuleInfo& rule) {
  std::string text = ipv4_text(rule.nat_address);
  if (rule.nat_port_lo || rule.nat_port_hi) {
    text += ":" + std::to_string(rule.nat_port_lo);
    if (rule.nat_port_hi != rule.nat_port_lo) text += "-" + std::to_string(rule.nat_port_hi);
  }
  return text;
}

std::optional<Ruleset> compile_or_report(const std::string& path) {
  CompileResult result = compile_file(path);
  for (const std::string& e : result.errors) std::cerr << e << "\n";
  return std::move(result.ruleset);
}

// Packet lines from `in` (classify's format); nullopt after reporting the first bad one.
std::optional<std::vector<PacketLine>> read_packets(std::istream& in, const TableView& tables,
                                                    const std::string& name) {
  std::vector<PacketLine> packets;
  std::string line, error;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    auto packet = parse_packet_line(line, tables, error);
    if (!packet) {
      std::cerr << name << ":" << n << ": " << error << "\n";
      return std::nullopt;
    }
    packets.push_back(*packet);
  }
  return packets;
}

// Table statistics; with `packets_path`, what lookups of those packets read, the tables mapped
// on a page boundary as in an image.
int stats(const Ruleset& ruleset, const char* packets_path) {
  BuildStats stats;
  Tables tables = build_tables(ruleset, &stats);
  std::cout << "rules " << tables.rules.size() << "\npartitions " << stats.partitions
            << "\nset_tables " << stats.set_tables << "\ntuple_tables " << stats.tuple_tables
            << "\ntrees " << stats.trees << "\ncubes " << stats.cubes << "\ntable_bytes "
            << table_bytes(tables) << "\n";
  if (!packets_path) return 0;
  const std::vector<uint8_t> encoded = encode_tables(tables);
  struct alignas(4096) Page {
    uint8_t bytes[4096];
  };
  std::vector<Page> pages((encoded.size() + sizeof(Page) - 1) / sizeof(Page));
  std::memcpy(pages.data(), encoded.data(), encoded.size());
  const std::span<const uint8_t> blob(reinterpret_cast<const uint8_t*>(pages.data()),
                                      encoded.size());
  Classifier classifier;
  if (LoadStatus st = classifier.map(blob); st != LoadStatus::ok) {
    std::cerr << "tables: " << to_string(st) << "\n";
    return 1;
  }
  std::ifstream file;
  if (std::strcmp(packets_path, "-") != 0) file.open(packets_path);
  std::istream& in = file.is_open() ? file : std::cin;
  if (std::strcmp(packets_path, "-") != 0 && !file) {
    std::cerr << packets_path << ": cannot read\n";
    return 1;
  }
  const auto packets = read_packets(in, classifier.tables(), packets_path);
  if (!packets) return 1;
  print_touches(count_touches(classifier, blob, *packets), std::cout);
  return 0;
}

int classify(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << path << ": cannot read\n";
    return 1;
  }
  std::vector<uint8_t> blob((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Classifier classifier;
  if (LoadStatus st = classifier.load(blob); st != LoadStatus::ok) {
    std::cerr << path << ": " << to_string(st) << "\n";
    return 1;
  }
  const auto packets = read_packets(std::cin, classifier.tables(), "stdin");
  if (!packets) return 1;
  for (const PacketLine& packet : *packets) {
    Verdict v = classifier.classify(packet.kind, packet.hook, packet.packet);
    std::cout << to_string(v.action) << " ";
    if (v.rule == kNoRule) {
      std::cout << "policy\n";
      continue;
    }
    const RuleInfo& rule = classifier.tables().rules[v.rule];
    std::cout << "rule " << rule.source_id;
    if (v.action == Action::snat || v.action == Action::dnat)
      std::cout << " to " << nat_target(rule);
    std::cout << "\n";
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  std::string command = argv[1], input = argv[2];
  if (command == "classify") return classify(input);
  std::optional<Ruleset> ruleset = compile_or_report(input);
  if (!ruleset) return 1;
  if (command == "check") return 0;
  if (command == "nft") {
    std::cout << export_nft(*ruleset);
    return 0;
  }
  if (command == "stats" && argc <= 4) return stats(*ruleset, argc == 4 ? argv[3] : nullptr);
  if (command == "compile") {
    if (argc != 5 || std::string(argv[3]) != "-o") return usage();
    std::vector<uint8_t> blob = encode_tables(build_tables(*ruleset));
    std::ofstream out(argv[4], std::ios::binary);
    out.write(reinterpret_cast<const char*>(blob.data()),
              static_cast<std::streamsize>(blob.size()));
    if (!out) {
      std::cerr << argv[4] << ": cannot write\n";
      return 1;
    }
    return 0;
  }
  return usage();
}
