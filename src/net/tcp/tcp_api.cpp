// net::Tcp, TcpListener and TcpConnection: handles onto the TCP layer.
// Every call finds its connection by slot and generation first, so a
// closed handle answers Status::closed and touches nothing.
#include <net/tcp.hpp>

#include "net/ip6/addr.hpp"
#include "net/stack_parts.hpp"
#include "tcp_layer.hpp"
#include "util/slots.hpp"

namespace net {

const char* to_string(TcpState state) {
  switch (state) {
    case TcpState::closed:
      return "CLOSED";
    case TcpState::listen:
      return "LISTEN";
    case TcpState::syn_sent:
      return "SYN-SENT";
    case TcpState::syn_received:
      return "SYN-RECEIVED";
    case TcpState::established:
      return "ESTABLISHED";
    case TcpState::fin_wait_1:
      return "FIN-WAIT-1";
    case TcpState::fin_wait_2:
      return "FIN-WAIT-2";
    case TcpState::close_wait:
      return "CLOSE-WAIT";
    case TcpState::closing:
      return "CLOSING";
    case TcpState::last_ack:
      return "LAST-ACK";
    case TcpState::time_wait:
      return "TIME-WAIT";
  }
  return "?";
}

const char* to_string(TcpCloseReason reason) {
  switch (reason) {
    case TcpCloseReason::closed:
      return "closed";
    case TcpCloseReason::reset:
      return "reset";
    case TcpCloseReason::refused:
      return "refused";
    case TcpCloseReason::unreachable:
      return "unreachable";
    case TcpCloseReason::timed_out:
      return "timed out";
    case TcpCloseReason::no_memory:
      return "no memory";
  }
  return "?";
}

TcpBuffer TcpBuffer::from(std::vector<uint8_t> data) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(data));
  return {owner, {owner->data(), owner->size()}};
}
TcpBuffer TcpBuffer::from(std::string data) {
  auto owner = std::make_shared<std::string>(std::move(data));
  return {owner, {reinterpret_cast<const uint8_t*>(owner->data()), owner->size()}};
}
TcpBuffer TcpBuffer::from(std::shared_ptr<const std::vector<uint8_t>> data) {
  std::span<const uint8_t> bytes =
      data ? std::span<const uint8_t>(*data) : std::span<const uint8_t>{};
  return {std::move(data), bytes};
}

// The layer's side of listen() and connect().

Result<TcpListener> TcpLayer::listen(const Endpoint& local, Tcp::ConnectHandler on_connect,
                                     const TcpOptions& options) {
  const Address& address = local.address;
  if (local.port == 0 || !is_ours_or_any(address)) return Status::invalid;
  // 0.0.0.0 and :: are one listener, of both families (decision 0131).
  const uint32_t* first = listener_ports_.find(local.port);
  for (uint32_t i = first ? *first : none; i != none; i = listeners_[i].next_on_port) {
    const Address& other = listeners_[i].address;
    if (other == address || (other.is_any() && address.is_any())) return Status::in_use;
  }
  if (free_listeners_.empty() && listener_ports_.full()) return Status::in_use;
  uint32_t index = keel::util::take_slot(listeners_, free_listeners_);
  Listener& l = listeners_[index];
  uint32_t generation = l.generation + 1;
  l = Listener{};
  l.generation = generation;
  l.open = true;
  l.address = address;
  l.port = local.port;
  l.on_connect = std::move(on_connect);
  l.options = options;
  auto [head, inserted] = listener_ports_.try_emplace(local.port);
  if (!head) return Status::in_use;
  l.next_on_port = inserted ? none : *head;
  *head = index;
  return TcpListener(this, index, generation);
}

void TcpLayer::close_listener(uint32_t slot, uint32_t generation) {
  if (!listener_open(slot, generation)) return;
  Listener& l = listeners_[slot];
  uint32_t* head = listener_ports_.find(l.port);
  if (head && *head == slot) {
    if (l.next_on_port == none)
      listener_ports_.erase(l.port);
    else
      *head = l.next_on_port;
  } else {
    for (uint32_t i = head ? *head : none; i != none; i = listeners_[i].next_on_port) {
      if (listeners_[i].next_on_port == slot) {
        listeners_[i].next_on_port = l.next_on_port;
        break;
      }
    }
  }
  l.open = false;
  l.on_connect = nullptr;
  free_listeners_.push_back(slot);
}

bool TcpLayer::listener_open(uint32_t slot, uint32_t generation) const {
  return slot < listeners_.size() && listeners_[slot].open &&
         listeners_[slot].generation == generation;
}

Endpoint TcpLayer::listener_local(uint32_t slot, uint32_t generation) const {
  if (!listener_open(slot, generation)) return {};
  return {listeners_[slot].address, listeners_[slot].port};
}

std::size_t TcpLayer::listener_pending(uint32_t slot, uint32_t generation) const {
  return listener_open(slot, generation) ? listeners_[slot].pending : 0;
}

uint16_t TcpLayer::free_port(const Address& local, const Endpoint& remote) {
  // RFC 6056 §3.3.1-like: from a random start, the first port whose
  // 4-tuple is free.
  for (int tries = 0; tries <= Udp::ephemeral_last - Udp::ephemeral_first; ++tries) {
    uint16_t port = ephemeral_next_;
    ephemeral_next_ = port == Udp::ephemeral_last ? Udp::ephemeral_first : uint16_t(port + 1);
    tcp::ConnectionKey key =
        local.is_ip6() ? tcp::ConnectionKey{local.ip6(), remote.address.ip6(), port, remote.port}
                       : tcp::ConnectionKey{local.ip4(), remote.address.ip4(), port, remote.port};
    if (!in_use(key) && find_listener(local, port) == none) {
      return port;
    }
  }
  return 0;
}

Result<TcpConnection> TcpLayer::connect(const Endpoint& remote, Tcp::ConnectHandler on_connect,
                                        const TcpOptions& options, const Endpoint& local) {
  auto key = active_key(remote, local);
  if (!key) return key.status;
  if (in_use(*key)) return Status::in_use;
  tcp::Connection* c = create(*key, options);
  if (!c) return Status::no_buffer;
  c->on_connect = std::move(on_connect);
  c->open_active(now());
  schedule(*c);
  return TcpConnection(this, c->slot, c->generation);
}

// The key of an active open: the remote checked, our address from the
// route when none is given, an ephemeral port when none is.
Result<tcp::ConnectionKey> TcpLayer::active_key(const Endpoint& remote, const Endpoint& local) {
  const Address& to = remote.address;
  const Address& from = local.address;
  if (remote.port == 0 || to.is_any() || !is_ours_or_any(from)) return Status::invalid;
  if (!from.is_any() && from.family() != to.family()) return Status::invalid;
  Address source;
  if (to.is_ip6()) {
    if (ip6addr::is_multicast(to.ip6())) return Status::invalid;
    auto path = parts_.ip6.route(to.ip6(), from.is_ip6() ? from.ip6() : ip6::Addr{});
    if (!path) return path.status;
    source = path->source;
  } else {
    ip4::Addr a = to.ip4();
    if (a.is_broadcast() || a.is_multicast() || parts_.ip4.is_group_address(a))
      return Status::invalid;
    auto path = parts_.ip4.route(a, from.ip4());
    if (!path) return path.status;
    source = path->source;
  }
  uint16_t port = local.port ? local.port : free_port(source, remote);
  if (port == 0) return Status::in_use;
  if (to.is_ip6()) return tcp::ConnectionKey{source.ip6(), to.ip6(), port, remote.port};
  return tcp::ConnectionKey{source.ip4(), to.ip4(), port, remote.port};
}

bool TcpLayer::is_ours_or_any(const Address& a) const {
  if (a.is_any()) return true;
  return a.is_ip6() ? parts_.ip6.is_local_address(a.ip6()) : parts_.ip4.is_local_address(a.ip4());
}

// Tcp.

Result<TcpListener> Tcp::listen(const Endpoint& local, ConnectHandler on_connect,
                                const TcpOptions& options) {
  return layer_.listen(local, std::move(on_connect), options);
}
Result<TcpConnection> Tcp::connect(const Endpoint& remote, ConnectHandler on_connect,
                                   const TcpOptions& options, const Endpoint& local) {
  return layer_.connect(remote, std::move(on_connect), options, local);
}
void Tcp::set_limits(const Limits& limits) { layer_.set_limits(limits); }
Tcp::Limits Tcp::limits() const { return layer_.limits(); }
std::size_t Tcp::connections() const { return layer_.connections(); }
std::size_t Tcp::memory_used() const { return layer_.budget().used(); }
const TcpCounters& Tcp::counters() const { return layer_.counters(); }

// TcpListener.

bool TcpListener::is_open() const { return layer_ && layer_->listener_open(slot_, generation_); }
Endpoint TcpListener::local() const {
  return layer_ ? layer_->listener_local(slot_, generation_) : Endpoint{};
}
std::size_t TcpListener::pending() const {
  return layer_ ? layer_->listener_pending(slot_, generation_) : 0;
}
void TcpListener::close() {
  if (layer_) layer_->close_listener(slot_, generation_);
}

}  // namespace net
