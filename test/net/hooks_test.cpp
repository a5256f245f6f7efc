// Hook points (api/net/hooks.hpp): every packet at the right hooks with
// the right interfaces, verdicts, order, rewrites routed anew, and hooks
// that change the chains while they run.
#include <algorithm>
#include <net/hooks.hpp>
#include <optional>
#include <ostream>

#include "router_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::Hook;
using ::net::HookPacket;
using ::net::Hooks;
using ::net::InterfaceId;
using ::net::no_interface;
using ::net::Verdict;

constexpr InterfaceId none = no_interface;

struct Seen {
  Hook hook;
  InterfaceId in, out;
  Ip src, dst;
  friend bool operator==(const Seen&, const Seen&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Seen& s) {
    return os << ::net::to_string(s.hook) << " in " << s.in << " out " << s.out << " "
              << s.src.to_string() << " > " << s.dst.to_string();
  }
};

class HooksTest : public RouterTest {
 protected:
  // Records what passes every hook; drops at `drop_at` when set.
  void watch_all() {
    for (Hook hook :
         {Hook::prerouting, Hook::input, Hook::forward, Hook::output, Hook::postrouting}) {
      stack.hooks().add(hook, 0, [this](HookPacket& p) {
        ::net::wire::Ip4View<const uint8_t> v(p.packet.data(), p.packet.size());
        EXPECT_EQ(v.check(), ::net::wire::Ip4Error::none) << ::net::to_string(p.hook);
        seen.push_back({p.hook, p.in, p.out, v.src(), v.dst()});
        return p.hook == drop_at ? Verdict::drop : Verdict::accept;
      });
    }
  }
  std::vector<Seen> seen;
  std::optional<Hook> drop_at;
};

TEST_F(HooksTest, ForThisHostInputThenTheAnswerThroughOutput) {
  watch_all();
  from_peer0(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {})));
  EXPECT_EQ(seen, (std::vector<Seen>{{Hook::prerouting, 0, none, peer_ip, stack_ip},
                                     {Hook::input, 0, none, peer_ip, stack_ip},
                                     {Hook::output, none, 0, stack_ip, peer_ip},
                                     {Hook::postrouting, none, 0, stack_ip, peer_ip}}));
  EXPECT_EQ(nic0.transmitted.size(), 1u);
}

TEST_F(HooksTest, ForwardedPacketsPassPreroutingForwardPostrouting) {
  stack.set_forwarding(true);
  watch_all();
  from_peer1(ip4(peer1_ip, peer_ip, 17, udp(peer1_ip, peer_ip, 1, 2, {})));
  EXPECT_EQ(seen, (std::vector<Seen>{{Hook::prerouting, 1, none, peer1_ip, peer_ip},
                                     {Hook::forward, 1, 0, peer1_ip, peer_ip},
                                     {Hook::postrouting, 1, 0, peer1_ip, peer_ip}}));
  EXPECT_EQ(nic0.transmitted.size(), 1u);
}

TEST_F(HooksTest, ASocketsDatagramsPassOutputAndPostroutingOfTheirInterface) {
  watch_all();
  auto socket = *stack.udp().bind(0);
  ASSERT_EQ(socket.send_to({peer1_ip, 9}, "x", 1), ::net::Status::ok);
  EXPECT_EQ(seen, (std::vector<Seen>{{Hook::output, none, 1, router_ip1, peer1_ip},
                                     {Hook::postrouting, none, 1, router_ip1, peer1_ip}}));
}

// The forward hook sees the TTL already lowered (as Linux's FORWARD chain).
TEST_F(HooksTest, TheForwardHookSeesTheDecrementedTtl) {
  stack.set_forwarding(true);
  int ttl = -1;
  stack.hooks().add(Hook::forward, 0, [&](HookPacket& p) {
    ttl = p.packet.data()[8];
    return Verdict::accept;
  });
  from_peer0(ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 2, {}), {.ttl = 9}));
  EXPECT_EQ(ttl, 8);
}

// A drop at any hook stops the packet there and is counted once.
TEST_F(HooksTest, DropsAtEachHookAreCounted) {
  stack.set_forwarding(true);
  watch_all();
  int delivered = 0;
  auto socket = *stack.udp().bind(7);
  socket.on_read([&](const ::net::UdpDatagram&) { ++delivered; });
  uint64_t drops = 0;
  for (Hook hook :
       {Hook::prerouting, Hook::input, Hook::forward, Hook::output, Hook::postrouting}) {
    drop_at = hook;
    seen.clear();
    nic0.transmitted.clear();
    nic1.transmitted.clear();
    from_peer0(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 1, 7, {})));  // for us
    from_peer0(ip4(peer_ip, peer1_ip, 17, udp(peer_ip, peer1_ip, 1, 7, {})));  // forwarded
    ::net::Status sent = socket.send_to({peer1_ip, 9}, "x", 1);                // ours
    bool input_passes = hook != Hook::prerouting && hook != Hook::input;
    EXPECT_EQ(delivered, input_passes ? 1 : 0) << ::net::to_string(hook);
    delivered = 0;
    bool forward_passes =
        hook != Hook::prerouting && hook != Hook::forward && hook != Hook::postrouting;
    bool output_passes = hook != Hook::output && hook != Hook::postrouting;
    EXPECT_EQ(sent, output_passes ? ::net::Status::ok : ::net::Status::filtered)
        << ::net::to_string(hook);
    EXPECT_EQ(nic1.transmitted.size(), std::size_t(forward_passes) + std::size_t(output_passes))
        << ::net::to_string(hook);
    // Prerouting and postrouting see two of the three packets, the others one.
    int at_hook = hook == Hook::prerouting || hook == Hook::postrouting ? 2 : 1;
    drops += uint64_t(at_hook);
    EXPECT_EQ(counters().ip4.drop_by_hook, drops) << ::net::to_string(hook);
    EXPECT_EQ(
        std::count_if(seen.begin(), seen.end(), [&](const Seen& s) { return s.hook == hook; }),
        at_hook)
        << ::net::to_string(hook);
  }
  EXPECT_EQ(counters().udp.drop_no_port, 0u);
  EXPECT_EQ(nic0.pool().available(), nic0.pool().count());
}

TEST_F(HooksTest, FunctionsRunByPriorityThenOrderUntilOneDrops) {
  std::string ran;
  auto add = [&](int priority, char name, Verdict verdict) {
    return stack.hooks().add(Hook::input, priority, [&ran, name, verdict](HookPacket&) {
      ran += name;
      return verdict;
    });
  };
  add(10, 'c', Verdict::accept);
  add(-5, 'a', Verdict::accept);
  add(10, 'd', Verdict::accept);
  add(0, 'b', Verdict::accept);
  Hooks::Id dropper = add(20, 'e', Verdict::drop);
  add(30, 'f', Verdict::accept);
  from_peer0(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {})));
  EXPECT_EQ(ran, "abcde");
  EXPECT_TRUE(nic0.transmitted.empty());
  stack.hooks().remove(dropper);
  ran.clear();
  from_peer0(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {})));
  EXPECT_EQ(ran, "abcdf");
  EXPECT_EQ(nic0.transmitted.size(), 1u);
  EXPECT_FALSE(stack.hooks().empty(Hook::input));
  EXPECT_TRUE(stack.hooks().empty(Hook::forward));
  stack.hooks().remove(12345);  // unknown: nothing
}

// Prerouting may rewrite the destination (NAT): the packet is routed anew.
TEST_F(HooksTest, APreroutingRewriteOfTheDestinationIsRoutedAnew) {
  stack.set_forwarding(true);
  stack.hooks().add(Hook::prerouting, 0, [](HookPacket& p) {
    ::net::wire::Ip4View<uint8_t> v(p.packet.data(), p.packet.size());
    if (v.dst() == stack_ip) {
      v.set_dst(peer1_ip);  // a port forward, without the UDP checksum for brevity
      v.fill_checksum();
    }
    return Verdict::accept;
  });
  from_peer0(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 1, 2, {})));
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic1.pop()).dst, peer1_ip);
  EXPECT_EQ(counters().ip4.forwarded, 1u);
}

TEST_F(HooksTest, AnOutputRewriteOfTheDestinationIsRoutedAnew) {
  stack.hooks().add(Hook::output, 0, [](HookPacket& p) {
    ::net::wire::Ip4View<uint8_t> v(p.packet.data(), p.packet.size());
    v.set_dst(peer1_ip);
    v.fill_checksum();
    return Verdict::accept;
  });
  auto socket = *stack.udp().bind(0);
  ASSERT_EQ(socket.send_to({peer_ip, 9}, "x", 1), ::net::Status::ok);
  EXPECT_TRUE(nic0.transmitted.empty());
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  EXPECT_EQ(sent_ip(nic1.pop()).dst, peer1_ip);
}

// A function may add and remove functions while it runs: the chains change
// when no function is running any more.
TEST_F(HooksTest, AFunctionMayAddAndRemoveFunctionsWhileItRuns) {
  std::string ran;
  Hooks::Id self = 0, later = 0;
  later = stack.hooks().add(Hook::input, 10, [&](HookPacket&) {
    ran += "L";
    return Verdict::accept;
  });
  self = stack.hooks().add(Hook::input, 0, [&](HookPacket&) {
    ran += "S";
    stack.hooks().remove(self);   // itself
    stack.hooks().remove(later);  // one still to run this time
    stack.hooks().add(Hook::input, 5, [&](HookPacket&) {
      ran += "N";
      return Verdict::accept;
    });
    Hooks::Id gone = stack.hooks().add(Hook::input, 6, [&](HookPacket&) {
      ran += "X";  // added and removed in one run: never runs
      return Verdict::accept;
    });
    stack.hooks().remove(gone);
    return Verdict::accept;
  });
  from_peer0(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {})));
  EXPECT_EQ(ran, "SL");
  ran.clear();
  from_peer0(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 2, {})));
  EXPECT_EQ(ran, "N");
  EXPECT_EQ(nic0.transmitted.size(), 2u);
}

// A function whose packet causes another (a datagram sent from inside the
// input hook's run): hooks run nested, with the right interfaces, and
// changes wait for the outermost run to end.
TEST_F(HooksTest, NestedRunsDeferChangesToTheOutermost) {
  watch_all();
  auto socket = *stack.udp().bind(2);
  socket.on_read([](const ::net::UdpDatagram&) {});
  bool added_ran = false;
  stack.hooks().add(Hook::input, 1, [&](HookPacket&) {
    stack.hooks().add(Hook::output, -1, [&](HookPacket&) {
      added_ran = true;
      return Verdict::accept;
    });
    socket.send_to({peer1_ip, 9}, "x", 1);  // runs output and postrouting inside input's run
    return Verdict::accept;
  });
  from_peer0(ip4(peer_ip, stack_ip, 17, udp(peer_ip, stack_ip, 1, 2, {})));
  EXPECT_FALSE(added_ran);
  EXPECT_EQ(seen, (std::vector<Seen>{{Hook::prerouting, 0, none, peer_ip, stack_ip},
                                     {Hook::input, 0, none, peer_ip, stack_ip},
                                     {Hook::output, none, 1, router_ip1, peer1_ip},
                                     {Hook::postrouting, none, 1, router_ip1, peer1_ip}}));
  EXPECT_EQ(counters().udp.rx, 1u);
  socket.send_to({peer1_ip, 9}, "x", 1);
  EXPECT_TRUE(added_ran);
}

// Loopback: a datagram to one of our own addresses passes output, then
// input on the interface whose address it is; never postrouting or a link.
TEST_F(HooksTest, LoopbackPassesOutputThenInput) {
  watch_all();
  auto socket = *stack.udp().bind(7);
  socket.on_read([](const ::net::UdpDatagram&) {});
  ASSERT_EQ(socket.send_to({router_ip1, 7}, "x", 1), ::net::Status::ok);
  clock.advance(0ns);
  EXPECT_EQ(seen, (std::vector<Seen>{{Hook::output, none, 1, router_ip1, router_ip1},
                                     {Hook::input, 1, none, router_ip1, router_ip1}}));
  EXPECT_EQ(counters().udp.rx, 1u);
}

}  // namespace
}  // namespace keel::test
