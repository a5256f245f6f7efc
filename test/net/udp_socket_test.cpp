// UdpSocket handles (api/net/udp.hpp): what binds, what a closed handle
// answers, ephemeral ports, and handlers that change their own socket
// while they run (the two review defects of issue 9: a handler replacing
// itself freed itself; one closing and binding again left the port unbound).
#include <memory>
#include <set>
#include <string>

#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Endpoint;
using ::net::Status;
using ::net::Udp;
using ::net::UdpDatagram;
using ::net::UdpSocket;

using UdpSocketTest = StackTest;

class UdpHandlerTest : public StackTest {
 protected:
  void deliver(uint16_t port, uint8_t byte = 1) {
    inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, port, {byte})));
  }
};

TEST_F(UdpSocketTest, BindingTheSameEndpointTwiceIsInUse) {
  auto first = stack.udp().bind(7);
  ASSERT_TRUE(first);
  EXPECT_EQ(stack.udp().bind(7).status, Status::in_use);
  // Another address, or one interface only, is another endpoint.
  EXPECT_TRUE(stack.udp().bind(Endpoint{stack_ip, 7}));
  EXPECT_TRUE(stack.udp().bind(Endpoint{Ip{}, 7}, 0));
  EXPECT_EQ(stack.udp().bind(Endpoint{stack_ip, 7}).status, Status::in_use);
  EXPECT_EQ(stack.udp().open_sockets(), 3u);
  EXPECT_TRUE(stack.udp().is_bound(Endpoint{Ip{}, 7}));
  EXPECT_TRUE(stack.udp().is_bound(Endpoint{stack_ip, 7}));
  EXPECT_TRUE(stack.udp().is_bound(Endpoint{Ip{}, 7}, 0));
  EXPECT_FALSE(stack.udp().is_bound(Endpoint{Ip{}, 8}));
  first->close();
  EXPECT_FALSE(stack.udp().is_bound(Endpoint{Ip{}, 7}));
  EXPECT_TRUE(stack.udp().bind(7));  // free again
}

TEST_F(UdpSocketTest, BindRefusesWhatIsNotOurs) {
  EXPECT_EQ(stack.udp().bind(Endpoint{Ip{10, 0, 0, 99}, 7}).status, Status::invalid);
  EXPECT_EQ(stack.udp().bind(Endpoint{Ip{}, 7}, 1).status, Status::invalid);  // no interface 1
  ::net::ip6::Addr v6;
  v6.bytes[15] = 1;
  EXPECT_EQ(stack.udp().bind(Endpoint{v6, 7}).status, Status::invalid);  // ::1 is not ours
  // Groups and broadcast are fine (a socket that takes only those).
  EXPECT_TRUE(stack.udp().bind(Endpoint{Ip{224, 1, 2, 3}, 7}));
  EXPECT_TRUE(stack.udp().bind(Endpoint{Ip::broadcast(), 7}));
  EXPECT_EQ(stack.udp().open_sockets(), 2u);
}

TEST_F(UdpSocketTest, EphemeralPortsAreFreeAndInTheDynamicRange) {  // RFC 6335 §6
  std::set<uint16_t> ports;
  std::vector<UdpSocket> sockets;
  for (int i = 0; i < 100; ++i) {
    auto s = stack.udp().bind(0);
    ASSERT_TRUE(s);
    uint16_t port = s->local().port;
    EXPECT_GE(port, Udp::ephemeral_first);
    EXPECT_LE(port, Udp::ephemeral_last);
    ports.insert(port);
    sockets.push_back(*s);
  }
  EXPECT_EQ(ports.size(), 100u);
  // A port taken by an explicit bind is skipped.
  uint16_t next = uint16_t(*ports.rbegin() + 1);
  if (next >= Udp::ephemeral_first) {
    ASSERT_TRUE(stack.udp().bind(next));
    EXPECT_NE(stack.udp().bind(0)->local().port, next);
  }
  // Datagrams carry the socket's port.
  ASSERT_EQ(sockets[0].send_to({peer_ip, 53}, "a", 1), Status::ok);
  ASSERT_EQ(sockets[1].send_to({peer_ip, 53}, "b", 1), Status::ok);
  EXPECT_EQ(sent_udp(nic.transmitted[0]).src_port, sockets[0].local().port);
  EXPECT_EQ(sent_udp(nic.transmitted[1]).src_port, sockets[1].local().port);
}

TEST_F(UdpSocketTest, SocketsAreBoundedInNumber) {
  std::vector<UdpSocket> sockets;
  for (std::size_t i = 0; i < Udp::max_sockets; ++i) {
    auto s = stack.udp().bind(uint16_t(1000 + i));
    ASSERT_TRUE(s) << i;
    sockets.push_back(*s);
  }
  EXPECT_FALSE(stack.udp().bind(9));
  sockets.back().close();
  EXPECT_TRUE(stack.udp().bind(9));
}

TEST_F(UdpSocketTest, AClosedHandleAnswersClosed) {
  auto socket = *stack.udp().bind(7);
  UdpSocket copy = socket;
  EXPECT_TRUE(copy.is_open());
  EXPECT_EQ(copy.local(), (Endpoint{Ip{}, 7}));
  socket.close();
  for (UdpSocket* s : {&socket, &copy}) {
    EXPECT_FALSE(s->is_open());
    EXPECT_EQ(s->on_read([](const UdpDatagram&) {}), Status::closed);
    EXPECT_EQ(s->on_writable([] {}), Status::closed);
    EXPECT_EQ(s->send_to({peer_ip, 7}, "a", 1), Status::closed);
    EXPECT_EQ(s->local(), Endpoint{});
    EXPECT_EQ(s->interface(), ::net::no_interface);
    s->close();  // again: nothing
  }
  EXPECT_EQ(stack.udp().open_sockets(), 0u);
  EXPECT_TRUE(nic.transmitted.empty());
  // A default handle is closed too.
  UdpSocket none;
  EXPECT_FALSE(none.is_open());
  EXPECT_EQ(none.send_to({peer_ip, 7}, "a", 1), Status::closed);
  EXPECT_EQ(none.on_read([](const UdpDatagram&) {}), Status::closed);
}

// The slot of a closed socket is reused: the old handle must not reach the
// new socket.
TEST_F(UdpSocketTest, AStaleHandleDoesNotReachTheSocketThatReusedItsSlot) {
  auto old = *stack.udp().bind(7);
  old.close();
  auto reused = *stack.udp().bind(8);
  int calls = 0;
  reused.on_read([&](const UdpDatagram&) { ++calls; });
  EXPECT_EQ(old.on_read([](const UdpDatagram&) { FAIL() << "the stale handler ran"; }),
            Status::closed);
  old.close();
  EXPECT_TRUE(reused.is_open());
  EXPECT_NE(old, reused);
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 8, {1})));
  EXPECT_EQ(calls, 1);
}

TEST_F(UdpSocketTest, ASocketWithoutAHandlerAnswersPortUnreachable) {
  auto socket = *stack.udp().bind(7);
  inject_ip(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 4000, 7, {1})));
  EXPECT_EQ(counters().udp.drop_no_port, 1u);
  ASSERT_EQ(nic.transmitted.size(), 1u);
  EXPECT_EQ(sent_icmp(nic.pop()).code, ::net::wire::icmp4::port_unreachable);
  EXPECT_TRUE(socket.is_open());
}

TEST_F(UdpHandlerTest, HandlerMayCloseItsSocket) {
  int calls = 0;
  auto socket = *stack.udp().bind(9);
  socket.on_read([&](const UdpDatagram&) {
    ++calls;
    socket.close();
  });
  deliver(9);
  deliver(9);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(stack.udp().is_bound(Endpoint{Ip{}, 9}));
  EXPECT_EQ(counters().udp.drop_no_port, 1u);
}

// Review defect 1: the handler was run in place, so on_read() inside it
// destroyed the running handler and its captures (a heap use-after-free
// under AddressSanitizer). The captures here live on the heap.
TEST_F(UdpHandlerTest, HandlerMayReplaceItselfAndKeepsItsCapturesWhileItRuns) {
  std::vector<std::string> log;
  auto socket = *stack.udp().bind(9);
  auto first_name = std::make_shared<std::string>(64, 'A');
  auto second_name = std::make_shared<std::string>(64, 'B');
  UdpSocket::ReadHandler second = [&log, second_name](const UdpDatagram&) {
    log.push_back(*second_name);
  };
  socket.on_read([&log, socket, first_name, second](const UdpDatagram&) mutable {
    EXPECT_EQ(socket.on_read(second), Status::ok);  // destroys the old handler's slot copy
    log.push_back(*first_name);                     // the captures must still be alive
    log.push_back(std::to_string(first_name.use_count()));
  });
  first_name.reset();  // the handler holds the only reference now
  deliver(9);
  deliver(9);
  deliver(9);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0], std::string(64, 'A'));
  EXPECT_EQ(log[1], "1");
  EXPECT_EQ(log[2], std::string(64, 'B'));
  EXPECT_EQ(log[3], std::string(64, 'B'));
}

// A handler that replaces itself and then replaces that again: the last
// on_read() wins.
TEST_F(UdpHandlerTest, TheLastHandlerInstalledWins) {
  std::string got;
  auto socket = *stack.udp().bind(9);
  socket.on_read([&, socket](const UdpDatagram&) mutable {
    got += "1";
    socket.on_read([&](const UdpDatagram&) { got += "2"; });
    socket.on_read([&](const UdpDatagram&) { got += "3"; });
  });
  deliver(9);
  deliver(9);
  EXPECT_EQ(got, "13");
}

// Review defect 2: a handler that closes its socket and binds the same
// port again left the port unbound once it returned.
TEST_F(UdpHandlerTest, HandlerMayCloseAndBindTheSamePortAgain) {
  std::string got;
  UdpSocket rebound;
  auto socket = *stack.udp().bind(9);
  socket.on_read([&, socket](const UdpDatagram&) mutable {
    got += "old ";
    socket.close();
    auto again = stack.udp().bind(9);
    ASSERT_TRUE(again);
    rebound = *again;
    rebound.on_read([&](const UdpDatagram&) { got += "new "; });
  });
  deliver(9);
  EXPECT_TRUE(stack.udp().is_bound(Endpoint{Ip{}, 9}));
  EXPECT_TRUE(rebound.is_open());
  EXPECT_FALSE(socket.is_open());
  deliver(9);
  deliver(9);
  EXPECT_EQ(got, "old new new ");
  EXPECT_EQ(counters().udp.drop_no_port, 0u);
}

// Closing and binding again without a handler of its own: the old handler
// does not come back to the new socket.
TEST_F(UdpHandlerTest, ARebindWithoutAHandlerDoesNotInheritTheOldOne) {
  int calls = 0;
  UdpSocket rebound;
  auto socket = *stack.udp().bind(9);
  socket.on_read([&, socket](const UdpDatagram&) mutable {
    ++calls;
    socket.close();
    rebound = *stack.udp().bind(9);
  });
  deliver(9);
  deliver(9);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(rebound.is_open());
  EXPECT_EQ(counters().udp.drop_no_port, 1u);
}

// A handler that binds many sockets (the slot table grows under it) and
// closes another socket: the running one stays intact.
TEST_F(UdpHandlerTest, HandlerMayGrowTheSocketTableAndCloseOthers) {
  int calls = 0;
  std::vector<UdpSocket> more;
  auto other = *stack.udp().bind(10);
  auto socket = *stack.udp().bind(9);
  socket.on_read([&](const UdpDatagram& d) {
    ++calls;
    std::size_t before = d.size();
    for (int i = 0; i < 300; ++i) more.push_back(*stack.udp().bind(0));
    other.close();
    EXPECT_EQ(d.size(), before);  // the datagram is still readable
  });
  deliver(9);
  deliver(9);
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(other.is_open());
  EXPECT_EQ(stack.udp().open_sockets(), 601u);
}

// Sending to one's own address: no link carries it; it arrives on the next
// poll (clock.advance(0ns) runs what is due now), never inside the
// sender's call, so a handler answering itself is not re-entered.
TEST_F(UdpSocketTest, SendingToOurOwnAddressLoopsBackOnTheNextPoll) {
  std::vector<std::pair<Endpoint, Endpoint>> got;
  std::string answer;
  bool answered_inside = false;
  auto server = *stack.udp().bind(7);
  auto client = *stack.udp().bind(5000);
  server.on_read([&, server](const UdpDatagram& d) mutable {
    got.emplace_back(d.source, d.destination);
    EXPECT_EQ(d.interface, 0);
    EXPECT_EQ(server.send_to(d.source, d.payload), Status::ok);  // the answer loops back too
    answered_inside = !answer.empty();
  });
  client.on_read([&](const UdpDatagram& d) { answer.assign(d.data(), d.size()); });
  ASSERT_EQ(client.send_to({stack_ip, 7}, "ping", 4), Status::ok);
  EXPECT_TRUE(got.empty());  // not from inside send_to
  EXPECT_EQ(stack.next_deadline(), 0u);
  clock.advance(0ns);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, (Endpoint{stack_ip, 5000}));
  EXPECT_EQ(got[0].second, (Endpoint{stack_ip, 7}));
  EXPECT_FALSE(answered_inside);
  EXPECT_EQ(answer, "ping");
  EXPECT_EQ(clock.now_ns(), 0u);
  EXPECT_EQ(stack.next_deadline(), ::net::Clock::never);
  EXPECT_TRUE(nic.transmitted.empty());
  EXPECT_EQ(counters().udp.drop_no_port, 0u);
  EXPECT_EQ(nic.pool().available(), nic.pool().count());
}

}  // namespace
}  // namespace keel::test
