// ICMP and ICMPv6 errors about our datagrams, told to the socket that sent
// them (RFC 1122 §4.1.3.3, RFC 4443 §2.4 (d)) through one UdpError for both
// families: port unreachable, the other unreachable codes, prohibited,
// Packet Too Big (which also lowers IPv6's path MTU, RFC 8201), time
// exceeded and parameter problem; only a quote from our address and the
// socket's port reaches it (RFC 5927 §4.1); a handler may close its socket.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ip6_fixture.hpp"
#include "net/stack_parts.hpp"
#include "tcp_frames.hpp"

namespace keel::test {
namespace {

using ::net::Endpoint;
using ::net::Status;
using ::net::UdpError;
using ::net::UdpErrorKind;

constexpr uint8_t proto_icmp = 1, next_icmp6 = 58;
const Ip router_ip{10, 0, 0, 254};
const Ip6 router6 = ip6_of("fd00::fe");

// The error a handler should be given.
void expect_error(const UdpError& e, UdpErrorKind kind, const Endpoint& source,
                  const Endpoint& destination, const ::net::Address& reporter, uint8_t type,
                  uint8_t code) {
  EXPECT_EQ(e.kind, kind);
  EXPECT_EQ(e.source, source);
  EXPECT_EQ(e.destination, destination);
  EXPECT_EQ(e.reporter, reporter);
  EXPECT_EQ(e.type, type);
  EXPECT_EQ(e.code, code);
  EXPECT_EQ(e.mtu, 0u);
}

class UdpErrorsTest : public Ip6StackTest {
 protected:
  void SetUp() override {
    Ip6StackTest::SetUp();
    socket = *stack.udp().bind(5000);  // any(): both families
    socket.on_error([this](const UdpError& e) { errors.push_back(e); });
  }
  // What the socket sent to `to`:9 (`n` bytes): the IP packet.
  Bytes sent_to(const ::net::Address& to, std::size_t n = 4) {
    Bytes data = pattern(n);
    EXPECT_EQ(socket.send_to({to, 9}, data.data(), data.size()), Status::ok);
    EXPECT_FALSE(nic.transmitted.empty());
    Bytes first = nic.transmitted.empty() ? Bytes{} : ip_of(nic.pop());
    nic.transmitted.clear();  // (the other fragments of a fragmented one)
    return first;
  }
  void error4(uint8_t type, uint8_t code, const Bytes& quoted, uint32_t rest = 0,
              Ip from = router_ip) {
    Bytes quote(quoted.begin(), quoted.begin() + long(std::min<std::size_t>(quoted.size(), 28)));
    inject_ip(ip4(from, stack_ip, proto_icmp, icmp_error(type, code, rest, quote)));
  }
  void error6(uint8_t type, uint8_t code, const Bytes& quoted, uint32_t rest = 0,
              const Ip6& from = router6) {
    Bytes quote(quoted.begin(), quoted.begin() + long(std::min<std::size_t>(quoted.size(), 1232)));
    inject6(ip6(from, stack_ip6, next_icmp6, icmp6(from, stack_ip6, type, code, rest, quote)));
  }
  const ::net::UdpCounters& udpc() const { return counters().udp; }

  ::net::UdpSocket socket;
  std::vector<UdpError> errors;
};

TEST_F(UdpErrorsTest, PortUnreachableReachesTheSenderInBothFamilies) {
  error4(3, 3, sent_to(peer_ip), 0, peer_ip);
  error6(1, 4, sent_to(peer_ip6), 0, peer_ip6);
  ASSERT_EQ(errors.size(), 2u);
  expect_error(errors[0], UdpErrorKind::port_unreachable, {stack_ip, 5000}, {peer_ip, 9}, peer_ip,
               3, 3);
  expect_error(errors[1], UdpErrorKind::port_unreachable, {stack_ip6, 5000}, {peer_ip6, 9},
               peer_ip6, 1, 4);
  EXPECT_EQ(udpc().rx_errors, 2u);
  EXPECT_STREQ(::net::to_string(errors[1].kind), "port unreachable");
}

TEST_F(UdpErrorsTest, TheHeadersExample) {  // api/net/udp.hpp
  std::string line;
  socket.on_error([&line](const ::net::UdpError& e) {
    char out[128];
    std::snprintf(out, sizeof out, "%s: %s\n", e.destination.to_string().c_str(),
                  ::net::to_string(e.kind));
    line = out;
  });
  error6(1, 4, sent_to(peer_ip6));
  EXPECT_EQ(line, "[fd00::1]:9: port unreachable\n");
}

TEST_F(UdpErrorsTest, EachCodeHasItsKind) {
  struct Case {
    bool v6;
    uint8_t type, code;
    UdpErrorKind kind;
  };
  const Case cases[] = {
      // RFC 4443 §3.1, §3.3, §3.4.
      {true, 1, 0, UdpErrorKind::unreachable},        // no route
      {true, 1, 1, UdpErrorKind::prohibited},         // administratively prohibited
      {true, 1, 2, UdpErrorKind::unreachable},        // beyond scope
      {true, 1, 3, UdpErrorKind::unreachable},        // address unreachable
      {true, 1, 5, UdpErrorKind::prohibited},         // source address failed policy
      {true, 1, 6, UdpErrorKind::prohibited},         // reject route
      {true, 3, 0, UdpErrorKind::time_exceeded},      // hop limit
      {true, 3, 1, UdpErrorKind::time_exceeded},      // reassembly
      {true, 4, 0, UdpErrorKind::parameter_problem},  // erroneous header
      // RFC 792, RFC 1122 §3.2.2.1, RFC 1812 §5.2.7.1.
      {false, 3, 0, UdpErrorKind::unreachable},       // net
      {false, 3, 1, UdpErrorKind::unreachable},       // host
      {false, 3, 2, UdpErrorKind::port_unreachable},  // protocol
      {false, 3, 9, UdpErrorKind::prohibited},        // net prohibited
      {false, 3, 10, UdpErrorKind::prohibited},       // host prohibited
      {false, 3, 13, UdpErrorKind::prohibited},       // communication prohibited
      {false, 11, 0, UdpErrorKind::time_exceeded},    // TTL
  };
  for (const Case& c : cases) {
    errors.clear();
    if (c.v6) {
      error6(c.type, c.code, sent_to(peer_ip6));
    } else {
      error4(c.type, c.code, sent_to(peer_ip));
    }
    ASSERT_EQ(errors.size(), 1u) << int(c.type) << "/" << int(c.code);
    EXPECT_EQ(errors[0].kind, c.kind) << int(c.type) << "/" << int(c.code);
    EXPECT_EQ(errors[0].type, c.type);
    EXPECT_EQ(errors[0].code, c.code);
  }
}

TEST_F(UdpErrorsTest, PacketTooBigTellsTheSocketAndLowersThePathMtu) {  // RFC 8201 §4
  error6(2, 0, sent_to(peer_ip6, 1400), 1300);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].kind, UdpErrorKind::packet_too_big);
  EXPECT_EQ(errors[0].mtu, 1300u);
  EXPECT_EQ(errors[0].reporter, ::net::Address(router6));
  EXPECT_EQ(stack.parts().ip6.path_mtu(0, peer_ip6), 1300u);
  // Below IPv6's minimum: 1280, as the cache takes it.
  error6(2, 0, sent_to(peer_ip6, 1400), 600);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[1].mtu, 1280u);
  // About a datagram that fitted the MTU it reports: forged, no one told.
  error6(2, 0, sent_to(peer_ip6, 100), 1300);
  EXPECT_EQ(errors.size(), 2u);
  EXPECT_EQ(icmp6_counters().drop_bad_packet_too_big, 1u);
  // IPv4's fragmentation needed, with the next-hop MTU (RFC 1191 §4).
  error4(3, 4, sent_to(peer_ip, 1400), 1200);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[2].kind, UdpErrorKind::packet_too_big);
  EXPECT_EQ(errors[2].mtu, 1200u);
}

TEST_F(UdpErrorsTest, OnlyAQuoteOfOurAddressAndTheSocketsPortReachesIt) {  // RFC 5927 §4.1
  // From another port of ours: no socket sends from it.
  error6(1, 4, ip6(stack_ip6, peer_ip6, 17, udp6(stack_ip6, peer_ip6, 5001, 9, {1})));
  error4(3, 3, ip4(stack_ip, peer_ip, 17, udp(stack_ip, peer_ip, 5001, 9, {1})));
  EXPECT_EQ(udpc().drop_error_no_socket, 2u);
  // From an address that is not ours: the ICMP layers refuse it.
  uint64_t ignored6 = icmp6_counters().rx_ignored, ignored4 = counters().icmp4.rx_ignored;
  error6(1, 4, ip6(peer_ip6, stack_ip6, 17, udp6(peer_ip6, stack_ip6, 5000, 9, {1})));
  error4(3, 3, ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 5000, 9, {1})));
  EXPECT_EQ(icmp6_counters().rx_ignored, ignored6 + 1);
  EXPECT_EQ(counters().icmp4.rx_ignored, ignored4 + 1);
  // Cut short of the UDP header's 8 bytes.
  Bytes ours = sent_to(peer_ip6);
  inject6(ip6(router6, stack_ip6, next_icmp6,
              icmp6(router6, stack_ip6, 1, 4, 0, Bytes(ours.begin(), ours.begin() + 44))));
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(udpc().rx_errors, 0u);
}

TEST_F(UdpErrorsTest, ASocketOnTheAddressBeatsOneOnAny) {
  auto exact = *stack.udp().bind(Endpoint{stack_ip6, 5000});
  std::vector<UdpError> exact_errors;
  exact.on_error([&](const UdpError& e) { exact_errors.push_back(e); });
  Bytes from_exact = ip6(stack_ip6, peer_ip6, 17, udp6(stack_ip6, peer_ip6, 5000, 9, {1}));
  error6(1, 4, from_exact);
  EXPECT_EQ(exact_errors.size(), 1u);
  EXPECT_TRUE(errors.empty());
  error4(3, 3, sent_to(peer_ip));  // IPv4: the any() socket's
  EXPECT_EQ(errors.size(), 1u);
}

TEST_F(UdpErrorsTest, WithoutAnErrorHandlerTheErrorIsCounted) {
  auto quiet = *stack.udp().bind(6000);
  Bytes data{1};
  ASSERT_EQ(quiet.send_to({peer_ip6, 9}, data), Status::ok);
  error6(1, 4, ip_of(nic.pop()));
  EXPECT_EQ(udpc().rx_errors_ignored, 1u);
  EXPECT_EQ(udpc().rx_errors, 0u);
}

TEST_F(UdpErrorsTest, AHandlerMayCloseItsSocketOrThrow) {
  int calls = 0;
  socket.on_error([&](const UdpError&) {
    ++calls;
    socket.close();
    throw 1;  // counted, as a read handler's
  });
  Bytes first = sent_to(peer_ip6), second = sent_to(peer_ip6);
  error6(1, 4, first);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(udpc().handler_exceptions, 1u);
  error6(1, 4, second);  // the socket is gone
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(udpc().drop_error_no_socket, 1u);
}

}  // namespace
}  // namespace keel::test
