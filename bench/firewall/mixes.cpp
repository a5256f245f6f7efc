#include "mixes.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "classbench_model.hpp"
#include "keel/firewall/compiler.hpp"

namespace keel::firewall::bench {
namespace {
constexpr uint32_t kPortCount = 65536;

uint32_t mask_of(int len) { return len == 0 ? 0 : ~0u << (32 - len); }
std::string prefix(uint32_t a, int len) {
  return ipv4_text(a & mask_of(len)) + "/" + std::to_string(len);
}

// ClassBench-like address structure: a few hundred "sites" (/16) with nested subnets.
struct Sites {
  std::vector<uint32_t> bases;
  explicit Sites(std::mt19937& rng) {
    for (int i = 0; i < 400; ++i) bases.push_back(static_cast<uint32_t>(rng()) & 0xFFFF0000u);
  }
  uint32_t address(std::mt19937& rng) const {
    return bases[rng() % bases.size()] | (rng() & 0xFFFF);
  }
};

int classbench_prefix_length(std::mt19937& rng) {
  // Roughly the acl/fw seed shapes: many /32 and /24, some /16 and short, some wildcards.
  static constexpr int kLengths[] = {32, 32, 32, 32, 24, 24, 24, 28, 20, 16, 16, 8, 0};
  return kLengths[rng() % std::size(kLengths)];
}

std::string port_range(std::mt19937& rng, bool destination) {
  uint32_t r = rng() % 100;
  if (r < (destination ? 25u : 70u)) return "";  // wildcard
  if (r < (destination ? 75u : 80u)) {
    static constexpr int kWellKnown[] = {20,  21,  22,  23,  25,  53,  80,   110,
                                         123, 143, 161, 443, 445, 993, 3306, 8080};
    return std::to_string(destination ? kWellKnown[rng() % std::size(kWellKnown)]
                                      : static_cast<int>(rng() % 65536));
  }
  if (r < 90) return "1024-65535";
  uint32_t lo = rng() % 60000;
  return std::to_string(lo) + "-" + std::to_string(lo + rng() % 2000);
}

// Packets as ClassBench's trace generator makes them: a random rule, then a random point of its
// box (a port range's ends as often as its inside); a share uniformly random (mostly misses).
constexpr double kRandomPacketShare = 0.1;
std::vector<Packet> family_packets(const std::string& rules_text, size_t count, uint32_t seed) {
  const std::vector<FilterRule> rules = parse_filters(rules_text);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  const auto inside = [&](uint32_t value, uint8_t length) {
    const uint32_t host_bits = length == 0 ? ~0u : ~(~0u << (32 - length));
    return value | (static_cast<uint32_t>(rng()) & host_bits);
  };
  const auto port = [&](uint16_t lo, uint16_t hi) {
    const double at = unit(rng);
    if (at < 0.25) return lo;
    if (at < 0.5) return hi;
    return static_cast<uint16_t>(lo + rng() % (uint32_t{hi} - lo + 1));
  };
  std::vector<Packet> packets(count);
  for (Packet& p : packets) {
    p.ttl = 64;
    p.length = 64;
    if (rules.empty() || unit(rng) < kRandomPacketShare) {
      p.saddr = static_cast<uint32_t>(rng()), p.daddr = static_cast<uint32_t>(rng());
      p.proto = unit(rng) < 0.6 ? kProtoTcp : kProtoUdp;
      p.sport = static_cast<uint16_t>(rng()), p.dport = static_cast<uint16_t>(rng());
      continue;
    }
    const FilterRule& r = rules[rng() % rules.size()];
    p.saddr = inside(r.source, r.source_length);
    p.daddr = inside(r.destination, r.destination_length);
    p.proto = r.protocol ? r.protocol : (unit(rng) < 0.6 ? kProtoTcp : kProtoUdp);
    if (p.proto == kProtoTcp || p.proto == kProtoUdp) {
      p.sport = port(r.sport_lo, r.sport_hi);
      p.dport = port(r.dport_lo, r.dport_hi);
    }
  }
  return packets;
}
}  // namespace

std::string packet_line(const Packet& p) {
  const auto address = [](uint32_t a) {
    return std::to_string(a >> 24) + "." + std::to_string(a >> 16 & 0xFF) + "." +
           std::to_string(a >> 8 & 0xFF) + "." + std::to_string(a & 0xFF);
  };
  return "kind=filter hook=forward proto=" + std::to_string(p.proto) +
         " saddr=" + address(p.saddr) + " daddr=" + address(p.daddr) +
         " sport=" + std::to_string(p.sport) + " dport=" + std::to_string(p.dport) +
         " ttl=" + std::to_string(p.ttl) + " length=" + std::to_string(p.length);
}

bool known_mix(const std::string& mix) {
  return family_profile(mix) || (mix.size() == 1 && mix[0] >= 'a' && mix[0] <= 'f');
}

std::string generate_rules(const std::string& mix_name, size_t count, uint32_t seed) {
  if (const FamilyProfile* family = family_profile(mix_name)) {
    return filters_text(generate_filters(*family, count, seed), seed);
  }
  const char mix = mix_name[0];
  std::mt19937 rng(seed);
  std::string out = "chain bench hook forward policy accept {\n";
  out.reserve(count * 48);
  switch (mix) {
    case 'a': {
      std::vector<uint32_t> ports(kPortCount);
      for (uint32_t i = 0; i < kPortCount; ++i) ports[i] = i;
      std::shuffle(ports.begin(), ports.end(), rng);
      for (size_t i = 0; i < count && i < kPortCount; ++i)
        out += "  tcp dport " + std::to_string(ports[i]) + (i % 2 ? " accept\n" : " drop\n");
      break;
    }
    case 'b': {
      std::unordered_set<uint32_t> seen;
      while (seen.size() < count) {
        uint32_t a = static_cast<uint32_t>(rng());
        if (seen.insert(a).second) out += "  ip saddr " + ipv4_text(a) + " drop\n";
      }
      break;
    }
    case 'c': {
      for (size_t i = 0; i < count; ++i) {
        int len = 8 + static_cast<int>(rng() % 25);
        out += std::string(rng() % 2 ? "  ip saddr " : "  ip daddr ") +
               prefix(static_cast<uint32_t>(rng()), len) + (rng() % 4 ? " drop\n" : " accept\n");
      }
      break;
    }
    default: {
      Sites sites(rng);
      for (size_t i = 0; i < count; ++i) {
        std::string rule = "  ";
        int sl = classbench_prefix_length(rng), dl = classbench_prefix_length(rng);
        // (d) and (e): every rule names an address, so no early rule matches (almost) everything
        // and shadows the rest. (f) keeps the generator that allows rules without addresses:
        // within its first ~100 rules some match every packet of a protocol and the compiler
        // drops nearly all later rules as dead.
        if (mix != 'f' && sl == 0 && dl == 0) dl = 24;
        if (sl) rule += "ip saddr " + prefix(sites.address(rng), sl) + " ";
        if (dl) rule += "ip daddr " + prefix(sites.address(rng), dl) + " ";
        uint32_t proto = rng() % 10;
        if (proto < 9) {
          const char* p = proto < 6 ? "tcp" : "udp";
          std::string sp = port_range(rng, false), dp = port_range(rng, true);
          if (!sp.empty()) rule += std::string(p) + " sport " + sp + " ";
          if (!dp.empty()) rule += std::string(p) + " dport " + dp + " ";
          if (sp.empty() && dp.empty()) rule += std::string(p) + " ";
        }
        out += rule + (rng() % 3 ? "accept\n" : "drop\n");
      }
    }
  }
  return out + "}\n";
}

// Half the packets hit values taken from the rules, half are random (mostly misses).
std::vector<Packet> generate_packets(const std::string& mix_name, const std::string& rules_text,
                                     size_t count, uint32_t seed) {
  if (family_profile(mix_name)) return family_packets(rules_text, count, seed);
  const char mix = mix_name[0];
  std::mt19937 rng(seed);
  std::vector<uint32_t> addresses;
  std::vector<uint16_t> ports;
  std::istringstream in(rules_text);
  std::string word;
  while (in >> word) {
    if (word.find('.') != std::string::npos) {
      uint32_t a = 0, part = 0;
      std::istringstream parts(word.substr(0, word.find('/')));
      std::string p;
      while (std::getline(parts, p, '.'))
        part = static_cast<uint32_t>(std::stoul(p)), a = a << 8 | part;
      addresses.push_back(a);
    } else if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0]))) {
      ports.push_back(static_cast<uint16_t>(std::stoul(word)));
    }
  }
  std::vector<Packet> packets(count);
  for (Packet& p : packets) {
    bool from_rules = rng() % 2 == 0;
    p.proto = mix == 'a' || rng() % 10 < 6 ? kProtoTcp : kProtoUdp;
    p.saddr = static_cast<uint32_t>(rng());
    p.daddr = static_cast<uint32_t>(rng());
    p.sport = static_cast<uint16_t>(rng());
    p.dport = static_cast<uint16_t>(rng());
    if (from_rules && !addresses.empty()) {
      p.saddr = addresses[rng() % addresses.size()] |
                (mix == 'b' ? 0 : static_cast<uint32_t>(rng() & 0xFF));
      p.daddr = addresses[rng() % addresses.size()] | static_cast<uint32_t>(rng() & 0xFF);
    }
    if (from_rules && !ports.empty()) p.dport = ports[rng() % ports.size()];
    p.ttl = 64;
    p.length = 64;
  }
  return packets;
}

}  // namespace keel::firewall::bench
