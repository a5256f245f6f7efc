#include <gtest/gtest.h>

#include <net/inet.hpp>

#include "fake_os.hpp"
#include "frames.hpp"
#include "memory_nic.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

const Ip server_ip{10, 0, 0, 1};
const Ip offered{10, 0, 0, 50};

struct ClientMessage {
  uint8_t type = 0;
  uint32_t xid = 0;
  Ip ciaddr, requested, server_id, ip_dst;
};

// Parses a DHCP message the client sent (Ethernet/IPv4/UDP 68→67).
std::optional<ClientMessage> parse_client(const Bytes& f) {
  if (f.size() < 14 + 20 + 8 + 240 || keel::net::load16(&f[12]) != 0x0800) return std::nullopt;
  const uint8_t* ip = &f[14];
  const uint8_t* u = ip + 20;
  if (ip[9] != 17 || keel::net::load16(u + 2) != 67) return std::nullopt;
  const uint8_t* d = u + 8;
  std::size_t len = keel::net::load16(u + 4) - 8;
  ClientMessage m;
  m.ip_dst = Ip::from_bytes(ip + 16);
  m.xid = keel::net::load32(d + 4);
  m.ciaddr = Ip::from_bytes(d + 12);
  for (std::size_t i = 240; i + 1 < len && d[i] != 255;) {
    if (d[i] == 0) { ++i; continue; }
    uint8_t code = d[i], n = d[i + 1];
    const uint8_t* v = d + i + 2;
    if (code == 53) m.type = v[0];
    if (code == 50) m.requested = Ip::from_bytes(v);
    if (code == 54) m.server_id = Ip::from_bytes(v);
    i += 2 + n;
  }
  return m;
}

Bytes server_reply(uint8_t type, uint32_t xid, Ip yiaddr, uint32_t lease = 120) {
  Bytes d(240);
  d[0] = 2;
  d[1] = 1;
  d[2] = 6;
  keel::net::store32(&d[4], xid);
  yiaddr.write(&d[16]);
  stack_mac.write(&d[28]);
  keel::net::store32(&d[236], 0x63825363);
  auto opt = [&](uint8_t code, Bytes v) {
    d.push_back(code);
    d.push_back(uint8_t(v.size()));
    d.insert(d.end(), v.begin(), v.end());
  };
  auto addr = [](Ip a) {
    Bytes b(4);
    a.write(b.data());
    return b;
  };
  opt(53, {type});
  opt(54, addr(server_ip));
  if (type != 6) {
    Bytes l(4);
    keel::net::store32(l.data(), lease);
    opt(51, l);
    opt(1, addr(::net::ip4::netmask_of(24)));
    opt(3, addr(server_ip));
    opt(6, addr(Ip{10, 0, 0, 53}));
  }
  d.push_back(255);
  Bytes u = udp(server_ip, Ip::broadcast(), 67, 68, d);
  return ethernet(Mac::broadcast(), peer_mac, 0x0800, ip4(server_ip, Ip::broadcast(), 17, u));
}

class DhcpTest : public ::testing::Test {
 protected:
  DhcpTest() : nic(stack_mac), stack(nic) { reset_os(); }
  void TearDown() override { reset_os(); }

  // The last DHCP message sent, discarding others (ARP).
  std::optional<ClientMessage> last_sent() {
    std::optional<ClientMessage> m;
    while (!nic.transmitted.empty()) {
      Bytes f = nic.pop();
      if (auto parsed = parse_client(f)) m = parsed;
      // The server answers ARP for itself (renewals are unicast).
      if (keel::net::load16(&f[12]) == 0x0806 && keel::net::load16(&f[14 + 6]) == 1 &&
          Ip::from_bytes(&f[14 + 24]) == server_ip && !stack.address().is_any())
        nic.inject(ethernet(stack_mac, peer_mac, 0x0806, arp(2, peer_mac, server_ip, stack_mac, stack.address())));
    }
    return m;
  }

  void obtain_lease(uint32_t lease = 120) {
    auto discover = last_sent();
    ASSERT_TRUE(discover);
    ASSERT_EQ(discover->type, 1);
    nic.inject(server_reply(2, discover->xid, offered, lease));
    auto request = last_sent();
    ASSERT_TRUE(request);
    ASSERT_EQ(request->type, 3);
    EXPECT_EQ(request->requested, offered);
    EXPECT_EQ(request->server_id, server_ip);
    nic.inject(server_reply(5, request->xid, offered, lease));
    ASSERT_TRUE(stack.is_configured());
  }

  ::net::MemoryNic nic;
  ::net::Inet stack;
};

TEST_F(DhcpTest, LeaseRenewRebindExpire) {
  int configs = 0;
  stack.on_config([&](::net::Inet&) { ++configs; });
  ::net::InterfaceConfig c;
  c.mode = ::net::InterfaceConfig::Mode::dhcp;
  stack.apply(c);
  obtain_lease(120);
  EXPECT_EQ(configs, 1);
  EXPECT_EQ(stack.address(), offered);
  EXPECT_EQ(stack.gateway(), server_ip);
  ASSERT_EQ(stack.dns().size(), 1u);
  EXPECT_EQ(stack.counters().dhcp.leases, 1u);

  // T1 = 60 s: a unicast REQUEST to the server with ciaddr set.
  advance(59s);
  EXPECT_FALSE(last_sent());
  advance(2s);
  auto renew = last_sent();
  ASSERT_TRUE(renew);
  EXPECT_EQ(renew->type, 3);
  EXPECT_EQ(renew->ciaddr, offered);
  EXPECT_EQ(renew->ip_dst, server_ip);
  nic.inject(server_reply(5, renew->xid, offered));
  EXPECT_EQ(stack.counters().dhcp.renewals, 1u);
  EXPECT_EQ(configs, 1);  // same address: no new on_config

  // No answer to renewals: at T2 (105 s) it broadcasts, at 120 s it gives up.
  advance(106s);
  auto rebind = last_sent();
  ASSERT_TRUE(rebind);
  EXPECT_EQ(rebind->ip_dst, Ip::broadcast());
  EXPECT_TRUE(stack.is_configured());
  advance(20s);
  EXPECT_FALSE(stack.is_configured());
  EXPECT_EQ(stack.counters().dhcp.expirations, 1u);
  auto discover = last_sent();
  ASSERT_TRUE(discover);
  EXPECT_EQ(discover->type, 1);  // starts over
}

TEST_F(DhcpTest, NakRestarts) {
  ::net::InterfaceConfig c;
  c.mode = ::net::InterfaceConfig::Mode::dhcp;
  c.dhcp_t1 = 5s;
  stack.apply(c);
  obtain_lease();
  advance(6s);
  auto renew = last_sent();
  ASSERT_TRUE(renew);
  nic.inject(server_reply(6, renew->xid, Ip{}));
  EXPECT_FALSE(stack.is_configured());
  EXPECT_EQ(stack.counters().dhcp.rx_nak, 1u);
  auto discover = last_sent();
  ASSERT_TRUE(discover);
  EXPECT_EQ(discover->type, 1);
}

TEST_F(DhcpTest, StaticFallbackAfterTimeout) {
  ::net::InterfaceConfig c;
  c.mode = ::net::InterfaceConfig::Mode::dhcp;
  c.address = Ip{10, 0, 0, 9};
  c.netmask = ::net::ip4::netmask_of(24);
  c.dhcp_timeout = 10s;
  stack.apply(c);
  advance(9s);
  EXPECT_FALSE(stack.is_configured());
  EXPECT_GE(stack.counters().dhcp.tx_discover, 2u);  // retransmitted
  advance(2s);
  EXPECT_TRUE(stack.is_configured());
  EXPECT_EQ(stack.address(), (Ip{10, 0, 0, 9}));
  EXPECT_EQ(stack.counters().dhcp.fallbacks, 1u);
}

TEST_F(DhcpTest, WrongXidAndGarbageAreCounted) {
  ::net::InterfaceConfig c;
  c.mode = ::net::InterfaceConfig::Mode::dhcp;
  stack.apply(c);
  auto discover = last_sent();
  ASSERT_TRUE(discover);
  nic.inject(server_reply(2, discover->xid + 1, offered));
  Bytes truncated = server_reply(2, discover->xid, offered);
  truncated.resize(14 + 20 + 8 + 100);
  nic.inject(truncated);  // UDP length now past the frame: dropped by UDP
  Bytes bad_option = server_reply(2, discover->xid, offered);
  bad_option[bad_option.size() - 2] = 200;  // an option running past the end
  nic.inject(bad_option);
  EXPECT_EQ(stack.counters().dhcp.drop_unexpected, 1u);
  EXPECT_FALSE(stack.is_configured());
}

}  // namespace
}  // namespace keel::test
