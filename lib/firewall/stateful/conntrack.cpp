// Connection tracking in one flat bounded table (conntrack.hpp).
#include "keel/firewall/conntrack.hpp"

#include <algorithm>
#include <iterator>
#include <random>

#include "net/wire/checksum.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/tcp.hpp"
#include "packet_info.hpp"
#include "tcp_tracking.hpp"
#include "util/flat_map.hpp"
#include "util/siphash.hpp"

namespace keel::firewall {
namespace {

constexpr uint64_t kNsPerSecond = 1'000'000'000;
constexpr size_t kSweepPerPacket = 2;      // expired flows looked for per tracked packet
constexpr size_t kEvictionCandidates = 8;  // flows looked at for one that may be evicted
constexpr uint32_t kIndexRefDirBit = 1;

struct KeyHash {
  util::SipKey key;
  // An IPv4 key's IPv6 words are zero: hashing its first bytes costs what it did before IPv6.
  uint64_t operator()(const FlowKey& k) const {
    return util::siphash<1, 3>(key, &k, k.family == kFamilyIp4 ? kFlowKeyIp4Bytes : sizeof k);
  }
};

uint32_t ref_of(uint32_t flow, Dir dir) { return flow << 1 | static_cast<uint32_t>(dir); }

// RFC 8200 section 8.1: the IPv6 pseudo-header (addresses, upper-layer length, next header);
// ICMPv6 has it too (RFC 4443 section 2.3), and UDP's checksum is never optional.
bool checksum_matches6(const uint8_t* ip, const PacketInfo& info) {
  constexpr uint32_t kAddressesAt = 8, kAddressesBytes = 32;
  uint32_t sum = net::wire::checksum_add(0, ip + kAddressesAt, kAddressesBytes);
  sum += (info.l4_len >> 16) + (info.l4_len & 0xFFFF) + info.key.proto;
  sum = net::wire::checksum_add(sum, ip + info.header_len, info.l4_len);
  return net::wire::checksum_fold(sum) == 0xffff;
}

bool checksum_matches(const uint8_t* ip, const PacketInfo& info) {
  if (info.key.family == kFamilyIp6) return checksum_matches6(ip, info);
  net::wire::Ip4View<const uint8_t> v(ip, info.header_len + info.l4_len);
  const uint8_t* l4 = ip + info.header_len;
  uint32_t sum = 0;
  if (info.key.proto == kProtoIcmp) {
    sum = net::wire::checksum_add(0, l4, info.l4_len);
  } else {
    uint16_t len = static_cast<uint16_t>(info.l4_len);
    if (info.key.proto == kProtoUdp) {
      if (net::wire::load16(l4 + 6) == 0) return true;  // RFC 768: no checksum sent
      len = net::wire::load16(l4 + 4);
    }
    sum = net::wire::checksum_add(
        net::wire::pseudo_header_sum(v.src(), v.dst(), info.key.proto, len), l4, len);
  }
  return net::wire::checksum_fold(sum) == 0xffff;
}

// Neighbour discovery and multicast listener messages, which Linux's conntrack leaves untracked
// (noct_valid_new in nf_conntrack_proto_icmpv6.c): MLD query, report and done (RFC 2710),
// router and neighbour solicitation and advertisement (RFC 4861), MLDv2 report (RFC 3810).
bool is_untracked_icmp6(uint8_t type) {
  switch (type) {
    case 130:
    case 131:
    case 132:
    case 133:
    case 134:
    case 135:
    case 136:
    case 143:
      return true;
    default:
      return false;
  }
}

// The ICMP of the packet's family (ICMPv6 for IPv6).
bool is_icmp(const FlowKey& k) {
  return k.proto == (k.family == kFamilyIp6 ? kProtoIcmp6 : kProtoIcmp);
}

}  // namespace

struct Conntrack::Index {
  util::FlatMap<FlowKey, uint32_t, KeyHash> map;
  Index(size_t entries, KeyHash hash) : map(entries, hash) {}
};

Conntrack::Conntrack(const ConntrackConfig& config)
    : config_(config), flows_(config.max_flows ? config.max_flows : 1) {
  KeyHash hash;
  hash.key = {config.hash_key[0], config.hash_key[1]};
  if (hash.key.k0 == 0 && hash.key.k1 == 0) {
    std::random_device random;
    hash.key = {uint64_t{random()} << 32 | random(), uint64_t{random()} << 32 | random()};
  }
  index_ = std::make_unique<Index>(2 * flows_.size(), hash);
  free_.reserve(flows_.size());
  for (size_t i = flows_.size(); i-- > 0;) free_.push_back(static_cast<uint32_t>(i));
}

Conntrack::~Conntrack() = default;

void Conntrack::add_pending(uint32_t index) {
  PendingRef& slot = pending_[pending_next_++ % kMaxPending];
  // The flow this slot held is confirmed or freed by now, unless its packet was lost.
  if (slot.flow != kNoFlow) {
    Flow& old = flows_[slot.flow];
    if (old.serial == slot.serial && old.has(flow_status::in_use) &&
        !old.has(flow_status::confirmed)) {
      free_flow(slot.flow);
      ++counters_.pending_lost;
    }
  }
  slot = {index, flows_[index].serial};
}

uint32_t Conntrack::find(const FlowKey& key, Dir* dir) const {
  const uint32_t* ref = index_->map.find(key);
  if (!ref) return kNoFlow;
  if (dir) *dir = static_cast<Dir>(*ref & kIndexRefDirBit);
  return *ref >> 1;
}

bool Conntrack::tuple_in_use(const FlowKey& key, uint32_t except) const {
  uint32_t f = find(key);
  return f != kNoFlow && f != except;
}

void Conntrack::free_flow(uint32_t index) {
  flows_[index] = Flow{};
  free_.push_back(index);
  --used_;
}

void Conntrack::remove(uint32_t index) {
  Flow& f = flows_[index];
  if (f.has(flow_status::confirmed)) {
    index_->map.erase(f.tuple[0]);
    index_->map.erase(f.tuple[1]);
  }
  free_flow(index);
}

void Conntrack::expire(uint64_t now_ns, size_t budget) {
  for (size_t n = 0; n < budget && n < flows_.size(); ++n) {
    sweep_cursor_ = (sweep_cursor_ + 1) % flows_.size();
    Flow& f = flows_[sweep_cursor_];
    if (f.has(flow_status::confirmed) && f.expires_ns <= now_ns) {
      remove(static_cast<uint32_t>(sweep_cursor_));
      ++counters_.expired;
    }
  }
}

// A TCP flow that is closing or closed (Linux's tcp_can_early_drop): its connection is over,
// only stray segments would still use it. Connections made and closed faster than TIME_WAIT's
// 120 s would otherwise fill the table (a connection per request: 137 a second fill 16,384).
static bool closing(const Flow& f) {
  switch (f.tcp_state) {
    case TcpState::fin_wait:
    case TcpState::close_wait:
    case TcpState::last_ack:
    case TcpState::time_wait:
    case TcpState::close:
      return true;
    default:
      return false;
  }
}

// A free slot, or one taken from a flow that has expired, never saw a reply, or is a closing
// TCP connection (Linux's early drop keeps assured flows that are open: an attacker's half-open
// flows cannot push out real connections).
uint32_t Conntrack::allocate(uint64_t now_ns) {
  if (free_.empty()) {
    for (size_t n = 0; n < kEvictionCandidates; ++n) {
      evict_cursor_ = (evict_cursor_ + 1) % flows_.size();
      Flow& f = flows_[evict_cursor_];
      if (!f.has(flow_status::confirmed)) continue;  // pending: its packet is on its way
      if (f.expires_ns <= now_ns || !f.has(flow_status::assured) || closing(f)) {
        ++(f.expires_ns <= now_ns ? counters_.expired : counters_.evicted);
        remove(static_cast<uint32_t>(evict_cursor_));
        break;
      }
    }
    if (free_.empty()) return kNoFlow;
  }
  uint32_t index = free_.back();
  free_.pop_back();
  ++used_;
  flows_[index] = Flow{};
  flows_[index].status = flow_status::in_use;
  flows_[index].serial = ++next_serial_;
  return index;
}

bool Conntrack::checksum_ok(const PacketInfo& info, const uint8_t* ip) const {
  return checksum_matches(ip, info);
}

void Conntrack::refresh(Flow& f, const PacketInfo& info, Dir dir, uint64_t now_ns) {
  const ConntrackTimeouts& t = config_.timeouts;
  uint32_t seconds = t.generic;
  if (info.key.proto == kProtoUdp) {
    seconds = f.has(flow_status::seen_reply) || dir == Dir::reply ? t.udp_stream : t.udp;
    if (dir == Dir::reply) f.status |= flow_status::assured;
  } else if (is_icmp(info.key)) {
    seconds = t.icmp;
  }
  f.expires_ns = now_ns + uint64_t{seconds} * kNsPerSecond;
}

Tracked Conntrack::track_icmp_error(const PacketInfo& info) {
  Tracked out;
  if (!info.inner_ok) {
    ++counters_.invalid_icmp_error;
    return out;
  }
  // The quoted packet travelled the other way; its reversed tuple is the error's own direction.
  Dir dir = Dir::original;
  uint32_t index = find(inverted(info.inner), &dir);
  // The error must go back to whoever sent the quoted packet.
  const FlowKey to = inverted(info.inner);  // its destination is the quoted packet's source
  const bool to_sender = info.key.dst == to.dst &&
                         std::equal(std::begin(info.key.dst6), std::end(info.key.dst6), to.dst6);
  if (index == kNoFlow || !to_sender) {
    ++counters_.invalid_icmp_error;
    return out;
  }
  ++counters_.related;
  out.state = CtState::related;
  out.flow = index;
  out.dir = dir;
  return out;
}

Tracked Conntrack::create(const PacketInfo& info, const uint8_t* ip, uint64_t now_ns) {
  Tracked out;
  Flow candidate;
  if (info.key.proto == kProtoTcp) {
    if (!tcp_start(candidate, info, ip + info.header_len, config_.tcp_loose)) {
      ++counters_.invalid_tcp_new;
      return out;
    }
  } else if (info.key.proto == kProtoIcmp6 && info.key.family == kFamilyIp6) {
    // Only an echo request starts an ICMPv6 flow (RFC 4443 section 4).
    if (info.fields.icmp_type != kIcmp6EchoRequest) {
      ++counters_.invalid_icmp_new;
      return out;
    }
  } else if (info.key.proto == kProtoIcmp && info.key.family == kFamilyIp4) {
    // Only a query starts an ICMP flow (echo, timestamp, information, address mask).
    int reply = icmp_reply_type(info.fields.icmp_type);
    if (reply < 0 || info.fields.icmp_type == kIcmpEchoReply ||
        info.fields.icmp_type == kIcmpTimestampReply || info.fields.icmp_type == kIcmpInfoReply ||
        info.fields.icmp_type == kIcmpAddressMaskReply) {
      ++counters_.invalid_icmp_new;
      return out;
    }
  }
  uint32_t index = allocate(now_ns);
  if (index == kNoFlow) {
    ++counters_.drop_table_full;
    out.table_full = true;
    return out;
  }
  Flow& f = flows_[index];
  f.tcp[0] = candidate.tcp[0];
  f.tcp[1] = candidate.tcp[1];
  f.tuple[0] = info.key;
  f.tuple[1] = inverted(info.key);
  ++counters_.created;
  if (info.key.proto == kProtoTcp) {
    uint32_t timeout = 0;
    TcpVerdict v =
        tcp_track(f, Dir::original, info, ip + info.header_len, config_.timeouts, timeout);
    if (v == TcpVerdict::invalid || v == TcpVerdict::ignore) {
      ++counters_.invalid_tcp_window;
      free_flow(index);
      return out;
    }
    f.expires_ns = now_ns + uint64_t{timeout} * kNsPerSecond;
  } else {
    refresh(f, info, Dir::original, now_ns);
  }
  out.state = CtState::new_;
  out.flow = index;
  out.pending = true;
  add_pending(index);
  return out;
}

Tracked Conntrack::track(const PacketInfo& info, const uint8_t* ip, bool verify_checksum,
                         uint64_t now_ns) {
  expire(now_ns, kSweepPerPacket);
  Tracked out;
  if (info.malformed == Malformed::fragment) {
    ++counters_.invalid_fragment;
    return out;
  }
  if (info.malformed != Malformed::none) {
    ++counters_.invalid_malformed;
    return out;
  }
  if (verify_checksum && (has_ports(info.key.proto) || is_icmp(info.key)) &&
      !checksum_ok(info, ip)) {
    ++counters_.invalid_checksum;
    return out;
  }
  if (info.key.proto == kProtoTcp && !tcp_flags_valid(info.fields.tcp_flags)) {
    ++counters_.invalid_tcp_flags;
    return out;
  }
  if (is_icmp(info.key) && info.icmp_error) return track_icmp_error(info);
  if (info.key.family == kFamilyIp6 && info.key.proto == kProtoIcmp6 &&
      is_untracked_icmp6(info.fields.icmp_type)) {
    ++counters_.untracked;
    out.state = CtState::untracked;
    return out;
  }

  Dir dir = Dir::original;
  uint32_t index = find(info.key, &dir);
  if (index != kNoFlow && flows_[index].expires_ns <= now_ns) {
    remove(index);
    ++counters_.expired;
    index = kNoFlow;
  }
  if (index == kNoFlow) return create(info, ip, now_ns);

  Flow& f = flows_[index];
  out.flow = index;
  out.dir = dir;
  out.state =
      dir == Dir::reply || f.has(flow_status::seen_reply) ? CtState::established : CtState::new_;
  if (info.key.proto == kProtoTcp) {
    uint32_t timeout = 0;
    switch (tcp_track(f, dir, info, ip + info.header_len, config_.timeouts, timeout)) {
      case TcpVerdict::accept:
        f.expires_ns = now_ns + uint64_t{timeout} * kNsPerSecond;
        break;
      case TcpVerdict::ignore:
        ++counters_.tcp_ignored;
        return out;
      case TcpVerdict::invalid:
        ++(info.fields.tcp_flags & net::wire::tcp_flag::rst ? counters_.invalid_tcp_rst
                                                            : counters_.invalid_tcp_window);
        return Tracked{};
      case TcpVerdict::reopen:
        remove(index);
        ++counters_.closed;
        return create(info, ip, now_ns);
      case TcpVerdict::close:
        // This packet still belongs to the flow; the flow is gone after it.
        f.expires_ns = now_ns;
        ++counters_.closed;
        break;
    }
  } else {
    refresh(f, info, dir, now_ns);
  }
  if (dir == Dir::reply) f.status |= flow_status::seen_reply;
  return out;
}

// As Linux's __nf_conntrack_confirm: both tuples are looked up before either goes in, so a
// clash (a tuple another flow took while this packet was on its way, which NAT can cause)
// leaves nothing behind, and a flow whose reply tuple equals its original (a host talking to
// itself from and to one port, a portless protocol such as GRE between a host and itself) is
// no clash with itself. Linux links both of its tuple entries into one hash chain, the reply's
// last, at the head, so its lookups find that one first: every later packet of such a flow is
// in the reply direction (established). One index entry, marked reply, gives the same answers.
bool Conntrack::confirm(uint32_t index) {
  Flow& f = flows_[index];
  if (f.has(flow_status::confirmed)) return true;
  // Reclaimed while its packet was on its way (pending_lost counted it): nothing to insert
  // (the old code inserted an empty tuple). The packet passed its rules; it goes on untracked.
  if (!f.has(flow_status::in_use)) return true;
  const bool self_reply = f.tuple[0] == f.tuple[1];
  const size_t entries = self_reply ? 1 : 2;
  if (find(f.tuple[0]) != kNoFlow || find(f.tuple[1]) != kNoFlow ||
      index_->map.size() + entries > index_->map.max_entries()) {
    // The last cannot happen (the index has room for both tuples of every flow); if it did,
    // refusing the flow is what a full table does.
    ++counters_.drop_confirm_clash;
    free_flow(index);
    return false;
  }
  if (self_reply) {
    *index_->map.try_emplace(f.tuple[0]).first = ref_of(index, Dir::reply);
  } else {
    *index_->map.try_emplace(f.tuple[0]).first = ref_of(index, Dir::original);
    *index_->map.try_emplace(f.tuple[1]).first = ref_of(index, Dir::reply);
  }
  f.status |= flow_status::confirmed;
  ++counters_.confirmed;
  return true;
}

void Conntrack::abandon(uint32_t index) {
  if (index < flows_.size() && flows_[index].has(flow_status::in_use) &&
      !flows_[index].has(flow_status::confirmed))
    free_flow(index);
}

}  // namespace keel::firewall
