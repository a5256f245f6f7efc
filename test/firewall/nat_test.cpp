// NAT (lib/firewall/stateful/nat.cpp): tuples stay unique, checksums stay right (RFC 1624, also
// for partial checksums), ICMP errors are translated back.
#include "keel/firewall/nat.hpp"

#include <gtest/gtest.h>

#include <set>

#include "net/wire/checksum.hpp"
#include "packet_builder.hpp"
#include "stateful/packet_info.hpp"

namespace keel::firewall {
namespace {

using test::build;
using test::checksums_ok;
using test::Spec;
constexpr uint64_t kNow = 1'000'000'000;
constexpr uint32_t kPublic = 0xCB007102;  // 203.0.113.2

struct Fixture {
  ConntrackConfig config() {
    ConntrackConfig c;
    c.max_flows = 4096;
    c.hash_key[0] = 7;
    return c;
  }
  Conntrack ct{config()};
  Nat nat{42};

  // Tracks, binds source NAT to `target` (nullptr: none), confirms; returns the flow.
  uint32_t snat(const Spec& s, const NatTarget* target, Manip manip = Manip::src) {
    std::vector<uint8_t> p = build(s);
    PacketInfo info;
    read_packet(p.data(), p.size(), info);
    Tracked t = ct.track(info, p.data(), true, kNow);
    EXPECT_TRUE(t.pending);
    EXPECT_TRUE(nat.bind(ct, t.flow, manip, target));
    EXPECT_TRUE(ct.confirm(t.flow));
    return t.flow;
  }
};

TEST(Nat, SourceNatKeepsThePortWhileItIsFreeAndNeverGivesOneTupleToTwoFlows) {
  Fixture f;
  NatTarget target{kPublic, 0, 0};
  std::set<uint16_t> ports;
  for (uint32_t host = 1; host <= 300; ++host) {
    Spec s;
    s.src = 0xC0A80100 + host;  // 300 hosts, all from port 40000 to one server
    s.sport = 40000;
    uint32_t flow = f.snat(s, &target);
    const FlowKey& reply = f.ct.flow(flow).tuple[1];
    EXPECT_EQ(reply.dst, kPublic);
    EXPECT_GE(reply.dport, 1024);  // stays in its class (1024-65535)
    EXPECT_TRUE(ports.insert(reply.dport).second) << "port " << reply.dport << " handed out twice";
    if (host == 1) EXPECT_EQ(reply.dport, 40000);  // the first keeps its own
  }
  EXPECT_EQ(f.nat.counters().ports_changed, 299u);
}

TEST(Nat, PortRangesAndPrivilegedPortsAreRespected) {
  Fixture f;
  NatTarget range{kPublic, 30000, 30009};
  std::set<uint16_t> ports;
  for (uint32_t host = 1; host <= 10; ++host) {
    Spec s;
    s.src = 0xC0A80100 + host;
    s.sport = 555;
    uint16_t port = f.ct.flow(f.snat(s, &range)).tuple[1].dport;
    EXPECT_GE(port, 30000);
    EXPECT_LE(port, 30009);
    ports.insert(port);
  }
  EXPECT_EQ(ports.size(), 10u);
  Spec eleventh;  // the range is used up: refused, not shared
  eleventh.src = 0xC0A80199;
  std::vector<uint8_t> p = build(eleventh);
  PacketInfo info;
  read_packet(p.data(), p.size(), info);
  Tracked t = f.ct.track(info, p.data(), true, kNow);
  EXPECT_FALSE(f.nat.bind(f.ct, t.flow, Manip::src, &range));

  NatTarget plain{kPublic, 0, 0};
  for (uint32_t host = 1; host <= 3; ++host) {
    Spec low;
    low.src = 0xC0A80200 + host;
    low.sport = 22;
    uint16_t port = f.ct.flow(f.snat(low, &plain)).tuple[1].dport;
    EXPECT_GE(port, 1);
    EXPECT_LT(port, 512);  // a privileged port stays privileged (Linux's classes)
  }
}

// Every protocol, both directions, full and partial checksums: the rewritten packet's
// checksums verify, and only the translated fields changed.
TEST(Nat, RewritesKeepChecksumsRight) {
  for (uint8_t proto : {6, 17, 1}) {
    Fixture f;
    Spec s;
    s.proto = proto;
    s.src = 0xC0A80105;
    s.payload.assign(33, 'p');
    NatTarget target{kPublic, 0, 0};
    uint32_t flow = f.snat(s, &target);
    std::vector<uint8_t> out = build(s);
    ASSERT_TRUE(
        f.nat.apply(f.ct.flow(flow), Dir::original, Manip::src, out.data(), out.size(), false));
    EXPECT_TRUE(checksums_ok(out)) << int(proto);
    EXPECT_EQ(net::wire::load32(out.data() + 12), kPublic);
    // The reply, to the public address, is translated back to the host.
    Spec back = s;
    std::swap(back.src, back.dst);
    back.dst = kPublic;
    std::swap(back.sport, back.dport);
    if (proto == 1) back.icmp_type = 0;
    std::vector<uint8_t> in = build(back);
    ASSERT_TRUE(f.nat.apply(f.ct.flow(flow), Dir::reply, Manip::dst, in.data(), in.size(), false));
    EXPECT_TRUE(checksums_ok(in)) << int(proto);
    EXPECT_EQ(net::wire::load32(in.data() + 16), s.src);
  }
}

TEST(Nat, PartialChecksumsStayPseudoHeaderSums) {
  Fixture f;
  Spec s;
  s.proto = 6;
  s.src = 0xC0A80105;
  NatTarget target{kPublic, 0, 0};
  uint32_t flow = f.snat(s, &target);
  std::vector<uint8_t> p = build(s);
  // What a sender offloading its checksum hands over: the pseudo-header sum, uncomplemented.
  uint16_t tcp_len = uint16_t(p.size() - 20);
  net::wire::store16(p.data() + 36, net::wire::checksum_fold(net::wire::pseudo_header_sum(
                                        net::ip4::Addr{s.src}, net::ip4::Addr{s.dst}, 6, tcp_len)));
  ASSERT_TRUE(f.nat.apply(f.ct.flow(flow), Dir::original, Manip::src, p.data(), p.size(), true));
  uint16_t expected = net::wire::checksum_fold(
      net::wire::pseudo_header_sum(net::ip4::Addr{kPublic}, net::ip4::Addr{s.dst}, 6, tcp_len));
  EXPECT_EQ(net::wire::load16(p.data() + 36), expected);
}

TEST(Nat, IcmpErrorsAboutATranslatedFlowAreTranslatedBack) {
  Fixture f;
  Spec s;
  s.src = 0xC0A80105;
  s.sport = 5000;
  NatTarget target{kPublic, 0, 0};
  uint32_t flow = f.snat(s, &target);
  // The datagram as it left, translated; the server's port unreachable quotes it.
  std::vector<uint8_t> left = build(s);
  f.nat.apply(f.ct.flow(flow), Dir::original, Manip::src, left.data(), left.size(), false);
  Spec error;
  error.proto = 1, error.icmp_type = 3, error.icmp_code = 3;
  error.src = s.dst, error.dst = kPublic;
  error.payload = left;
  std::vector<uint8_t> e = build(error);
  PacketInfo info;
  read_packet(e.data(), e.size(), info);
  Tracked t = f.ct.track(info, e.data(), true, kNow);
  ASSERT_EQ(t.state, CtState::related);
  ASSERT_TRUE(
      f.nat.apply_icmp_error(f.ct.flow(t.flow), t.dir, Manip::dst, e.data(), e.size(), false));
  EXPECT_TRUE(checksums_ok(e));
  EXPECT_EQ(net::wire::load32(e.data() + 16), s.src);       // the error goes to the host
  EXPECT_EQ(net::wire::load32(e.data() + 28 + 12), s.src);  // quoting its own packet
  EXPECT_EQ(net::wire::load16(e.data() + 28 + 20), 5000);
  // The quoted header's checksum verifies again.
  EXPECT_EQ(net::wire::checksum(e.data() + 28, 20), 0);
}

}  // namespace
}  // namespace keel::firewall
