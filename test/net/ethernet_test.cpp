// Ethernet input: what a frame must be to be taken, and that drops leak no
// buffers.
#include "stack_fixture.hpp"

namespace keel::test {
namespace {

using EthernetTest = StackTest;

TEST_F(EthernetTest, TruncatedFramesAreCounted) {
  for (std::size_t n = 0; n < 14; ++n) {
    Bytes f(n, 0xff);
    nic.inject(f);
  }
  EXPECT_EQ(link_counters().ethernet.drop_truncated, 14u);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(EthernetTest, OtherUnicastUnjoinedGroupsAndUnknownTypesAreDropped) {
  Mac other{{0x02, 9, 9, 9, 9, 9}};
  nic.inject(ethernet(other, peer_mac, 0x0800, ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {}))));
  nic.inject(ethernet(stack_mac, peer_mac, 0x88cc, Bytes(40)));  // LLDP
  // 224.0.0.251 (mDNS): a group this interface has not joined.
  nic.inject(ethernet(Mac{{0x01, 0, 0x5e, 0, 0, 0xfb}}, peer_mac, 0x0800, Bytes(20)));
  EXPECT_EQ(link_counters().ethernet.drop_not_for_us, 2u);
  EXPECT_EQ(link_counters().ethernet.drop_unknown_type, 1u);
  EXPECT_EQ(counters().ip4.rx, 0u);
  EXPECT_TRUE(nic.transmitted.empty());
}

TEST_F(EthernetTest, NoBuffersLeakOnDrops) {
  std::size_t before = nic.pool().available();
  for (int i = 0; i < 1000; ++i) nic.inject(Bytes(5));
  EXPECT_EQ(nic.pool().available(), before);
}

TEST_F(EthernetTest, FramesAreCountedBothWays) {
  uint64_t rx = link_counters().ethernet.rx, tx = link_counters().ethernet.tx;
  inject_ip(ip4(peer_ip, stack_ip, 1, icmp_echo(1, 1, {})));
  EXPECT_EQ(link_counters().ethernet.rx, rx + 1);
  EXPECT_EQ(link_counters().ethernet.tx, tx + 1);
  EXPECT_EQ(nic.transmitted.size(), 1u);
}

}  // namespace
}  // namespace keel::test
