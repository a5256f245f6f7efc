// Forwarding a TCP segment the host coalesced (virtio-net GUEST_TSO4,
// decision 0093): whole to a NIC that segments TCP, cut in software for
// one that does not, never a frame longer than the next link's MTU; when
// its segments do not fit the next link, fragmentation needed (RFC 1191).
#include "router_fixture.hpp"

namespace keel::test {
namespace {

using ::net::wire::checksum_add;
using ::net::wire::checksum_fold;
namespace icmp = ::net::wire::icmp4;

constexpr uint16_t gso = 1448;
constexpr uint32_t count = 10;
constexpr uint32_t first_seq = 1000;
constexpr std::size_t ethernet_header = 14, ip_header = 20, tcp_header = 20;

uint32_t pseudo_sum(const Bytes& ip, std::size_t tcp_len) {
  return checksum_add(0, ip.data() + 12, 8) + 6 + uint32_t(tcp_len);  // RFC 9293 §3.1
}

// peer0 → peer1, DF, ACK|PSH, `payload` bytes; the checksum field holds the
// pseudo-header sum only, as a host hands a coalesced segment over.
Bytes coalesced(const Bytes& payload) {
  Bytes tcp(tcp_header);
  tcp[0] = 0x12, tcp[1] = 0x34, tcp[3] = 80;
  tcp[4] = uint8_t(first_seq >> 24), tcp[5] = uint8_t(first_seq >> 16);
  tcp[6] = uint8_t(first_seq >> 8), tcp[7] = uint8_t(first_seq);
  tcp[12] = 5 << 4;
  tcp[13] = 0x18;
  tcp[14] = 0xff;
  tcp.insert(tcp.end(), payload.begin(), payload.end());
  Bytes ip = ip4(peer_ip, peer1_ip, 6, tcp, {.fragment = 0x4000});
  uint16_t field = checksum_fold(pseudo_sum(ip, tcp.size()));
  ip[ip_header + 16] = uint8_t(field >> 8);
  ip[ip_header + 17] = uint8_t(field);
  return ip;
}

class ForwardCoalesced : public RouterTest {
 protected:
  explicit ForwardCoalesced(uint16_t mtu1 = 1500) : RouterTest(mtu1) {}
  void SetUp() override {
    RouterTest::SetUp();
    stack.set_forwarding(true);
  }
  void from_peer0_coalesced(const Bytes& ip) {
    nic0.inject_coalesced(ip_frame(ip, stack_mac, peer_mac), gso,
                          uint16_t(ethernet_header + ip_header));
  }
  // The payload of nic1's frames in order, each checked: within the MTU, IP
  // and TCP checksums whole, sequence numbers following on.
  Bytes segments_sent() {
    Bytes data;
    uint32_t seq = first_seq;
    while (!nic1.transmitted.empty()) {
      Bytes f = nic1.pop();
      EXPECT_LE(f.size(), ethernet_header + 1500);
      ::net::wire::Ip4Repr ip = sent_ip(f);  // checks the header checksum
      EXPECT_EQ(ip.ttl, 63);
      Bytes packet(f.begin() + ethernet_header, f.end());
      std::size_t tcp_len = packet.size() - ip_header;
      EXPECT_EQ(checksum_fold(
                    checksum_add(pseudo_sum(packet, tcp_len), packet.data() + ip_header, tcp_len)),
                0xffff);
      const uint8_t* t = packet.data() + ip_header;
      EXPECT_EQ(uint32_t(t[4] << 24 | t[5] << 16 | t[6] << 8 | t[7]), seq);
      data.insert(data.end(), t + tcp_header, t + tcp_len);
      seq += uint32_t(tcp_len - tcp_header);
    }
    return data;
  }
};

TEST_F(ForwardCoalesced, CutInSoftwareForANicWithoutTso) {
  Bytes payload = pattern(count * gso + 100, 3);
  from_peer0_coalesced(coalesced(payload));
  EXPECT_EQ(nic1.transmitted.size(), count + 1);
  EXPECT_EQ(segments_sent(), payload);
  EXPECT_EQ(if1.counters().link.tx_software_segmented, 1u);
  EXPECT_EQ(if1.counters().link.tx_software_segments, count + 1);
  EXPECT_EQ(counters().ip4.forwarded, 1u);
  EXPECT_EQ(nic1.pool().available(), nic1.pool().count());
}

TEST_F(ForwardCoalesced, WholeToANicWithTso) {
  nic1.set_offloads({.tx_checksum = true, .tso4 = true});
  Bytes payload = pattern(count * gso, 4);
  Bytes ip = coalesced(payload);
  from_peer0_coalesced(ip);
  EXPECT_EQ(nic1.segmented_frames, 1u);  // the device cut it
  EXPECT_EQ(nic1.largest_frame, ethernet_header + ip.size());
  EXPECT_EQ(segments_sent(), payload);
  EXPECT_EQ(if1.counters().link.tx_software_segmented, 0u);
}

class ForwardCoalescedSmallMtu : public ForwardCoalesced {
 protected:
  ForwardCoalescedSmallMtu() : ForwardCoalesced(1280) {}
};

// Each segment would be 1,488 bytes of IP: too big for a 1,280-byte link.
TEST_F(ForwardCoalescedSmallMtu, SegmentsTooBigForTheNextLinkAreRefused) {
  from_peer0_coalesced(coalesced(pattern(count * gso)));
  EXPECT_TRUE(nic1.transmitted.empty());
  EXPECT_EQ(counters().ip4.drop_fragmentation_needed, 1u);
  ASSERT_EQ(nic0.transmitted.size(), 1u);
  EXPECT_EQ(sent_icmp(nic0.pop()),
            (::net::wire::Icmp4Repr{icmp::unreachable, icmp::fragmentation_needed, 1280}));
}

}  // namespace
}  // namespace keel::test
