// ARP (RFC 826) for IPv4 over Ethernet: a bounded cache with timeouts, a
// bounded queue of packets awaiting resolution, replies to requests for our
// address, and gratuitous announcements (RFC 5227 §3) on configure.
//
// Against spoofing (RFC 826 merges any sender into an existing entry): new
// entries are created only by requests addressed to us or by our own
// requests being answered; unsolicited replies never create entries; an
// entry's MAC may change at most once per min_change_interval; a sender
// claiming our own address is counted as a conflict and never cached.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include <kernel/timers.hpp>
#include <net/counters.hpp>
#include <net/ip4_addr.hpp>
#include <net/packet.hpp>

#include "ethernet.hpp"

namespace keel::net {

namespace arp {
inline constexpr uint32_t packet_size = 28;  // RFC 826 for Ethernet + IPv4
inline constexpr uint16_t hardware_ethernet = 1;
inline constexpr uint16_t op_request = 1;
inline constexpr uint16_t op_reply = 2;
}  // namespace arp

class Arp {
 public:
  using Ip = ::net::ip4::Addr;
  using Mac = ::net::ethernet::Addr;
  using Allocate = keel::delegate<::net::PacketPtr()>;

  // RFC 1122 §2.3.2.1: entries time out (a minute, like common practice);
  // requests for one address at most once per second, a few times.
  static constexpr std::chrono::nanoseconds entry_lifetime = std::chrono::seconds(60);
  static constexpr std::chrono::nanoseconds retry_interval = std::chrono::seconds(1);
  static constexpr int max_requests = 3;
  static constexpr std::chrono::nanoseconds min_change_interval = std::chrono::seconds(1);
  static constexpr std::size_t max_entries = 256;
  static constexpr std::size_t max_queued_per_entry = 16;
  static constexpr std::size_t max_queued_total = 64;

  Arp(Ethernet& ethernet, ::net::ArpCounters& counters);
  ~Arp();

  void receive(::net::PacketPtr packet);
  // Sends an IPv4 packet (data() at the IP header) to `next_hop`'s MAC:
  // at once when known, else queued while resolving (or dropped and counted).
  void transmit(::net::PacketPtr ip_packet, Ip next_hop);

  void set_allocate(Allocate allocate) { allocate_ = std::move(allocate); }
  // Our address (any() when unconfigured); sends a gratuitous ARP if set.
  void set_address(Ip address);
  std::optional<Mac> lookup(Ip ip) const;
  std::size_t cache_size() const { return cache_.size(); }

 private:
  struct Entry {
    Mac mac;
    bool resolved = false;
    uint64_t expires_ns = 0;
    uint64_t changed_ns = 0;
    int requests = 0;
    std::vector<::net::PacketPtr> queue;
  };

  bool send(uint16_t op, Mac eth_dst, Mac target_mac, Ip target_ip);
  void update(Entry& entry, Mac mac, uint64_t now);
  Entry* insert(Ip ip, uint64_t now);
  void on_timer();
  void arm_timer();
  void drop_queue(Entry& entry);

  Ethernet& ethernet_;
  ::net::ArpCounters& counters_;
  Allocate allocate_;
  Ip address_;
  std::unordered_map<uint32_t, Entry> cache_;
  std::size_t queued_ = 0;
  os::Timers::id_t timer_ = os::Timers::invalid_id;
};

}  // namespace keel::net
