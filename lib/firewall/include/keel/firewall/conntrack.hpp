#pragma once
// Connection tracking, as Linux's nf_conntrack does it, in one flat bounded table: every flow is
// stored once with two keys (its original and reply tuples) in an open-addressing index with a
// secret hash key; nothing is allocated after construction. A flow a packet creates is pending
// until confirm() (the last hook it passes, as Linux confirms at postrouting or input): a packet
// dropped on its way leaves no flow behind. Full, the table evicts a flow that never saw a reply
// (Linux's early drop); if none of the flows it looks at may go, the new flow is refused and its
// packet dropped and counted. Expired flows are removed as lookups meet them and by a sweep a
// few flows per packet.
//
// TCP is tracked with Linux's state table and window checks (Rooij's "Real Stateful TCP Packet
// Filtering in IP Filter"): a segment out of the window the receiver announced is `invalid`, an
// old retransmission or a stale ACK is let through as part of its flow without changing it.
// UDP, ICMP queries and other protocols are flows with timeouts; ICMP errors quoting a packet of
// a known flow are `related` to it. docs/firewall/appliance.md has the rules in one place.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "keel/firewall/flow.hpp"
#include "keel/firewall/packet.hpp"

namespace keel::firewall {

struct PacketInfo;

enum class Dir : uint8_t { original, reply };
constexpr Dir other(Dir d) { return d == Dir::original ? Dir::reply : Dir::original; }

enum class TcpState : uint8_t {
  none,
  syn_sent,
  syn_recv,
  established,
  fin_wait,
  close_wait,
  last_ack,
  time_wait,
  close,
  syn_sent2,
};
inline constexpr int kTcpStateCount = 10;
const char* to_string(TcpState state);

// One direction's sequence space, as its segments showed it (Rooij's td_end, td_maxend, ...).
struct TcpPeer {
  uint32_t end = 0;     // highest sequence number sent, plus one
  uint32_t maxend = 0;  // highest sequence number the other side allowed
  uint32_t maxwin = 0;  // largest window announced (scaled)
  uint32_t maxack = 0;  // highest acknowledgement sent
  uint8_t scale = 0;    // window scale (RFC 7323)
  uint8_t flags = 0;    // TcpPeerFlag
};
namespace tcp_peer {
inline constexpr uint8_t window_scale = 1, sack_permitted = 2, close_init = 4, be_liberal = 8,
                         data_unacknowledged = 16, maxack_set = 32;
}

// Flow status bits.
namespace flow_status {
inline constexpr uint16_t in_use = 1, confirmed = 2, seen_reply = 4, assured = 8, src_nat = 16,
                          dst_nat = 32, src_nat_done = 64, dst_nat_done = 128;
}

struct Flow {
  FlowKey tuple[2];  // [Dir::original] as first seen; [Dir::reply] as replies look after NAT
  uint64_t expires_ns = 0;
  TcpPeer tcp[2];
  uint32_t last_end = 0;
  uint32_t serial = 0;  // which use of this slot (pending flows are remembered by it)
  uint16_t status = 0;
  TcpState tcp_state = TcpState::none;
  uint8_t last_index = 0;  // TCP: the flag class of the last segment in the window
  uint8_t last_dir = 0;
  bool has(uint16_t bit) const { return (status & bit) != 0; }
};

// Timeouts in seconds: Linux's defaults (nf_conntrack_*_timeout sysctls).
struct ConntrackTimeouts {
  uint32_t tcp[kTcpStateCount] = {0, 120, 60, 432000, 120, 60, 30, 120, 10, 120};
  uint32_t tcp_unacknowledged = 300;
  uint32_t udp = 30;          // until a reply is seen
  uint32_t udp_stream = 120;  // with replies
  uint32_t icmp = 30;
  uint32_t generic = 600;
};

struct ConntrackConfig {
  size_t max_flows = 16384;
  ConntrackTimeouts timeouts;
  bool tcp_loose = true;  // pick up TCP connections seen mid-stream (nf_conntrack_tcp_loose)
  uint64_t hash_key[2] = {0, 0};  // 0, 0: a random key
};

struct ConntrackCounters {
  uint64_t created = 0, confirmed = 0, pending_lost = 0, expired = 0, evicted = 0, closed = 0;
  uint64_t drop_table_full = 0, drop_confirm_clash = 0;
  uint64_t invalid_malformed = 0, invalid_checksum = 0, invalid_fragment = 0, invalid_tcp_flags = 0,
           invalid_tcp_new = 0, invalid_tcp_window = 0, invalid_tcp_rst = 0, invalid_icmp_new = 0,
           invalid_icmp_error = 0;
  uint64_t tcp_ignored = 0, related = 0;
  uint64_t untracked = 0;  // IPv6 neighbour discovery and MLD (CtState::untracked)
  template <class Fn>
  void for_each(Fn&& fn) const {
    fn("created", created), fn("confirmed", confirmed), fn("pending_lost", pending_lost),
        fn("expired", expired), fn("evicted", evicted);
    fn("closed", closed), fn("drop_table_full", drop_table_full),
        fn("drop_confirm_clash", drop_confirm_clash);
    fn("invalid_malformed", invalid_malformed), fn("invalid_checksum", invalid_checksum);
    fn("invalid_fragment", invalid_fragment), fn("invalid_tcp_flags", invalid_tcp_flags);
    fn("invalid_tcp_new", invalid_tcp_new), fn("invalid_tcp_window", invalid_tcp_window);
    fn("invalid_tcp_rst", invalid_tcp_rst), fn("invalid_icmp_new", invalid_icmp_new);
    fn("invalid_icmp_error", invalid_icmp_error), fn("tcp_ignored", tcp_ignored),
        fn("related", related), fn("untracked", untracked);
  }
};

inline constexpr uint32_t kNoFlow = 0xFFFFFFFFu;

// What tracking made of one packet.
struct Tracked {
  CtState state = CtState::invalid;
  uint32_t flow = kNoFlow;  // kNoFlow when invalid
  Dir dir = Dir::original;  // of this packet (for a related ICMP error: the error's own)
  bool pending = false;     // a flow this packet created: confirm() or abandon() it
  bool table_full = false;  // no room for the new flow: drop the packet (counted)
};

class Conntrack {
 public:
  explicit Conntrack(const ConntrackConfig& config = {});
  ~Conntrack();
  Conntrack(const Conntrack&) = delete;
  Conntrack& operator=(const Conntrack&) = delete;

  // Tracks the packet at `ip` (read into `info`). `verify_checksum`: check the transport
  // checksum (Linux does at prerouting, unless the NIC vouched for it).
  Tracked track(const PacketInfo& info, const uint8_t* ip, bool verify_checksum, uint64_t now_ns);
  // The pending flow's packet passed its last hook: its tuples go into the index (both looked
  // up first; a flow whose reply tuple is its original is one entry). False (and the flow
  // freed, counted) when a tuple is taken meanwhile: the packet must be dropped. A flow
  // reclaimed meanwhile (its packet taken for lost) is not inserted; true.
  bool confirm(uint32_t flow);
  // The pending flow's packet was dropped: the flow goes.
  void abandon(uint32_t flow);
  // Removes expired flows, looking at up to `budget` of them.
  void expire(uint64_t now_ns, size_t budget);

  Flow& flow(uint32_t index) { return flows_[index]; }
  const Flow& flow(uint32_t index) const { return flows_[index]; }
  // Whether a confirmed flow other than `except` uses `key` as one of its tuples (NAT uses this
  // to hand out unique tuples).
  bool tuple_in_use(const FlowKey& key, uint32_t except = kNoFlow) const;
  // The flow (and direction) a tuple belongs to; kNoFlow if none.
  uint32_t find(const FlowKey& key, Dir* dir = nullptr) const;

  size_t size() const { return used_; }
  size_t capacity() const { return flows_.size(); }
  const ConntrackCounters& counters() const { return counters_; }
  const ConntrackConfig& config() const { return config_; }

 private:
  struct Index;
  Tracked track_icmp_error(const PacketInfo& info);
  Tracked create(const PacketInfo& info, const uint8_t* ip, uint64_t now_ns);
  uint32_t allocate(uint64_t now_ns);
  void remove(uint32_t index);  // a confirmed flow out of the index, and freed
  void free_flow(uint32_t index);
  void refresh(Flow& f, const PacketInfo& info, Dir dir, uint64_t now_ns);
  bool checksum_ok(const PacketInfo& info, const uint8_t* ip) const;

  ConntrackConfig config_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_;
  std::unique_ptr<Index> index_;
  size_t used_ = 0;
  // Pending flows, oldest first: a packet the stack drops between two hooks (no route, TTL) never
  // confirms or abandons its flow, so the oldest goes when the ring is full (packets are handled
  // one at a time; only a few are ever on their way at once).
  static constexpr size_t kMaxPending = 32;
  struct PendingRef {
    uint32_t flow = kNoFlow;
    uint32_t serial = 0;
  };
  PendingRef pending_[kMaxPending];
  uint32_t next_serial_ = 0;
  size_t pending_next_ = 0;
  void add_pending(uint32_t index);
  size_t sweep_cursor_ = 0;
  size_t evict_cursor_ = 0;
  ConntrackCounters counters_;
};

}  // namespace keel::firewall
