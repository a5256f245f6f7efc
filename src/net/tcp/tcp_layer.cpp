// The layer's bookkeeping: limits, slots and the table, deadlines, and the
// service's handlers run once the stack's work is done.
#include "tcp_layer.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cstring>

#include "net/stack_parts.hpp"
#include "seq.hpp"
#include "util/slots.hpp"

namespace net {
namespace {

// Defaults scaled to the image's memory: a connection per 4 KiB of it, a
// quarter of it for buffers.
constexpr std::size_t memory_per_connection = 4096;
constexpr std::size_t min_connections = 256, max_connections = std::size_t(1) << 20;
constexpr std::size_t buffer_share = 4;
constexpr std::size_t min_buffer_memory = std::size_t(1) << 20;
constexpr std::size_t default_total_memory = std::size_t(64) << 20;
constexpr std::size_t max_listeners = 1024;

Tcp::Limits with_defaults(Tcp::Limits l, std::size_t total_memory) {
  if (total_memory == 0) total_memory = default_total_memory;
  if (l.max_connections == 0) {
    l.max_connections =
        std::clamp(total_memory / memory_per_connection, min_connections, max_connections);
  }
  if (l.memory == 0) l.memory = std::max(total_memory / buffer_share, min_buffer_memory);
  if (l.backlog == 0) l.backlog = 1;
  return l;
}

uint16_t random_port() {
  uint16_t r = 0;
  if (getrandom(&r, sizeof r, 0) != ssize_t(sizeof r)) r = 0;
  return uint16_t(Udp::ephemeral_first + r % (Udp::ephemeral_last - Udp::ephemeral_first + 1));
}

}  // namespace

TcpLayer::TcpLayer(StackParts& parts, const StackConfig& config)
    : parts_(parts),
      counters_(parts.counters.tcp),
      limits_(with_defaults({}, config.total_memory)),
      budget_(limits_.memory),
      table_(limits_.max_connections, tcp::ConnectionKeyHash{secrets_.table_key()}),
      listener_ports_(max_listeners),
      time_waits_(limits_.max_connections, tcp::ConnectionKeyHash{secrets_.table_key()}),
      ephemeral_next_(random_port()),
      segmentation_offload_(config.segmentation_offload) {}

TcpLayer::~TcpLayer() = default;

uint64_t TcpLayer::now() const { return parts_.time.now(); }

TcpLayer::Work::~Work() {
  // The segment (or timer pass) is done: its handlers run when the stack
  // is done with the frame or step that brought it (StackParts::
  // run_handlers); the wake-up covers work that came from anywhere else.
  if (--layer_.depth_ == 0 && layer_.handlers_pending()) layer_.parts_.time.wake_by(layer_.now());
}

void TcpLayer::set_limits(const Tcp::Limits& limits) {
  Tcp::Limits next = with_defaults(limits, limits_.memory * buffer_share);
  next.max_connections = std::max(next.max_connections, table_.size());
  if (next.max_connections != limits_.max_connections) {
    tcp::ConnectionTable<uint32_t> table(next.max_connections,
                                         tcp::ConnectionKeyHash{secrets_.table_key()});
    table_.for_each([&table](const tcp::ConnectionKey& key, uint32_t& slot) {
      *table.try_emplace(key).first = slot;
    });
    table_ = std::move(table);
    time_waits_.resize(next.max_connections);
  }
  limits_ = next;
  budget_.set_limit(limits_.memory);
}

tcp::Connection* TcpLayer::create(const tcp::ConnectionKey& key, const TcpOptions& options) {
  if (table_.full()) {
    ++counters_.drop_table_full;
    return nullptr;
  }
  auto [entry, inserted] = table_.try_emplace(key);
  if (!entry || !inserted) return nullptr;
  uint32_t index = keel::util::take_slot(slots_, free_slots_);
  *entry = index;
  Slot& s = slots_[index];
  s.connection = std::make_unique<tcp::Connection>(*this, key, options);
  s.connection->slot = index;
  s.connection->generation = ++s.generation;
  return s.connection.get();
}

void TcpLayer::release(tcp::Connection& c) {
  Slot& s = slots_[c.slot];
  if (s.connection.get() != &c) return;
  table_.erase(c.key);
  deadlines_.set(c.slot, tcp::Deadlines::never);
  graveyard_.push_back(std::move(s.connection));
  free_slots_.push_back(c.slot);
  if (depth_ == 0) parts_.time.wake_by(now());  // bury it (and run on_close) soon
}

tcp::Connection* TcpLayer::find(uint32_t slot, uint32_t generation) {
  if (slot >= slots_.size()) return nullptr;
  Slot& s = slots_[slot];
  if (!s.connection || s.generation != generation || !s.connection->visible()) return nullptr;
  return s.connection.get();
}

const tcp::Connection* TcpLayer::find(uint32_t slot, uint32_t generation) const {
  return const_cast<TcpLayer*>(this)->find(slot, generation);
}

const tcp::Connection* TcpLayer::lookup(uint32_t slot, uint32_t generation) const {
  if (slot >= slots_.size()) return nullptr;
  const Slot& s = slots_[slot];
  return s.connection && s.generation == generation ? s.connection.get() : nullptr;
}

void TcpLayer::schedule(tcp::Connection& c) {
  if (c.slot >= slots_.size() || slots_[c.slot].connection.get() != &c) return;
  uint64_t deadline = c.next_deadline();
  deadlines_.set(c.slot, deadline);
  parts_.time.wake_by(deadline);
}

void TcpLayer::poll(uint64_t now) {
  Work work(*this);
  // Each connection's timers move its deadline on; the bound only guards
  // against one that keeps asking for the past.
  std::size_t budget = 2 * deadlines_.size() + 16;
  while (!deadlines_.empty() && deadlines_.earliest() <= now && budget-- > 0) {
    uint32_t slot = deadlines_.earliest_slot();
    deadlines_.set(slot, tcp::Deadlines::never);
    tcp::Connection* c = slots_[slot].connection.get();
    if (!c) continue;
    c->on_timer(now);
    schedule(*c);
  }
  time_waits_.expire(now);
}

void TcpLayer::entered_time_wait(const tcp::Connection& c, uint64_t t) {
  tcp::TimeWaitRecord r;
  r.key = c.key;
  r.snd_nxt = c.snd_nxt;
  r.rcv_nxt = c.rcv_nxt();
  r.ts_ok = c.ts_ok;
  r.ts_recent = c.ts_recent;
  r.ts_offset = c.ts_offset;
  // The window as the connection advertised it last (rounded up to its
  // scale, as advertise_window() does).
  uint32_t window = tcp::seq_gt(c.rcv_adv, r.rcv_nxt) ? c.rcv_adv - r.rcv_nxt : 0;
  uint32_t unit = 1u << c.rcv_wscale;
  r.window = uint16_t(std::min<uint32_t>((window + unit - 1) >> c.rcv_wscale, UINT16_MAX));
  uint64_t expires = t + uint64_t(std::chrono::nanoseconds(limits_.time_wait).count());
  if (!time_waits_.add(r, expires)) ++counters_.time_wait_recycled;
  parts_.time.wake_by(time_waits_.next_deadline());
}

void TcpLayer::wait_for_link(tcp::Connection& c) {
  if (c.link_blocked) return;
  c.link_blocked = true;
  blocked_.emplace_back(c.slot, c.generation);
}

void TcpLayer::writable() {
  Work work(*this);
  auto blocked = std::move(blocked_);
  blocked_.clear();
  uint64_t t = now();
  for (auto [slot, generation] : blocked) {
    Slot& s = slots_[slot];
    if (!s.connection || s.generation != generation) continue;
    s.connection->link_blocked = false;
    s.connection->output(t);
  }
}

bool TcpLayer::allow_challenge_ack(uint64_t t) {
  uint32_t limit = limits_.challenge_acks_per_second;
  if (limit == 0) return true;
  if (!challenge_drawn_ || t - challenge_refilled_ns_ >= ns_per_second) {
    // CVE-2016-5696: a fixed host-wide count lets an off-path sender learn,
    // by filling it, whether a guessed connection answered. Each second's
    // count is drawn anew from [limit/2, 3·limit/2) (as Linux 4.7), and the
    // per-connection limit (Connection::challenge_ack) comes first, so one
    // connection's challenges never show in another's.
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, 0) != ssize_t(sizeof r)) r = uint32_t(t);
    challenge_tokens_ = limit / 2 + r % std::max<uint32_t>(limit, 1);
    challenge_refilled_ns_ = t;
    challenge_drawn_ = true;
  }
  if (challenge_tokens_ == 0) return false;
  --challenge_tokens_;
  return true;
}

void TcpLayer::notify(tcp::Connection& c) {
  if (c.queued) return;
  c.queued = true;
  ready_.push_back(&c);
  if (depth_ == 0) parts_.time.wake_by(now());
}

void TcpLayer::deliver_later(tcp::Connection& c, uint8_t events) {
  c.events |= events;
  notify(c);
}

}  // namespace net
