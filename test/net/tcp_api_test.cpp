// The service's side of TCP (api/net/tcp.hpp): what listen() and connect()
// refuse, handles that outlive their connection, handlers that close or
// replace themselves, data that waits for a reader, a listener closed
// mid-handshake, statistics, and memory given back.
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using TcpApi = TcpTest;

TEST_F(TcpApi, ListenRefusesWhatIsTakenOrNotOurs) {
  auto first = stack.tcp().listen(80, [](TcpConnection) {});
  ASSERT_TRUE(first);
  EXPECT_EQ(first->local(), (::net::Endpoint{Ip{}, 80}));
  EXPECT_EQ(stack.tcp().listen(80, [](TcpConnection) {}).status, Status::in_use);
  EXPECT_TRUE(
      stack.tcp().listen({stack_ip, 80}, [](TcpConnection) {}));  // one address: another endpoint
  EXPECT_EQ(stack.tcp().listen({Ip{10, 0, 0, 99}, 80}, [](TcpConnection) {}).status,
            Status::invalid);
  EXPECT_EQ(stack.tcp().listen(0, [](TcpConnection) {}).status, Status::invalid);
  ::net::ip6::Addr v6;
  v6.bytes[15] = 1;
  // ::1 is no address of ours (IPv6 listeners: tcp6_test.cpp).
  EXPECT_EQ(stack.tcp().listen({v6, 80}, [](TcpConnection) {}).status, Status::invalid);
  first->close();
  EXPECT_FALSE(first->is_open());
  EXPECT_TRUE(stack.tcp().listen(80, [](TcpConnection) {}));
}

TEST_F(TcpApi, ConnectRefusesWhatCannotBeReached) {
  auto none = [](TcpConnection) {};
  EXPECT_EQ(stack.tcp().connect({peer_ip, 0}, none).status, Status::invalid);
  EXPECT_EQ(stack.tcp().connect({Ip{}, 80}, none).status, Status::invalid);
  EXPECT_EQ(stack.tcp().connect({Ip::broadcast(), 80}, none).status, Status::invalid);
  EXPECT_EQ(stack.tcp().connect({Ip{10, 0, 0, 255}, 80}, none).status, Status::invalid);
  EXPECT_EQ(stack.tcp().connect({peer_ip, 80}, none, {}, {Ip{10, 9, 9, 9}, 0}).status,
            Status::invalid);
  auto a = stack.tcp().connect({peer_ip, 80}, none, {}, {stack_ip, 5555});
  ASSERT_TRUE(a);
  EXPECT_EQ(stack.tcp().connect({peer_ip, 80}, none, {}, {stack_ip, 5555}).status, Status::in_use);
  iface.deconfigure();
  EXPECT_EQ(stack.tcp().connect({peer_ip, 81}, none).status, Status::not_configured);
}

TEST_F(TcpApi, AClosedHandleAnswersClosedEvenAfterItsSlotIsReused) {
  TcpConnection old = accept();
  ASSERT_EQ(old.abort(), Status::ok);
  next();
  TcpConnection copy = old;
  EXPECT_FALSE(copy.is_open());
  EXPECT_EQ(copy.state(), TcpState::closed);
  EXPECT_EQ(copy.write(text("x")).status, Status::closed);
  EXPECT_EQ(copy.shutdown(), Status::closed);
  EXPECT_EQ(copy.consumed(0), Status::closed);
  EXPECT_EQ(copy.on_read(nullptr), Status::closed);
  // A new connection takes the same slot: the old handle still finds nothing.
  listener.close();
  peer_ts = 900;
  TcpConnection fresh = accept();
  ASSERT_TRUE(fresh.is_open());
  EXPECT_NE(fresh, old);
  EXPECT_FALSE(old.is_open());
  EXPECT_EQ(old.write(text("x")).status, Status::closed);
  EXPECT_EQ(TcpConnection{}.write(text("x")).status, Status::closed);
}

TEST_F(TcpApi, AHandlerMayCloseItsOwnConnection) {
  TcpConnection c = accept();
  c.on_read([c](std::span<const uint8_t>) mutable { c.close(); });
  inject(from_peer(flag::ack | flag::psh, peer_isn + 1, iss + 1, 511), text("bye"));
  EXPECT_EQ(next_header(), from_us(flag::fin | flag::ack, iss + 1, peer_isn + 4, full_window));
  EXPECT_FALSE(c.is_open());
}

TEST_F(TcpApi, AHandlerMayReplaceItselfAndTheNewOneTakesWhatFollows) {
  TcpConnection c = accept();
  std::string log;
  c.on_read([&, c](std::span<const uint8_t> d) mutable {
    log += "first:" + std::string(d.begin(), d.end()) + ";";
    c.on_read([&](std::span<const uint8_t> e) {
      log += "second:" + std::string(e.begin(), e.end()) + ";";
    });
  });
  inject(from_peer(flag::ack, peer_isn + 1, iss + 1, 511), text("a"));
  inject(from_peer(flag::ack, peer_isn + 2, iss + 1, 511), text("b"));
  EXPECT_EQ(log, "first:a;second:b;");
}

TEST_F(TcpApi, DataWaitsForAReaderAndArrivesFromTheEventLoop) {
  TcpConnection c = accept();
  inject(from_peer(flag::ack | flag::fin, peer_isn + 1, iss + 1, 511), text("early"));
  std::string got;
  int ends = 0;
  c.on_read([&](std::span<const uint8_t> d) {
    if (d.empty()) ++ends;
    got.append(d.begin(), d.end());
  });
  EXPECT_EQ(got, "");  // not from inside on_read()
  advance(0ms);
  EXPECT_EQ(got, "early");
  EXPECT_EQ(ends, 1);
}

TEST_F(TcpApi, AListenerClosedDuringTheHandshakeResetsTheConnection) {
  listener = *stack.tcp().listen(
      80, [this](TcpConnection c) { accepted = c; }, options());
  TcpRepr syn{client_port, 80, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
  inject(syn);
  TcpRepr synack = next_header();
  listener.close();
  inject(TcpRepr{client_port, 80, peer_isn + 1, synack.seq + 1, flag::ack, 512, 0, {}, 0});
  EXPECT_EQ(next_header(), (TcpRepr{80, client_port, synack.seq + 1, 0, flag::rst, 0, 0, {}, 0}));
  EXPECT_FALSE(accepted.is_open());
  EXPECT_EQ(stack.tcp().connections(), 0u);
  inject(syn);  // and new ones are refused
  EXPECT_EQ(next_header().flags, flag::rst | flag::ack);
}

TEST_F(TcpApi, StatisticsCountTheTransfer) {
  TcpConnection c = accept();
  c.on_read([](std::span<const uint8_t>) {});
  ASSERT_EQ(*c.write(pattern(3000)), 3000u);
  next();
  next();
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 2897, 511));
  next();  // the last 104 bytes, after Nagle
  ++peer_ts;
  inject(from_peer(flag::ack, peer_isn + 1, iss + 3001, 511), pattern(500));
  ::net::TcpStats s = c.stats();
  EXPECT_EQ(s.state, TcpState::established);
  EXPECT_EQ(s.bytes_sent, 3000u);
  EXPECT_EQ(s.bytes_acked, 3000u);
  EXPECT_EQ(s.bytes_received, 500u);
  EXPECT_EQ(s.segments_sent, 4u);      // SYN-ACK and three data segments
  EXPECT_EQ(s.segments_received, 3u);  // the handshake's ACK and two
  EXPECT_EQ(s.retransmits, 0u);
  EXPECT_EQ(s.rto_ms, 200u);
  EXPECT_EQ(s.send_window, 511u << 7);
  EXPECT_EQ(c.options().receive_buffer, buffer);
}

TEST_F(TcpApi, MemoryComesBackWhenConnectionsEnd) {
  TcpConnection c = accept();
  c.on_read([](std::span<const uint8_t>) {});
  ASSERT_EQ(*c.write(pattern(20000)), 20000u);
  inject(from_peer(flag::ack, peer_isn + 1 + 1448, iss + 1, 511),
         pattern(1448));  // out of order: kept
  EXPECT_GT(stack.tcp().memory_used(), 20000u);
  c.abort();
  advance(0ms);
  EXPECT_EQ(stack.tcp().memory_used(), 0u);
}

TEST_F(TcpApi, TheBudgetBoundsWhatIsBuffered) {
  ::net::Tcp::Limits limits;
  limits.memory = 16 * 1024;
  stack.tcp().set_limits(limits);
  TcpConnection c = accept();
  auto taken = c.write(pattern(100000));
  ASSERT_TRUE(taken.ok());
  EXPECT_LE(*taken, 16u * 1024);
  EXPECT_LE(stack.tcp().memory_used(), 16u * 1024);
}

TEST_F(TcpApi, CongestionControlIsChosenPerConnection) {
  TcpOptions o = options();
  o.congestion = ::net::TcpCongestion::newreno;
  TcpConnection c = accept({}, o);
  EXPECT_EQ(c.options().congestion, ::net::TcpCongestion::newreno);
  EXPECT_EQ(c.set_congestion(::net::TcpCongestion::cubic), Status::ok);
  EXPECT_EQ(c.options().congestion, ::net::TcpCongestion::cubic);
  EXPECT_EQ(c.set_buffers(0, 10), Status::invalid);
  EXPECT_EQ(c.set_buffers(1 << 20, 1 << 20), Status::ok);
  EXPECT_EQ(c.send_space(), std::size_t(1) << 20);
}

}  // namespace
}  // namespace keel::test
