// libFuzzer target: router advertisements (the parser of ra.cpp, DNS options
// included, then what RouterDiscovery and Slaac do with them) and redirects (redirect.cpp, then
// the destination cache) on a host with `auto`, on an in-memory NIC, with a
// clock the input moves; and MLD queries of both versions and other hosts'
// MLDv1 reports (mld.cpp).
// Build with -DKEEL_FUZZ=ON (clang); run test/fuzz/run_ra.sh.
//
//   net0  10.0.0.2/24, SLAAC on (RFC 7217 identifiers), 02:00:00:00:00:01
//
// The whole input first goes to parse_router_advertisement and to
// parse_redirect as one message; then it is read as records:
//   0x00 t                 advance time by t × 1 s
//   0x01 t                 advance time by t × 10 min (lifetimes, the two-hour rule)
//   0x02 s hl code n ...   an RA of n bytes (after type, code and checksum; n ≤ 1400)
//                          from s & 3: fe80::1, fe80::<s>, 2001:db8::1, ::, checksum fixed
//   0x03 k                 an NA from a peer claiming SLAAC address k % count (DAD conflict)
//   0x04 k                 an echo request to SLAAC address k % count
//   0x05 s hl code n ...   a Redirect of n bytes (after type, code and checksum; n ≤ 1400),
//                          sources as for 0x02, to our link-local address
//   0x06 s hl code n ...   an MLD query of n bytes (24: MLDv1's) to all nodes, sources as for 0x02
//   0x07 s hl code n ...   another host's MLDv1 report of n bytes to all nodes, as 0x06
//   other                  stop
// Invariants (abort): no crash, leak or undefined behaviour; the router, prefix
// and address lists within their bounds; IPv6's MTU within 1280..1500; parsed
// prefixes within RaRepr::max_prefixes with lengths ≤ 128, DNS servers and
// search domains within theirs (names 1..253 characters); the destination
// cache within its bound; a parsed redirect's target link-local or its
// destination, its destination no group.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <net/stack.hpp>
#include <vector>

#include "manual_clock.hpp"
#include "memory_nic.hpp"
#include "net/ip6/addr.hpp"
#include "net/link/link.hpp"
#include "net/link/redirect.hpp"
#include "net/stack_parts.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/icmp6.hpp"

namespace {

using net::ip6::Addr;

const net::ethernet::Addr mac{{0x02, 0, 0, 0, 0, 1}}, peer_mac{{0x02, 0, 0, 0, 0, 2}};
constexpr std::size_t max_ra = 1400;

void check(bool ok) {
  if (!ok) std::abort();
}

Addr parse(const char* s) { return net::Address::parse(s)->ip6(); }

class Harness {
 public:
  Harness() : nic_(mac, 1500, 256), stack_(clock_, config()) {
    net::Interface& i = stack_.add_interface(nic_);
    i.configure(net::ip4::Addr{10, 0, 0, 2}, net::ip4::netmask_of(24));
    link().start_slaac(net::SlaacIid::stable);
  }
  net::Link& link() { return stack_.parts().link(0); }

  // An ND message of `type` from the source `s` picks (see above).
  void nd(uint8_t type, uint8_t s, uint8_t hl, uint8_t code, const uint8_t* body, std::size_t n) {
    Addr src = (s & 3) == 0 ? parse("fe80::1") : (s & 3) == 2 ? parse("2001:db8::1") : Addr{};
    if ((s & 3) == 1) src = parse("fe80::"), src.bytes[15] = s;
    std::vector<uint8_t> m(4 + n);
    m[0] = type;
    m[1] = code;
    std::copy(body, body + n, m.begin() + 4);
    bool to_all = type != net::wire::icmp6::redirect;
    ip6(src, to_all ? net::ip6addr::all_nodes() : link().link_local(), hl, m);
  }
  void conflict(uint8_t k) {
    const auto& all = link().routers().slaac().addresses();
    if (all.empty()) return;
    const Addr target = all[k % all.size()].address;
    std::vector<uint8_t> m(32);
    m[0] = net::wire::icmp6::neighbor_advertisement;
    m[4] = net::wire::nd::na_override;
    std::copy(target.bytes.begin(), target.bytes.end(), m.begin() + 8);
    m[24] = net::wire::nd::option_target_mac;
    m[25] = 1;
    peer_mac.write(m.data() + 26);
    ip6(parse("fe80::2"), net::ip6addr::all_nodes(), 255, m);
  }
  void echo(uint8_t k) {
    const auto& all = link().routers().slaac().addresses();
    if (all.empty()) return;
    std::vector<uint8_t> m{net::wire::icmp6::echo_request, 0, 0, 0, 0, 7, 0, 1, 'k'};
    ip6(parse("fe80::2"), all[k % all.size()].address, 64, m);
  }
  void advance(std::chrono::seconds t) {
    clock_.advance(t);
    check_state();
  }
  void check_state() {
    const net::RouterDiscovery& r = link().routers();
    check(r.routers().size() <= net::RouterDiscovery::max_routers);
    check(r.prefixes().size() <= net::RouterDiscovery::max_prefixes);
    check(r.slaac().addresses().size() <= net::Slaac::max_addresses);
    check(link().mtu6() >= net::wire::ip6_min_mtu && link().mtu6() <= 1500);
    check(stack_.parts().ip6.destinations().size() <= net::Destinations::max_entries);
    check(r.dns_servers().size() <= net::RouterDiscovery::max_dns_servers);
    check(r.search_domains().size() <= net::RouterDiscovery::max_search_domains);
    nic_.transmitted.clear();
  }
  bool all_buffers_back() {
    advance(std::chrono::hours(24 * 365));
    return nic_.pool().available() == nic_.pool().count();
  }

 private:
  void ip6(const Addr& src, const Addr& dst, uint8_t hl, std::vector<uint8_t>& m) {
    net::wire::icmp6_fill_checksum(m.data(), m.size(), src, dst);
    std::vector<uint8_t> f(14 + 40);
    net::ethernet::Addr to =
        net::ip6addr::is_multicast(dst) ? net::ip6addr::multicast_mac(dst) : mac;
    net::wire::EthernetRepr{to, peer_mac, net::wire::ethertype_ip6}.emit(
        std::span<uint8_t, 14>(f.data(), 14));
    net::wire::Ip6Repr{src, dst, net::wire::ip6_next_icmp6, hl, uint16_t(m.size())}.emit(f.data() +
                                                                                         14);
    f.insert(f.end(), m.begin(), m.end());
    nic_.inject(f.data(), f.size(), 0);
    check_state();
  }
  static net::StackConfig config() {
    net::StackConfig c;
    c.total_memory = std::size_t(64) << 20;
    return c;
  }
  keel::test::ManualClock clock_;
  net::MemoryNic nic_;
  net::Stack stack_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  net::RaRepr parsed;
  if (net::parse_router_advertisement(parse("fe80::1"), data, size, parsed) == net::RaError::none) {
    check(parsed.prefix_count <= net::RaRepr::max_prefixes);
    for (std::size_t p = 0; p < parsed.prefix_count; ++p) check(parsed.prefixes[p].length <= 128);
    check(parsed.dns_server_count <= net::RaRepr::max_dns);
    check(parsed.search_domain_count <= net::RaRepr::max_dns);
    for (std::size_t d = 0; d < parsed.search_domain_count; ++d)
      check(!parsed.search_domains[d].name.empty() && parsed.search_domains[d].name.size() <= 253);
  }
  net::RedirectRepr redirect;
  if (net::parse_redirect(parse("fe80::1"), data, size, redirect) == net::RedirectError::none) {
    check(net::ip6addr::is_link_local(redirect.target) || redirect.target == redirect.destination);
    check(!net::ip6addr::is_multicast(redirect.destination));
  }
  Harness h;
  std::size_t i = 0;
  while (i < size) {
    uint8_t op = data[i++];
    if (op == 0x00 && i < size) {
      h.advance(std::chrono::seconds(data[i++]));
    } else if (op == 0x01 && i < size) {
      h.advance(std::chrono::minutes(10) * data[i++]);
    } else if ((op == 0x02 || (op >= 0x05 && op <= 0x07)) && i + 5 <= size) {
      uint8_t s = data[i], hl = data[i + 1], code = data[i + 2];
      std::size_t n = std::size_t(data[i + 3]) << 8 | data[i + 4];
      i += 5;
      n = std::min({n, size - i, max_ra});
      uint8_t type = op == 0x02   ? net::wire::icmp6::router_advertisement
                     : op == 0x05 ? net::wire::icmp6::redirect
                     : op == 0x06 ? net::wire::icmp6::multicast_listener_query
                                  : net::wire::icmp6::multicast_listener_report_v1;
      h.nd(type, s, hl, code, data + i, n);
      i += n;
    } else if (op == 0x03 && i < size) {
      h.conflict(data[i++]);
    } else if (op == 0x04 && i < size) {
      h.echo(data[i++]);
    } else {
      break;
    }
  }
  check(h.all_buffers_back());
  return 0;
}
