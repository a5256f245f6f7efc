// The pre-rendered and the computed answer path on the same queries: two
// Servers over the same zones, one with pre-rendered answers (decision 0082)
// and one without, must send the same octets for every query, from an IPv4
// and from an IPv6 client. test_answer_paths.py feeds it generated zones and
// queries; it is a host tool, not part of any image.
//
//   dns_answer_paths [--payload N] QUERIES NAME=FILE...
//
// QUERIES holds one query a line, in hex. Prints each query whose responses
// differ (query, then both responses, in hex) and a summary line; exits 1 if
// any differ, 2 on bad arguments or zones.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "keel/dns/catalog.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/zone_file.hpp"

namespace {

using keel::dns::ClientAddress;

std::vector<uint8_t> from_hex(const std::string& text) {
  std::vector<uint8_t> out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2)
    out.push_back(uint8_t(std::stoul(text.substr(i, 2), nullptr, 16)));
  return out;
}

std::string to_hex(const uint8_t* data, std::size_t size) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < size; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

std::unique_ptr<keel::dns::Catalog> load(const std::vector<std::string>& args) {
  std::vector<keel::dns::ZoneData> zones;
  std::vector<keel::dns::Diagnostic> errors;
  for (const std::string& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) return nullptr;
    zones.emplace_back();
    keel::dns::read_zone_file(arg.substr(eq + 1), arg.substr(0, eq), zones.back(), errors);
  }
  std::unique_ptr<keel::dns::Catalog> catalog;
  if (errors.empty()) catalog = keel::dns::Catalog::build(zones, errors);
  for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
  return errors.empty() ? std::move(catalog) : nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  keel::dns::ServerOptions computed_options;
  int arg = 1;
  if (arg + 1 < argc && std::strcmp(argv[arg], "--payload") == 0) {
    computed_options.edns_payload = uint16_t(std::stoul(argv[arg + 1]));
    arg += 2;
  }
  if (argc - arg < 2) {
    std::fprintf(stderr, "usage: dns_answer_paths [--payload N] QUERIES NAME=FILE...\n");
    return 2;
  }
  std::ifstream queries(argv[arg]);
  const std::vector<std::string> zone_args(argv + arg + 1, argv + argc);
  auto catalog_a = load(zone_args), catalog_b = load(zone_args);
  if (!queries || !catalog_a || !catalog_b) return 2;
  keel::dns::ServerOptions prerendered_options = computed_options;
  computed_options.prerender = false;
  prerendered_options.prerender = true;
  keel::dns::Server computed(std::move(catalog_a), computed_options);
  keel::dns::Server prerendered(std::move(catalog_b), prerendered_options);

  ClientAddress ipv6 = ClientAddress::ipv4(0, 5353);
  ipv6.family = ClientAddress::Family::ipv6;
  ipv6.bytes = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};  // 2001:db8::1
  const ClientAddress clients[] = {ClientAddress::ipv4(0x0a000001, 5353), ipv6};
  std::vector<uint8_t> out_a(65535), out_b(65535);
  std::size_t count = 0, differing = 0;
  for (std::string line; std::getline(queries, line);) {
    if (line.empty()) continue;
    const std::vector<uint8_t> query = from_hex(line);
    for (const ClientAddress& client : clients) {
      ++count;
      const std::size_t a = computed.answer(query, client, out_a);
      const std::size_t b = prerendered.answer(query, client, out_b);
      if (a == b && std::memcmp(out_a.data(), out_b.data(), a) == 0) continue;
      if (++differing <= 20) {
        std::printf("differs (%s client)\n  query       %s\n  computed    %s\n  prerendered %s\n",
                    client.family == ClientAddress::Family::ipv4 ? "IPv4" : "IPv6", line.c_str(),
                    to_hex(out_a.data(), a).c_str(), to_hex(out_b.data(), b).c_str());
      }
    }
  }
  const auto& stats = prerendered.stats();
  std::printf("queries %zu, differing %zu, pre-rendered %llu, truncated %llu, answers %zu\n", count,
              differing, static_cast<unsigned long long>(stats.prerendered),
              static_cast<unsigned long long>(stats.truncated), prerendered.prerendered_answers());
  return differing == 0 ? 0 : 1;
}
