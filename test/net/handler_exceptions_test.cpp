// When handlers run and what an exception costs (docs/net/handlers.md).
// Issue 18: a handler's exception unwound through a destructor of the TCP
// layer and terminated the image.
#include <new>
#include <stdexcept>
#include <vector>

#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using Handlers = TcpTest;

TEST_F(Handlers, UdpAndTcpHandlersRunOnceTheStackIsDoneWithTheirFrame) {
  int connects = 0;
  listener = *stack.tcp().listen(
      server_port, [&connects](TcpConnection) { ++connects; }, options());
  auto socket = *stack.udp().bind(7);
  int datagrams = 0;
  socket.on_read([&datagrams](const ::net::UdpDatagram&) { ++datagrams; });
  // Frames straight from the NIC, as the driver hands them over, without
  // the event loop's step the fixture takes after each...
  nic.set_after_receive(nullptr);
  nic.inject(ip_frame(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {1}))));
  TcpRepr syn{client_port, server_port, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
  nic.inject(ip_frame(tcp_packet(syn)));
  TcpRepr synack = next_header();
  nic.inject(ip_frame(tcp_packet(
      TcpRepr{client_port, server_port, peer_isn + 1, synack.seq + 1, flag::ack, 512, 0, {}, 0})));
  EXPECT_EQ(datagrams, 1);  // before the next frame was taken
  EXPECT_EQ(connects, 1);
  advance(0ns);
  EXPECT_EQ(datagrams, 1);
}

TEST_F(Handlers, AUdpHandlerHasRunBeforeTheNextFrameOfThePass) {
  auto socket = *stack.udp().bind(7);
  std::vector<uint8_t> seen;
  socket.on_read([&seen](const ::net::UdpDatagram& d) { seen.push_back(d.payload[0]); });
  nic.set_after_receive(nullptr);
  for (uint8_t i = 0; i < 3; ++i) {
    nic.inject(ip_frame(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {i}))));
    EXPECT_EQ(seen.size(), std::size_t(i) + 1);
  }
  EXPECT_EQ(seen, (std::vector<uint8_t>{0, 1, 2}));
}

TEST_F(Handlers, OnConfigRunsAtTheStackStepToo) {
  int configs = 0;
  iface.on_config([&configs](::net::Interface&) { ++configs; });  // configured already
  EXPECT_EQ(configs, 0);
  advance(0ns);
  EXPECT_EQ(configs, 1);
  iface.configure(Ip{10, 0, 0, 3}, ::net::ip4::netmask_of(24));
  EXPECT_EQ(configs, 1);
  advance(0ns);
  EXPECT_EQ(configs, 2);
}

TEST_F(Handlers, AnExceptionInOneConnectionsHandlerAbortsOnlyThatConnection) {
  TcpConnection healthy = accept();
  Bytes echoed;
  healthy.on_read([&echoed](std::span<const uint8_t> d) { echoed.assign(d.begin(), d.end()); });
  uint16_t healthy_port = their_port;
  uint32_t healthy_iss = iss;

  // A second connection whose read handler runs out of memory.
  their_port = client_port + 1;
  TcpRepr syn{their_port, server_port, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
  inject(syn);
  TcpRepr synack = next_header();
  inject(TcpRepr{their_port, server_port, peer_isn + 1, synack.seq + 1, flag::ack, 512, 0, {}, 0});
  TcpConnection doomed = accepted;
  ASSERT_TRUE(doomed.is_open());
  ASSERT_NE(doomed, healthy);
  doomed.on_read([](std::span<const uint8_t>) { throw std::bad_alloc(); });
  inject(TcpRepr{their_port,
                 server_port,
                 peer_isn + 1,
                 synack.seq + 1,
                 uint8_t(flag::ack | flag::psh),
                 512,
                 0,
                 {},
                 0},
         text("boom"));
  EXPECT_FALSE(doomed.is_open());
  EXPECT_EQ(counters().tcp.handler_exceptions, 1u);
  TcpRepr rst = next_header();
  EXPECT_EQ(rst.flags, flag::rst);
  EXPECT_EQ(rst.dst_port, their_port);

  // The other connection goes on.
  their_port = healthy_port;
  ++peer_ts;
  inject(from_peer(flag::ack | flag::psh, peer_isn + 1, healthy_iss + 1, 511), text("still here"));
  EXPECT_EQ(echoed, text("still here"));
  EXPECT_TRUE(healthy.is_open());
}

TEST_F(Handlers, AnExceptionInOnConnectAndOnCloseIsCounted) {
  listener = *stack.tcp().listen(
      server_port,
      [](TcpConnection c) {
        c.on_close([](::net::TcpCloseReason) { throw std::runtime_error("in on_close"); });
        throw std::runtime_error("in on_connect");
      },
      options());
  TcpRepr syn{client_port, server_port, peer_isn, 0, flag::syn, 65535, 0, {}, 0};
  inject(syn);
  TcpRepr synack = next_header();
  inject(TcpRepr{client_port, server_port, peer_isn + 1, synack.seq + 1, flag::ack, 512, 0, {}, 0});
  EXPECT_EQ(counters().tcp.handler_exceptions, 1u);  // on_close does not run after an abort
  EXPECT_EQ(next_header().flags, flag::rst);
  EXPECT_EQ(stack.tcp().connections(), 0u);
}

TEST_F(Handlers, AnExceptionInAUdpHandlerCostsTheDatagramOnly) {
  auto socket = *stack.udp().bind(7);
  int calls = 0;
  socket.on_read([&calls](const ::net::UdpDatagram& d) {
    ++calls;
    if (d.payload[0] == 1) throw std::bad_alloc();
  });
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {1})));
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {2})));
  EXPECT_EQ(calls, 2);  // the handler stayed
  EXPECT_EQ(counters().udp.handler_exceptions, 1u);
  EXPECT_TRUE(socket.is_open());
}

TEST_F(Handlers, AnExceptionInOnConfigGoesNoFurther) {
  int after = 0;
  iface.on_config([](::net::Interface&) { throw std::runtime_error("config"); });
  iface.on_config([&after](::net::Interface&) { ++after; });
  advance(0ns);
  EXPECT_EQ(after, 1);
}

TEST_F(Handlers, ADriverPassOfManyDatagramsLosesNone) {
  auto socket = *stack.udp().bind(7);
  std::size_t calls = 0;
  socket.on_read([&calls](const ::net::UdpDatagram&) { ++calls; });
  std::size_t frames = 1000;       // more than UdpLayer holds for one pass (256)
  nic.set_after_receive(nullptr);  // one driver pass, no step between frames
  for (std::size_t i = 0; i < frames; ++i) {
    nic.inject(ip_frame(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {1}))));
  }
  EXPECT_EQ(calls, frames);
  EXPECT_EQ(counters().udp.drop_queue_full, 0u);
}

TEST_F(Handlers, DatagramsAHandlerSendsToItsOwnStackEachFindTheirHandler) {
  auto socket = *stack.udp().bind(7);
  std::size_t calls = 0;
  socket.on_read([&](const ::net::UdpDatagram& d) {
    if (++calls > 1) return;
    // 1000 datagrams to this stack's own address: delivered at the next step.
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(socket.send_to(d.destination, d.payload), ::net::Status::ok);
  });
  nic.inject(ip_frame(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {1}))));
  advance(0ns);
  EXPECT_EQ(calls, 1001u);
  EXPECT_EQ(counters().udp.drop_queue_full, 0u);
}

// A send of the service's own that drains the transmit queue (here: a
// connect's SYN, once the NIC has room again) does not run another
// handler inside that call; the writable handler waits for the step.
TEST_F(Handlers, AUdpWritableHandlerNeverRunsInsideTheServicesOwnCall) {
  auto socket = *stack.udp().bind(5000);
  int writable = 0;
  socket.on_writable([&writable] { ++writable; });
  nic.limit_transmit_room(0);
  Bytes one{1};
  while (socket.send_to({peer_ip, 9}, one) == ::net::Status::ok) {
  }
  nic.limit_transmit_room(100000);  // room again, which the NIC did not announce
  ASSERT_EQ(stack.tcp().connect({peer_ip, 80}, [](TcpConnection) {}).status, ::net::Status::ok);
  EXPECT_EQ(iface.transmit_backlog(), 0u);  // the SYN's send drained the queue
  EXPECT_EQ(writable, 0);
  advance(0ns);
  EXPECT_EQ(writable, 1);
}

TEST_F(Handlers, AUdpWritableHandlerThatThrowsIsCounted) {
  auto socket = *stack.udp().bind(5000);
  socket.on_writable([] { throw std::bad_alloc(); });
  nic.limit_transmit_room(0);
  Bytes one{1};
  while (socket.send_to({peer_ip, 9}, one) == ::net::Status::ok) {
  }
  nic.free_transmit_room(100000);
  EXPECT_EQ(counters().udp.handler_exceptions, 1u);
  EXPECT_EQ(socket.send_to({peer_ip, 9}, one), ::net::Status::ok);  // the socket stays
}

}  // namespace
}  // namespace keel::test
