// ARP (RFC 826) for one interface: a bounded cache with timeouts, a bounded
// queue of packets awaiting resolution, replies to requests for our
// address, and gratuitous announcements (RFC 5227 §3) on configure.
//
// Against spoofing (RFC 826 merges any sender into an existing entry): new
// entries are created only by requests addressed to us or by our own
// requests being answered; unsolicited replies never create entries; an
// entry's MAC may change at most once per min_change_interval; a sender
// claiming our own address is counted as a conflict and never cached.
//
// Time is passed in: poll(now) sends retries and gives up on silent
// addresses; next_deadline() says when it next has to.
#pragma once
#include <chrono>
#include <cstdint>
#include <net/counters.hpp>
#include <net/ip4_addr.hpp>
#include <net/packet.hpp>
#include <optional>
#include <unordered_map>
#include <vector>

#include "net/wire/arp.hpp"

namespace net {

class Link;

class Arp {
 public:
  // RFC 1122 §2.3.2.1: entries time out (a minute, like common practice);
  // requests for one address at most once per second, a few times.
  static constexpr uint64_t entry_lifetime_ns = 60'000'000'000;
  static constexpr uint64_t retry_interval_ns = 1'000'000'000;
  static constexpr int max_requests = 3;
  static constexpr uint64_t min_change_interval_ns = 1'000'000'000;
  static constexpr std::size_t max_entries = 256;
  static constexpr std::size_t max_queued_per_entry = 16;
  static constexpr std::size_t max_queued_total = 64;

  Arp(Link& link, ArpCounters& counters);

  // data() at the ARP packet.
  void receive(PacketPtr packet, uint64_t now);
  // Sends an IPv4 packet (data() at the IP header) to `next_hop`'s MAC: at
  // once when known, else queued while resolving (or dropped and counted).
  void transmit(PacketPtr ip_packet, ip4::Addr next_hop, uint64_t now);
  // Announces our (new) address: a gratuitous ARP.
  void announce();
  // Forgets everything (the address changed).
  void clear();

  void poll(uint64_t now);
  uint64_t next_deadline() const { return next_retry_ns_; }

  std::optional<ethernet::Addr> lookup(ip4::Addr ip) const;
  std::size_t cache_size() const { return cache_.size(); }

 private:
  struct Entry {
    ethernet::Addr mac;
    bool resolved = false;
    uint64_t expires_ns = 0;
    uint64_t changed_ns = 0;
    uint64_t retry_ns = 0;  // when the next request goes out (unresolved)
    int requests = 0;
    std::vector<PacketPtr> queue;
  };

  bool send(uint16_t op, ethernet::Addr eth_dst, ethernet::Addr target_mac, ip4::Addr target_ip);
  void update(Entry& entry, ethernet::Addr mac, uint64_t now);
  Entry* insert(ip4::Addr ip, uint64_t now);
  void drop_queue(Entry& entry);

  Link& link_;
  ArpCounters& counters_;
  std::unordered_map<uint32_t, Entry> cache_;
  std::size_t queued_ = 0;
  uint64_t next_retry_ns_ = UINT64_MAX;
};

}  // namespace net
