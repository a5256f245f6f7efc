// Path MTU discovery (RFC 1191) with the checks of RFC 5927: a
// "fragmentation needed" quoting a segment in flight lowers the MSS and
// resends in the new size; one quoting anything else is ignored; reports
// below 552 are not believed. ICMP errors end a connect (RFC 1122
// §4.2.3.9). And the MSS we offer follows the interface's MTU.
#include "memory_nic.hpp"
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

const Ip router{10, 0, 0, 254};
constexpr uint8_t unreachable = 3, fragmentation_needed = 4;

class TcpPmtu : public TcpTest {
 protected:
  // Two full segments in flight; returns the IPv4 packet of the first.
  Bytes two_segments_in_flight(TcpConnection& c) {
    EXPECT_EQ(*c.write(pattern(2 * data_mss)), 2 * data_mss);
    Bytes first = nic.pop();
    EXPECT_TRUE(sent_ip(first).dont_fragment);  // RFC 1191: DF on every segment
    nic.pop();
    return ip_of(first);
  }
  void icmp(uint8_t code, uint32_t rest, const Bytes& ip_packet) {
    Bytes quoted(ip_packet.begin(), ip_packet.begin() + 28);  // header + 8 bytes (RFC 792)
    inject_ip(ip4(router, stack_ip, 1, icmp_error(unreachable, code, rest, quoted)));
  }
};

TEST_F(TcpPmtu, FragmentationNeededLowersTheMssAndResends) {
  TcpConnection c = accept();
  Bytes first = two_segments_in_flight(c);
  icmp(fragmentation_needed, 1000, first);
  // 1000 - 40 - 12 (timestamps): 948 bytes a segment, at once, cwnd kept.
  const uint32_t m = 948;
  for (uint32_t off = 0; off < 2 * data_mss; off += m) {
    uint32_t len = std::min(m, 2 * data_mss - off);
    uint8_t flags = flag::ack | (off + len == 2 * data_mss ? flag::psh : 0);
    EXPECT_EQ(next_header(), from_us(flags, iss + 1 + off, peer_isn + 1, full_window, len));
  }
  EXPECT_EQ(sent_count(), 0u);
  ::net::TcpStats s = c.stats();
  EXPECT_EQ(s.mss, m);
  EXPECT_EQ(s.cwnd, 10 * data_mss);
  EXPECT_EQ(counters().tcp.pmtu_updates, 1u);
  // New data goes out in the new size.
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1 + 2 * data_mss, 511));
  ASSERT_EQ(*c.write(pattern(2000)), 2000u);
  EXPECT_EQ(next_header(),
            from_us(flag::ack, iss + 1 + 2 * data_mss, peer_isn + 1, full_window, m));
}

TEST_F(TcpPmtu, ErrorsQuotingNoSegmentInFlightAreIgnored) {
  TcpConnection c = accept();
  Bytes first = two_segments_in_flight(c);
  Bytes forged = first;
  ::net::wire::store32(&forged[24], iss + 100000);  // a sequence number never sent
  icmp(fragmentation_needed, 600, forged);
  Bytes other = first;
  ::net::wire::store16(&other[20], 4444);  // another connection's port
  icmp(fragmentation_needed, 600, other);
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(c.stats().mss, data_mss);
  EXPECT_EQ(counters().tcp.drop_icmp_unmatched, 2u);
}

TEST_F(TcpPmtu, ReportsBelowTheFloorAreRaisedTo552) {
  TcpConnection c = accept();
  Bytes first = two_segments_in_flight(c);
  icmp(fragmentation_needed, 300, first);
  EXPECT_EQ(c.stats().mss, 552u - 40 - 12);
}

TEST_F(TcpPmtu, PortUnreachableRefusesAConnectAndHostUnreachableEndsIt) {
  for (auto [code, reason] : {std::pair{uint8_t(3), TcpCloseReason::refused},
                              std::pair{uint8_t(1), TcpCloseReason::unreachable}}) {
    TcpCloseReason got = TcpCloseReason::closed;
    auto c = *stack.tcp().connect(
        {peer_ip, 80}, [](TcpConnection) {}, options());
    c.on_close([&](TcpCloseReason r) { got = r; });
    Bytes syn = ip_of(nic.pop());
    icmp(code, 0, syn);
    EXPECT_EQ(got, reason);
    EXPECT_FALSE(c.is_open());
  }
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

TEST(TcpMss, TheMssOfferedFollowsTheInterfaceMtu) {
  ManualClock clock;
  ::net::MemoryNic nic(stack_mac, 1280);
  ::net::Stack stack(clock, test_stack_config());
  ::net::Interface& iface = stack.add_interface(nic);
  iface.configure(stack_ip, ::net::ip4::netmask_of(24), Ip{10, 0, 0, 254});
  nic.inject(
      ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
  nic.transmitted.clear();
  auto c = stack.tcp().connect({peer_ip, 80}, [](TcpConnection) {});
  ASSERT_TRUE(c.ok());
  TcpRepr syn = sent_tcp(nic.pop());
  EXPECT_EQ(syn.options.mss, 1240);  // 1280 - 40
}

}  // namespace
}  // namespace keel::test
