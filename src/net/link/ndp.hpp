// Neighbor Discovery (RFC 4861) for one interface, as a host: answers
// neighbour solicitations for our addresses (unicast and solicited-node),
// resolves neighbours before sending with a bounded queue per pending one,
// and keeps a bounded neighbour cache with the states of §7.3.2:
// INCOMPLETE (resolving), REACHABLE (confirmed within reachable_time),
// STALE (unconfirmed: used, and after delay_first_probe a unicast probe
// goes out), PROBE (max_unicast_solicit probes, then the entry goes).
//
// Against floods: the cache holds max_entries; a new entry takes the place
// of the least recently confirmed entry that has nothing queued, or is
// refused (counted). Solicitations create STALE entries as §7.2.3 says,
// advertisements never create any (§7.2.5).
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/counters.hpp>
#include <net/ethernet_addr.hpp>
#include <net/packet.hpp>
#include <optional>
#include <vector>

namespace net {

class Link;
struct Ip6Received;

class Ndp {
 public:
  // RFC 4861 §10 protocol constants.
  static constexpr uint64_t retrans_timer_ns = 1'000'000'000;      // RETRANS_TIMER
  static constexpr uint64_t reachable_time_ns = 30'000'000'000;    // REACHABLE_TIME
  static constexpr uint64_t delay_first_probe_ns = 5'000'000'000;  // DELAY_FIRST_PROBE_TIME
  static constexpr int max_multicast_solicit = 3;
  static constexpr int max_unicast_solicit = 3;
  static constexpr std::size_t max_entries = 256;
  static constexpr std::size_t max_queued_per_entry = 16;
  static constexpr std::size_t max_queued_total = 64;

  enum class State : uint8_t { incomplete, reachable, stale, probe };

  Ndp(Link& link, NdpCounters& counters);

  // A neighbour solicitation or advertisement (ICMPv6 checked, hop limit
  // 255 and code 0 already), `len` bytes at `message`.
  void receive(const Ip6Received& info, const uint8_t* message, std::size_t len);
  // Sends an IPv6 packet (data() at its header) to `next_hop`'s MAC: at
  // once when known, else queued while resolving (or dropped and counted).
  void transmit(PacketPtr packet, const ip6::Addr& next_hop);
  void clear();
  // Duplicate address detection (RFC 4862 §5.4), the simple version: one
  // solicitation from :: (DupAddrDetectTransmits 1), and after RETRANS_TIMER
  // the address is ours, unless an advertisement for it, or another node's
  // detection for it, came first (Link::dad_finished says which). Several
  // addresses may be tentative at once (the static one, SLAAC's).
  void start_dad(const ip6::Addr& address);
  bool is_tentative(const ip6::Addr& a) const;
  template <class Fn>
  void for_each_tentative(Fn fn) const {
    for (const Tentative& t : tentative_) fn(t.address);
  }
  // A router's MAC from its advertisement (RFC 4861 §6.3.4): as a
  // solicitation's source option does, a STALE entry or a changed one.
  void learn(const ip6::Addr& neighbour, ethernet::Addr mac);
  // Sends an ND message (`message` at its ICMPv6 header) from `src` to `dst` at `mac`,
  // hop limit 255, with its checksum.
  void send_icmp(PacketPtr message, const ip6::Addr& src, const ip6::Addr& dst, ethernet::Addr mac);

  void poll(uint64_t now);
  uint64_t next_deadline() const { return next_deadline_; }

  std::optional<ethernet::Addr> lookup(const ip6::Addr& a) const;
  std::optional<State> state(const ip6::Addr& a) const;
  std::size_t cache_size() const { return cache_.size(); }

 private:
  struct Entry {
    ip6::Addr address;
    ethernet::Addr mac;
    State state = State::incomplete;
    uint64_t timer_ns = 0;      // the state's next step (see poll)
    uint64_t confirmed_ns = 0;  // eviction order
    int probes = 0;
    std::vector<PacketPtr> queue;
  };

  void receive_solicitation(const Ip6Received& info, const uint8_t* m, std::size_t len);
  void receive_advertisement(const Ip6Received& info, const uint8_t* m, std::size_t len);
  // The link-layer address option of type `type`, if present; false when
  // the options are malformed (RFC 4861 §7.1: a zero length).
  bool find_mac_option(const uint8_t* m, std::size_t len, std::size_t fixed, uint8_t type,
                       std::optional<ethernet::Addr>& mac) const;
  Entry* find(const ip6::Addr& a);
  Entry* insert(const ip6::Addr& a);
  void set_mac(Entry& e, ethernet::Addr mac, State state);
  void solicit(const ip6::Addr& target, const ip6::Addr* unicast_to, const ethernet::Addr* mac,
               bool from_unspecified = false);
  void advertise(const ip6::Addr& target, const ip6::Addr& to, bool solicited);
  void drop_queue(Entry& e);
  void finish_dad(const ip6::Addr& address, bool unique);
  void schedule(uint64_t at);

  Link& link_;
  NdpCounters& counters_;
  std::vector<Entry> cache_;
  std::size_t queued_ = 0;
  struct Tentative {
    ip6::Addr address;
    uint64_t deadline = 0;
  };
  std::vector<Tentative> tentative_;
  uint64_t next_deadline_ = UINT64_MAX;
};

}  // namespace net
