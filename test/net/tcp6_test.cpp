// TCP over IPv6 (RFC 8200 §8): the handshake both ways, data, the MSS
// from the IPv6 MTU (1500 - 40 - 20), the IPv6 pseudo-header checksum, RSTs
// for closed ports, ICMPv6 errors (Packet Too Big, RFC 8201; Destination
// Unreachable, RFC 5461), and one listener on the any-address for both
// families (decision 0131).
#include "memory_nic.hpp"
#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "tcp_fixture.hpp"

namespace keel::test {
namespace {

constexpr uint8_t packet_too_big = 2, destination_unreachable = 1, port_unreachable = 4;
const Ip6 router6 = ip6_of("fd00::fe");

// TcpTest with the peer at fd00::1 and the stack at fd00::2/64 (beside
// 10.0.0.2/24), the peer's MAC already in the neighbour cache.
class Tcp6 : public TcpTest {
 protected:
  static constexpr uint32_t mss6 = 1500 - 40 - 20;  // RFC 8200 §8.3
  static constexpr uint32_t data_mss6 = mss6 - 12;  // beside timestamps

  void SetUp() override {
    TcpTest::SetUp();
    iface.configure6(stack_ip6, 64);
    advance(std::chrono::seconds(1));  // duplicate address detection: nobody objects
    nic.inject(
        ip6_frame(ns(peer_ip6, ::net::ip6addr::solicited_node(stack_ip6), stack_ip6, &peer_mac),
                  ::net::ip6addr::multicast_mac(::net::ip6addr::solicited_node(stack_ip6))));
    nic.transmitted.clear();
    v6 = true;
  }
  // An ICMPv6 error from a router quoting the IPv6 packet of `frame`.
  void icmp6_error(uint8_t type, uint8_t code, uint32_t rest, const Bytes& frame) {
    Bytes quoted(frame.begin() + 14, frame.begin() + 14 + 40 + 20);
    nic.inject(ip6_frame(
        ip6(router6, stack_ip6, 58, icmp6(router6, stack_ip6, type, code, rest, quoted))));
  }
  // Two full segments from `c`, the first reported too big for `mtu`: that frame.
  Bytes two_segments_too_big(TcpConnection& c, uint32_t mtu) {
    EXPECT_EQ(*c.write(pattern(2 * data_mss6)), 2 * data_mss6);
    Bytes first = nic.pop();
    nic.pop();
    icmp6_error(packet_too_big, 0, mtu, first);
    return first;
  }
  // A UDP datagram of 1448 bytes to the peer, answered by a router's Packet
  // Too Big for `mtu`: the destination cache holds it (decision 0136).
  void cache_path_mtu(uint32_t mtu) {
    ::net::UdpSocket udp = *stack.udp().bind(5000);
    ASSERT_EQ(udp.send_to({peer_ip6, 9}, pattern(1400).data(), 1400), Status::ok);
    icmp6_error(packet_too_big, 0, mtu, nic.pop());
    udp.close();
    ASSERT_EQ(stack.parts().ip6.path_mtu(0, peer_ip6), mtu);
  }
  TcpRepr syn_to(uint16_t port) {
    TcpRepr syn{client_port, port, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
    syn.options.mss = 1460;
    return syn;
  }
};

TEST_F(Tcp6, ListenerAcceptsAndOffersTheIpv6Mss) {
  TcpConnection c = accept();
  ASSERT_TRUE(c.is_open());
  EXPECT_EQ(c.state(), TcpState::established);
  EXPECT_EQ(handshake.flags, flag::syn | flag::ack);
  EXPECT_EQ(handshake.options.mss, mss6);
  EXPECT_EQ(c.local(), (::net::Endpoint{stack_ip6, server_port}));
  EXPECT_EQ(c.remote(), (::net::Endpoint{peer_ip6, client_port}));
  EXPECT_EQ(c.stats().mss, data_mss6);
}

TEST_F(Tcp6, DataBothWays) {
  TcpConnection c = accept();
  Bytes got;
  c.on_read([&](std::span<const uint8_t> d) { got.insert(got.end(), d.begin(), d.end()); });
  ++peer_ts;
  inject(from_peer(flag::ack | flag::psh, peer_isn + 1, iss + 1, 511), text("hello"));
  EXPECT_EQ(got, text("hello"));
  ASSERT_EQ(*c.write(text("world")), 5u);
  SentSegment s = next();
  EXPECT_EQ(s.header, from_us(flag::ack | flag::psh, iss + 1, peer_isn + 6, full_window, 5));
  EXPECT_EQ(s.payload, text("world"));
}

TEST_F(Tcp6, ConnectToAnIpv6Peer) {
  TcpConnection c = connect();
  EXPECT_EQ(handshake.options.mss, mss6);
  TcpRepr ack = next_header();
  EXPECT_EQ(ack.flags, flag::ack);
  EXPECT_EQ(ack.ack, peer_isn + 1);
  EXPECT_EQ(c.state(), TcpState::established);
  EXPECT_EQ(c.local().address, ::net::Address(stack_ip6));
  EXPECT_EQ(c.remote(), (::net::Endpoint{peer_ip6, 80}));
}

TEST_F(Tcp6, ClosedPortAnswersWithReset) {
  inject(syn_to(81));
  EXPECT_EQ(
      next_header(),
      (TcpRepr{81, client_port, 0, peer_isn + 1, uint8_t(flag::rst | flag::ack), 0, 0, {}, 0}));
  EXPECT_EQ(counters().tcp.tx_resets, 1u);
}

TEST_F(Tcp6, WrongChecksumIsRefused) {
  listener = *stack.tcp().listen(
      server_port, [](TcpConnection) {}, options());
  Bytes packet = tcp6_packet(syn_to(server_port));
  packet[40 + 16] ^= 0x01;  // the TCP checksum
  nic.inject(ip6_frame(packet));
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(counters().tcp.drop_bad_checksum, 1u);
  // The IPv4 pseudo-header's sum over the same segment is not taken either.
  Bytes v4_summed = ip6(peer_ip6, stack_ip6, 6, tcp(peer_ip, stack_ip, syn_to(server_port)));
  nic.inject(ip6_frame(v4_summed));
  EXPECT_EQ(sent_count(), 0u);
  EXPECT_EQ(counters().tcp.drop_bad_checksum, 2u);
}

TEST_F(Tcp6, PacketTooBigLowersTheMssAndResends) {
  TcpConnection c = accept();
  two_segments_too_big(c, 1400);
  // 1400 - 40 - 20 - 12 (timestamps) bytes a segment, at once.
  const uint32_t m = 1400 - 72;
  EXPECT_EQ(c.stats().mss, m);
  EXPECT_EQ(counters().tcp.pmtu_updates, 1u);
  EXPECT_EQ(next_header(), from_us(flag::ack, iss + 1, peer_isn + 1, full_window, m));
}

// Decision 0147: a connection to a destination whose path MTU the
// destination cache holds (RFC 8201 §4) starts from it, its SYN's MSS
// option included, instead of losing a segment to learn it again.
TEST_F(Tcp6, ConnectStartsFromTheCachedPathMtu) {
  ASSERT_NO_FATAL_FAILURE(cache_path_mtu(1300));
  TcpConnection c = connect();
  EXPECT_EQ(handshake.options.mss, 1300u - 60);  // RFC 8200 §8.3
  EXPECT_EQ(c.stats().mss, 1300u - 60 - 12);     // beside timestamps
  nic.transmitted.clear();                       // the handshake's ACK
  ASSERT_EQ(*c.write(pattern(3000)), 3000u);
  std::size_t full = 0;
  while (!nic.transmitted.empty()) {
    SentSegment s = next();
    EXPECT_LE(s.payload.size(), 1300u - 72);
    full += s.payload.size() == 1300u - 72;
  }
  EXPECT_EQ(full, 2u);
  EXPECT_EQ(counters().tcp.pmtu_updates, 0u);  // nothing learned again
}

TEST_F(Tcp6, ListenerAnswersFromTheCachedPathMtu) {
  ASSERT_NO_FATAL_FAILURE(cache_path_mtu(1300));
  TcpConnection c = accept();
  EXPECT_EQ(handshake.options.mss, 1300u - 60);
  EXPECT_EQ(c.stats().mss, 1300u - 72);
  // Another destination starts from the link's MTU.
  EXPECT_EQ(stack.parts().ip6.path_mtu(0, ip6_of("fd00::7")), 1500u);
}

TEST_F(Tcp6, PacketTooBigAboutASegmentIsCachedForTheNextConnection) {
  TcpConnection c = accept();
  Bytes first = two_segments_too_big(c, 1400);
  EXPECT_EQ(stack.parts().ip6.path_mtu(0, peer_ip6), 1400u);
  nic.transmitted.clear();
  // A second connection from the same peer (another port) starts at 1400.
  TcpRepr syn = syn_to(server_port);
  syn.src_port = client_port + 1;
  inject(syn);
  EXPECT_EQ(next_header().options.mss, 1400u - 60);
  // A forged error (a sequence number not in flight) caches nothing.
  Bytes forged = first;
  forged[14 + 40 + 4] ^= 0x80;  // the quoted segment's sequence number
  icmp6_error(packet_too_big, 0, 1300, forged);
  EXPECT_EQ(stack.parts().ip6.path_mtu(0, peer_ip6), 1400u);
}

TEST_F(Tcp6, PacketTooBigNeverBelow1280) {
  TcpConnection c = accept();
  two_segments_too_big(c, 600);  // RFC 8201 §4: taken as 1280
  EXPECT_EQ(c.stats().mss, 1280u - 72);
}

TEST_F(Tcp6, PortUnreachableEndsAConnect) {
  auto c = stack.tcp().connect(
      {peer_ip6, 80}, [](TcpConnection) {}, options());
  ASSERT_TRUE(c.ok());
  std::vector<TcpCloseReason> reasons;
  c->on_close([&](TcpCloseReason r) { reasons.push_back(r); });
  Bytes syn = nic.pop();
  icmp6_error(destination_unreachable, port_unreachable, 0, syn);
  EXPECT_EQ(reasons, std::vector<TcpCloseReason>{TcpCloseReason::refused});
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

TEST_F(Tcp6, AnyListenerTakesBothFamilies) {
  listener = *stack.tcp().listen(
      server_port, [](TcpConnection) {}, options());
  inject_ip(tcp_packet(syn_to(server_port)));
  Bytes v4 = nic.pop();
  EXPECT_EQ(sent_tcp(v4).flags, flag::syn | flag::ack);
  EXPECT_EQ(sent_tcp(v4).options.mss, 1460u);
  inject(syn_to(server_port));
  TcpRepr v6_answer = next_header();
  EXPECT_EQ(v6_answer.flags, flag::syn | flag::ack);
  EXPECT_EQ(v6_answer.options.mss, mss6);
  EXPECT_EQ(stack.tcp().connections(), 2u);
  // :: is the same listener as 0.0.0.0.
  EXPECT_EQ(stack.tcp().listen({::net::ip6::Addr{}, server_port}, [](TcpConnection) {}).status,
            Status::in_use);
}

TEST_F(Tcp6, ListenerOnAnAddressTakesOnlyItsFamily) {
  listener = *stack.tcp().listen(
      {stack_ip, server_port}, [](TcpConnection) {}, options());
  inject(syn_to(server_port));
  EXPECT_TRUE(next_header().has(flag::rst));
  auto on6 = stack.tcp().listen(
      {stack_ip6, server_port}, [](TcpConnection) {}, options());
  ASSERT_TRUE(on6.ok());
  inject(syn_to(server_port));
  EXPECT_EQ(next_header().flags, flag::syn | flag::ack);
}

TEST_F(Tcp6, PeerWithoutMssOptionGets1220) {
  // RFC 8200 §8.3: 1280 - 40 - 20 when the SYN carries no MSS option (an
  // MSS of 0 Keel reads as none too).
  TcpConnection c = accept(Peer{.mss = 0, .timestamps = false});
  EXPECT_EQ(c.stats().mss, 1220u);
}

TEST_F(Tcp6, SynCookiesOverIpv6) {
  // RFC 4987 §3.6: with the backlog full the answer is a cookie, whose hash
  // covers the IPv6 4-tuple; the peer's ACK carrying it opens the connection.
  ::net::Tcp::Limits limits;
  limits.backlog = 1;
  stack.tcp().set_limits(limits);
  listener = *stack.tcp().listen(
      server_port, [this](TcpConnection c) { accepted = c; }, options());
  inject(syn_to(server_port));
  nic.transmitted.clear();
  TcpRepr syn = syn_to(server_port);
  syn.src_port = client_port + 1;
  inject(syn);
  TcpRepr cookie = next_header();
  EXPECT_EQ(cookie.flags, flag::syn | flag::ack);
  EXPECT_EQ(cookie.options.mss, mss6);
  EXPECT_EQ(counters().tcp.syn_cookies_sent, 1u);
  // The same ACK from another IPv6 address is refused (the hash differs).
  TcpRepr ack{uint16_t(client_port + 1),
              server_port,
              peer_isn + 1,
              cookie.seq + 1,
              flag::ack,
              511,
              0,
              {},
              0};
  Ip6 other = ip6_of("fd00::3");
  nic.inject(ip6_frame(tcp6_packet(ack, {}, other)));
  EXPECT_EQ(counters().tcp.drop_bad_cookie, 1u);
  nic.transmitted.clear();
  inject(ack);
  EXPECT_EQ(counters().tcp.syn_cookies_accepted, 1u);
  ASSERT_TRUE(accepted.is_open());
  EXPECT_EQ(accepted.remote(), (::net::Endpoint{peer_ip6, uint16_t(client_port + 1)}));
}

TEST_F(Tcp6, TsoSendsOneLargeSegmentTheNicCuts) {
  // Decision 0092: with a NIC that segments TCP over IPv6, a write leaves as
  // one segment of whole MSS (the 4-byte tail waits under Nagle), its
  // checksum offloaded; the NIC (segment_tcp) cuts it into MSS segments
  // whose IPv6 checksums are whole.
  nic.set_offloads({.tso6 = true});
  TcpConnection c = accept();
  const Bytes data = pattern(7 * data_mss6 + 4);
  ASSERT_EQ(*c.write(data), data.size());
  EXPECT_EQ(nic.segmented_frames, 1u);
  EXPECT_EQ(nic.largest_frame, 14 + 40 + 32 + 7 * data_mss6);
  ASSERT_EQ(sent_count(), 7u);
  for (uint32_t i = 0; i < 7; ++i) {
    SentSegment s = next();
    EXPECT_EQ(s.header.seq, iss + 1 + i * data_mss6);
    EXPECT_EQ(s.header.flags, flag::ack);
    EXPECT_EQ(s.payload, Bytes(data.begin() + i * data_mss6, data.begin() + (i + 1) * data_mss6));
  }
}

}  // namespace
}  // namespace keel::test
