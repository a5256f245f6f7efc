// libFuzzer target: the network configuration readers (api/net/config.hpp):
// command-line words (ip=, gw=, route= of both families, mtu=, forward=,
// reassembly_*= ...) and the embedded JSON.
// Build with -DKEEL_FUZZ=ON (clang); run test/fuzz/run_config.sh.
//
// Input: the first byte picks the reader (even: words, odd: JSON); the rest
// is split into words at spaces and newlines, or read as one JSON text.
// Invariants (abort): no crash or undefined behaviour (ASan/UBSan); what is
// accepted is within bounds: route prefixes within their family's length,
// gateways of the destination's family (or none), MTUs 0 or 1280 and more.
#include <cstdint>
#include <cstdlib>
#include <net/config.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void check_config(const net::Config& c) {
  constexpr unsigned ip4_bits = 32, ip6_bits = 128, min_mtu = 1280;
  for (const net::RouteConfig& r : c.routes) {
    check(r.prefix_len <= (r.destination.is_ip6() ? ip6_bits : ip4_bits));
    check(r.gateway.family() == net::Address::Family::none ||
          r.gateway.family() == r.destination.family() || r.gateway.is_any());
    check(!r.gateway.is_any() || r.interface >= 0);
  }
  for (const net::InterfaceConfig& i : c.interfaces) check(i.mtu == 0 || i.mtu >= min_mtu);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  net::Config config;
  net::ConfigError e;
  if (data[0] % 2 == 0) {
    std::vector<std::string> words;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == ' ' || text[i] == '\n') {
        if (i > start) words.emplace_back(text.substr(start, i - start));
        start = i + 1;
      }
    }
    e = net::apply_cmdline(words, config);
  } else {
    e = net::parse_config_json(text, config);
  }
  if (e.empty()) check_config(config);
  return 0;
}
