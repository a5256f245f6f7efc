// net::stack(): the image's stack, built on first use from the platform's
// NICs, the embedded configuration and the command line, on the OS's clock
// and one OS timer (src/net/system.cpp). Here the OS is fake_os.cpp and the
// platform's NICs are two in-memory ones. One process holds one image
// stack, so this is one test, in steps.
#include <memory>
#include <net/metrics.hpp>
#include <net/nics.hpp>
#include <net/stack.hpp>
#include <net/syslog.hpp>
#include <stdexcept>

#include "fake_os.hpp"
#include "frames.hpp"
#include "memory_nic.hpp"
#include "net/platform_nics.hpp"

using namespace std::chrono_literals;

namespace {
std::vector<net::MemoryNic*> platform_nics;
}  // namespace

// The "platform": two NICs, found when the stack is first built.
void net::probe_platform_nics(const net::StackConfig&) {
  for (const auto& mac : {keel::test::stack_mac, keel::test::peer_mac}) {
    auto nic = std::make_unique<MemoryNic>(mac);
    platform_nics.push_back(nic.get());
    EXPECT_EQ(register_nic(std::move(nic)), platform_nics.size() - 1);
  }
}

namespace keel::test {
namespace {

TEST(SystemStack, BuiltFromTheCommandLineOnTheOsClock) {
  // A bad configuration stops the boot (status 78, not a panic: decision
  // 0111) with a message that names the field.
  set_args({"ip=10.0.0.2/24", "gw=nonsense"});
  try {
    ::net::stack();
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "stopped: net config: gw: 'nonsense' is not an IPv4 address");
  }
  EXPECT_TRUE(platform_nics.empty());  // stopped before looking for NICs

  set_args({"ip=10.0.0.2/24", "ip1=10.1.0.2/16", "gw1=10.1.0.1", "route=192.168.0.0/16,10.1.0.254",
            "forward=on", "console=ttyS0", "syslog=10.1.0.2:5514"});
  ::net::Stack& stack = ::net::stack();
  EXPECT_EQ(&::net::stack(), &stack);  // built once
  ASSERT_EQ(stack.interface_count(), 2u);
  ASSERT_EQ(platform_nics.size(), 2u);
  EXPECT_EQ(&stack.interface(1).nic(), platform_nics[1]);
  EXPECT_EQ(stack.interface(0).address(), (Ip{10, 0, 0, 2}));
  EXPECT_EQ(stack.interface(1).address(), (Ip{10, 1, 0, 2}));
  EXPECT_EQ(stack.interface(1).netmask(), ::net::ip4::netmask_of(16));
  EXPECT_EQ(stack.interface(1).gateway(), (Ip{10, 1, 0, 1}));
  EXPECT_TRUE(stack.forwarding());
  // The configured route goes through the interface whose subnet holds its gateway.
  auto route = stack.routes().lookup(Ip{192, 168, 3, 3});
  ASSERT_TRUE(route);
  EXPECT_EQ(route->gateway, (Ip{10, 1, 0, 254}));
  EXPECT_EQ(route->interface, 1);

  // Time is the OS's: one timer for all of the stack's deadlines.
  ::net::MemoryNic& nic0 = *platform_nics[0];
  nic0.transmitted.clear();
  auto socket = *stack.udp().bind(0);
  ASSERT_EQ(socket.send_to({Ip{10, 0, 0, 77}, 9}, "x", 1), ::net::Status::ok);
  EXPECT_EQ(stack.interface(0).counters().arp.tx_requests, 1u);
  EXPECT_EQ(armed_timers(), 1u);
  advance_os(999ms);
  EXPECT_EQ(stack.interface(0).counters().arp.tx_requests, 1u);
  advance_os(1ms);
  EXPECT_EQ(stack.interface(0).counters().arp.tx_requests, 2u);
  advance_os(10s);
  EXPECT_EQ(stack.interface(0).counters().arp.tx_requests, 3u);
  EXPECT_EQ(stack.interface(0).counters().arp.drop_unresolved, 1u);
  EXPECT_EQ(armed_timers(), 0u);  // nothing left to wake up for
  // Loopback is delivered by the OS timer too, at once.
  std::string got;
  auto server = *stack.udp().bind(7);
  server.on_read([&](const ::net::UdpDatagram& d) { got.assign(d.data(), d.size()); });
  ASSERT_EQ(socket.send_to({Ip{10, 1, 0, 2}, 7}, "hi", 2), ::net::Status::ok);
  EXPECT_EQ(got, "");
  advance_os(0ns);
  EXPECT_EQ(got, "hi");

  // syslog=: each console line is an RFC 5424 message to the collector
  // (here this host's own port 5514), time from os::wall_clock().
  std::vector<std::string> messages;
  auto collector = *stack.udp().bind(5514);
  collector.on_read(
      [&](const ::net::UdpDatagram& d) { messages.emplace_back(d.data(), d.size()); });
  print("first line\nsecond ");
  print("line\n");
  advance_os(0ns);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], "<30>1 2026-11-27T10:00:11.000000Z 10.0.0.2 keel - - - first line");
  EXPECT_EQ(messages[1], "<30>1 2026-11-27T10:00:11.000000Z 10.0.0.2 keel - - - second line");
  EXPECT_EQ(::net::syslog::counters().sent, 2u);
  // The metrics page has the stack's, the console's and the sender's counters.
  std::string page = ::net::metrics::render();
  EXPECT_NE(page.find("\nkeel_syslog_sent_total 2\n"), std::string::npos);
  EXPECT_NE(page.find("\nkeel_console_dropped_bytes_total 0\n"), std::string::npos);
  EXPECT_NE(page.find("\nkeel_net_link_arp_tx_requests_total{interface=\"0\"} 3\n"),
            std::string::npos)
      << page;
}

}  // namespace
}  // namespace keel::test
