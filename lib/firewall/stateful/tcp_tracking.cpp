// TCP connection tracking: the state table Linux's nf_conntrack_proto_tcp uses (so `ct state`
// answers as it does), and the window checks of Guido van Rooij, "Real Stateful TCP Packet
// Filtering in IP Filter" (2000): a segment must end in the receiver's window, start below what
// it allowed, and acknowledge nothing unsent. Written from the published behaviour; the
// differential tests in test/firewall compare it with a Linux kernel packet by packet.
#include "tcp_tracking.hpp"

#include <algorithm>

#include "net/wire/checksum.hpp"
#include "net/wire/tcp.hpp"

namespace keel::firewall {
namespace {

namespace flag = net::wire::tcp_flag;
using S = TcpState;

// Flag classes, in the order of the table's rows.
enum Index : uint8_t { kSyn, kSynAck, kFin, kAck, kRst, kNone, kIndexCount };

Index index_of(uint8_t flags) {
  if (flags & flag::rst) return kRst;
  if (flags & flag::syn) return flags & flag::ack ? kSynAck : kSyn;
  if (flags & flag::fin) return kFin;
  if (flags & flag::ack) return kAck;
  return kNone;
}

// Two outcomes beside the states: the segment does not fit (invalid) or is out of step (ignore).
constexpr uint8_t kIv = 10, kIg = 11;
constexpr uint8_t NO = 0, SS = 1, SR = 2, ES = 3, FW = 4, CW = 5, LA = 6, TW = 7, CL = 8, S2 = 9;

// [direction][flag class][state before] -> state after (columns NO SS SR ES FW CW LA TW CL S2).
constexpr uint8_t kTransitions[2][kIndexCount][kTcpStateCount] = {
    {
        /* syn    */ {SS, SS, kIg, kIg, kIg, kIg, kIg, SS, SS, S2},
        /* synack */ {kIv, kIv, SR, kIv, kIv, kIv, kIv, kIv, kIv, SR},
        /* fin    */ {kIv, kIv, FW, FW, LA, LA, LA, TW, CL, kIv},
        /* ack    */ {ES, kIv, ES, ES, CW, CW, TW, TW, CL, kIv},
        /* rst    */ {kIv, CL, CL, CL, CL, CL, CL, CL, CL, CL},
        /* none   */ {kIv, kIv, kIv, kIv, kIv, kIv, kIv, kIv, kIv, kIv},
    },
    {
        /* syn    */ {kIv, S2, kIv, kIv, kIv, kIv, kIv, SS, kIv, S2},
        /* synack */ {kIv, SR, kIg, kIg, kIg, kIg, kIg, kIg, kIg, SR},
        /* fin    */ {kIv, kIv, FW, FW, LA, LA, LA, TW, CL, kIv},
        /* ack    */ {kIv, kIg, SR, ES, CW, CW, TW, TW, CL, kIg},
        /* rst    */ {kIv, CL, CL, CL, CL, CL, CL, CL, CL, CL},
        /* none   */ {kIv, kIv, kIv, kIv, kIv, kIv, kIv, kIv, kIv, kIv},
    },
};

// Sequence arithmetic modulo 2^32 (RFC 9293 §3.4).
bool before(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) < 0; }
bool after(uint32_t a, uint32_t b) { return before(b, a); }

constexpr uint32_t kMaxAckWindowFloor = 66000;  // an ACK may trail this far (Rooij's bound)
constexpr uint8_t kMaxWindowScale = 14;         // RFC 7323 §2.3
constexpr uint8_t kOptionEnd = 0, kOptionNop = 1, kOptionWindowScale = 3, kOptionSackPermitted = 4,
                  kOptionSack = 5;
constexpr uint8_t kSackBlockBytes = 8;

uint32_t max_ack_window(const TcpPeer& sender) {
  return std::max(sender.maxwin, kMaxAckWindowFloor);
}

struct Segment {
  uint32_t seq, ack, sack, end, win;
  uint8_t flags;
};

// Walks the options of a segment; fn(kind, data, length) for each well-formed one.
template <class Fn>
void for_each_option(const uint8_t* tcp, const PacketInfo& info, Fn&& fn) {
  uint32_t len = info.tcp_header_len - net::wire::tcp_header_min;
  const uint8_t* o = tcp + net::wire::tcp_header_min;
  for (uint32_t i = 0; i < len;) {
    uint8_t kind = o[i];
    if (kind == kOptionEnd) return;
    if (kind == kOptionNop) {
      ++i;
      continue;
    }
    if (i + 1 >= len || o[i + 1] < 2 || i + o[i + 1] > len) return;
    fn(kind, o + i + 2, static_cast<uint32_t>(o[i + 1] - 2));
    i += o[i + 1];
  }
}

// RFC 7323 window scale and RFC 2018 SACK-permitted, read from a SYN.
void read_syn_options(const uint8_t* tcp, const PacketInfo& info, TcpPeer& peer) {
  peer.flags &= static_cast<uint8_t>(~(tcp_peer::window_scale | tcp_peer::sack_permitted));
  peer.scale = 0;
  for_each_option(tcp, info, [&](uint8_t kind, const uint8_t* data, uint32_t len) {
    if (kind == kOptionSackPermitted && len == 0) peer.flags |= tcp_peer::sack_permitted;
    if (kind == kOptionWindowScale && len == 1) {
      peer.flags |= tcp_peer::window_scale;
      peer.scale = std::min(data[0], kMaxWindowScale);
    }
  });
}

// The highest right edge a SACK block acknowledges beyond `ack` (RFC 2018).
uint32_t sack_edge(const uint8_t* tcp, const PacketInfo& info, uint32_t ack) {
  uint32_t sack = ack;
  for_each_option(tcp, info, [&](uint8_t kind, const uint8_t* data, uint32_t len) {
    if (kind != kOptionSack || len % kSackBlockBytes != 0) return;
    for (uint32_t b = 0; b < len; b += kSackBlockBytes) {
      uint32_t right = net::wire::load32(data + b + 4);
      if (after(right, sack)) sack = right;
    }
  });
  return sack;
}

void init_sender(TcpPeer& sender, TcpPeer& receiver, const Segment& s, const uint8_t* tcp,
                 const PacketInfo& info) {
  sender.end = sender.maxend = s.end;
  sender.maxwin = s.win == 0 ? 1 : s.win;
  read_syn_options(tcp, info, sender);
  // RFC 7323 §2.2: scaling only when both sides offered it.
  if (!(sender.flags & tcp_peer::window_scale && receiver.flags & tcp_peer::window_scale))
    sender.scale = receiver.scale = 0;
}

Segment segment_of(const PacketInfo& info, const uint8_t* tcp, const TcpPeer& receiver) {
  Segment s;
  s.flags = info.fields.tcp_flags;
  s.seq = info.seq;
  s.ack = s.sack = info.ack;
  s.win = info.window;
  uint32_t payload = info.l4_len - info.tcp_header_len;
  s.end = s.seq + payload + (s.flags & flag::syn ? 1 : 0) + (s.flags & flag::fin ? 1 : 0);
  if (receiver.flags & tcp_peer::sack_permitted) s.sack = sack_edge(tcp, info, s.ack);
  return s;
}

bool liberal(const TcpPeer& sender) { return sender.flags & tcp_peer::be_liberal; }

// Rooij's checks and the window bookkeeping.
TcpVerdict in_window(Flow& f, Dir dir, const PacketInfo& info, const uint8_t* tcp) {
  TcpPeer& sender = f.tcp[static_cast<int>(dir)];
  TcpPeer& receiver = f.tcp[1 - static_cast<int>(dir)];
  Segment s = segment_of(info, tcp, receiver);
  bool syn = s.flags & flag::syn, ack_set = s.flags & flag::ack, rst = s.flags & flag::rst;
  if (sender.maxwin == 0) {
    if (syn) {
      init_sender(sender, receiver, s, tcp, info);
      if (!ack_set) return TcpVerdict::accept;  // simultaneous open
    } else {
      // Picked up mid-stream in this direction: learn what the segment shows.
      sender.end = s.end;
      uint32_t swin = s.win << sender.scale;
      sender.maxwin = swin == 0 ? 1 : swin;
      sender.maxend = s.end + sender.maxwin;
      if (receiver.maxwin == 0) {
        receiver.end = receiver.maxend = s.sack;
      } else if (s.sack == receiver.end + 1) {
        ++receiver.end;  // the answer to a keep-alive
      }
    }
  } else if (syn && after(s.end, sender.end) &&
             (f.tcp_state == S::syn_sent || f.tcp_state == S::syn_recv)) {
    // RFC 9293 §3.4.1: a reinitialised connection uses higher sequence numbers; start again.
    init_sender(sender, receiver, s, tcp, info);
    if (dir == Dir::reply && !ack_set) return TcpVerdict::accept;
  }
  if (!ack_set || (ack_set && rst && s.ack == 0)) s.ack = s.sack = receiver.end;
  if (rst && s.seq == 0 && f.tcp_state == S::syn_sent)
    s.seq = s.end = sender.end;  // RST answering a SYN

  if (!before(s.seq, sender.maxend + 1) || !before(s.sack, receiver.end + 1))
    return liberal(sender) ? TcpVerdict::accept
                           : TcpVerdict::invalid;  // beyond what was allowed or sent
  bool in_receive_window = receiver.maxwin == 0 || after(s.end, sender.end - receiver.maxwin - 1);
  if (!in_receive_window || !after(s.sack, receiver.end - max_ack_window(sender) - 1))
    return liberal(sender) ? TcpVerdict::accept : TcpVerdict::ignore;  // old data or a stale ACK

  if (!syn) s.win <<= sender.scale;
  uint32_t swin = s.win + (s.sack - s.ack);
  sender.maxwin = std::max(sender.maxwin, swin);
  if (after(s.end, sender.end)) {
    sender.end = s.end;
    sender.flags |= tcp_peer::data_unacknowledged;
  }
  if (ack_set) {
    if (!(sender.flags & tcp_peer::maxack_set)) {
      sender.maxack = s.ack;
      sender.flags |= tcp_peer::maxack_set;
    } else if (after(s.ack, sender.maxack)) {
      sender.maxack = s.ack;
    }
  }
  if (receiver.maxwin != 0 && after(s.end, sender.maxend)) receiver.maxwin += s.end - sender.maxend;
  if (after(s.sack + s.win, receiver.maxend - 1)) {
    receiver.maxend = s.sack + s.win;
    if (s.win == 0) ++receiver.maxend;
  }
  if (s.ack == receiver.end) receiver.flags &= static_cast<uint8_t>(~tcp_peer::data_unacknowledged);
  return TcpVerdict::accept;
}

bool established_like(const Flow& f) { return f.tcp_state == S::established; }

}  // namespace

const char* to_string(TcpState state) {
  static constexpr const char* kNames[] = {"none",     "syn_sent",   "syn_recv", "established",
                                           "fin_wait", "close_wait", "last_ack", "time_wait",
                                           "close",    "syn_sent2"};
  return kNames[static_cast<int>(state)];
}

bool tcp_flags_valid(uint8_t flags) {
  const uint8_t f = flags & (flag::fin | flag::syn | flag::rst | flag::ack | flag::urg);
  switch (f) {
    case flag::syn:
    case flag::syn | flag::urg:
    case flag::syn | flag::ack:
    case flag::rst:
    case flag::rst | flag::ack:
    case flag::fin | flag::ack:
    case flag::fin | flag::ack | flag::urg:
    case flag::ack:
    case flag::ack | flag::urg:
      return true;
    default:
      return false;
  }
}

bool tcp_start(Flow& f, const PacketInfo& info, const uint8_t* tcp, bool loose) {
  uint8_t next = kTransitions[0][index_of(info.fields.tcp_flags)][NO];
  f.tcp[0] = f.tcp[1] = TcpPeer{};
  f.tcp_state = S::none;
  TcpPeer& first = f.tcp[0];
  uint32_t payload = info.l4_len - info.tcp_header_len;
  const uint8_t flags = info.fields.tcp_flags;
  first.end = info.seq + payload + (flags & flag::syn ? 1 : 0) + (flags & flag::fin ? 1 : 0);
  first.maxwin = info.window == 0 ? 1 : info.window;
  if (next == SS) {
    first.maxend = first.end;
    read_syn_options(tcp, info, first);
    return true;
  }
  if (next == ES && loose) {
    // Its history is lost to us: take the segment's word, and check windows liberally.
    first.maxend = first.end + first.maxwin;
    f.tcp[0].flags = f.tcp[1].flags = tcp_peer::sack_permitted | tcp_peer::be_liberal;
    return true;
  }
  return false;
}

TcpVerdict tcp_track(Flow& f, Dir dir, const PacketInfo& info, const uint8_t* tcp,
                     const ConntrackTimeouts& t, uint32_t& timeout_s) {
  const int d = static_cast<int>(dir);
  const Index index = index_of(info.fields.tcp_flags);
  const S old_state = f.tcp_state;
  uint8_t next = kTransitions[d][index][static_cast<int>(old_state)];
  bool check_window = true;
  switch (next) {
    case SS:
      if (old_state < S::time_wait) break;  // a retransmitted SYN
      // A SYN after TIME_WAIT or CLOSE: a new connection on the same ports (RFC 9293 §3.6.1).
      if ((f.tcp[0].flags | f.tcp[1].flags) & tcp_peer::close_init ||
          (f.last_dir == d && f.last_index == kRst))
        return TcpVerdict::reopen;
      [[fallthrough]];
    case kIg:
      // Out of step with what we saw (a retransmitted SYN/ACK, a SYN on a live connection):
      // let it pass as part of the flow, change nothing.
      f.last_index = index;
      f.last_dir = static_cast<uint8_t>(d);
      f.last_end = info.seq;
      return TcpVerdict::ignore;
    case kIv:
      return TcpVerdict::invalid;
    case CL: {
      if (index != kRst) break;
      const TcpPeer& receiver = f.tcp[1 - d];
      if ((receiver.flags & tcp_peer::maxack_set) && f.last_index != kSyn) {
        if (info.seq == 0 && !established_like(f)) break;
        if (before(info.seq, receiver.maxack))
          return TcpVerdict::invalid;  // a RST below what was acked
        if (established_like(f) && info.seq != receiver.maxack)
          next = static_cast<uint8_t>(old_state);
      }
      // A RST answering a half-open connection we let through: its ACK may cover what we ignored.
      if (((f.has(flow_status::seen_reply) && f.last_index == kSyn) ||
           (!f.has(flow_status::assured) && f.last_index == kAck)) &&
          info.ack == f.last_end)
        check_window = false;
      break;
    }
    default:
      break;
  }
  if (check_window) {
    TcpVerdict v = in_window(f, dir, info, tcp);
    if (v != TcpVerdict::accept) return v;
  }
  f.last_index = index;
  f.last_dir = static_cast<uint8_t>(d);
  f.tcp_state = static_cast<S>(next);
  if (old_state != f.tcp_state && f.tcp_state == S::fin_wait)
    f.tcp[d].flags |= tcp_peer::close_init;
  timeout_s = t.tcp[next];
  if (((f.tcp[0].flags | f.tcp[1].flags) & tcp_peer::data_unacknowledged) &&
      timeout_s > t.tcp_unacknowledged)
    timeout_s = t.tcp_unacknowledged;
  if (!f.has(flow_status::seen_reply)) {
    // A RST as the only answer: no connection was made, the flow ends.
    if (info.fields.tcp_flags & flag::rst) return TcpVerdict::close;
  } else if (!f.has(flow_status::assured) &&
             (old_state == S::syn_recv || old_state == S::established) &&
             f.tcp_state == S::established) {
    f.status |= flow_status::assured;
  }
  return TcpVerdict::accept;
}

}  // namespace keel::firewall
