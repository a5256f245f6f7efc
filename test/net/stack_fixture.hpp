// A configured stack on an in-memory NIC, with a peer (10.0.0.1) already in
// its ARP cache, on virtual time.
#pragma once
#include <gtest/gtest.h>

#include <net/inet.hpp>

#include "fake_os.hpp"
#include "frames.hpp"
#include "memory_nic.hpp"

namespace keel::test {

class StackTest : public ::testing::Test {
 protected:
  StackTest() : nic(stack_mac), stack(nic) { reset_os(); }

  void SetUp() override {
    stack.configure(stack_ip, ::net::ip4::netmask_of(24), Ip{10, 0, 0, 254});
    // The peer asks for us: the stack caches it and answers.
    nic.inject(ethernet(Mac::broadcast(), peer_mac, 0x0806, arp(1, peer_mac, peer_ip, Mac{}, stack_ip)));
    nic.transmitted.clear();
  }
  void TearDown() override { reset_os(); }

  void inject_ip(const Bytes& ip_packet) { nic.inject(ip_frame(ip_packet)); }
  const ::net::Counters& counters() const { return stack.counters(); }

  // The IPv4 packet inside transmitted frame `f` (after the Ethernet header).
  static Bytes ip_of(const Bytes& f) { return Bytes(f.begin() + 14, f.end()); }
  static uint16_t ethertype(const Bytes& f) { return keel::net::load16(&f[12]); }

  ::net::MemoryNic nic;
  ::net::Inet stack;
};

}  // namespace keel::test
