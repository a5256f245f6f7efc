// TCP in the host stack: the connection table, the listeners, the path of
// a segment to its connection (or listener, or a RST), the deadlines of all
// connections, and the service's handlers run after the stack's work.
// Services use it through net::Tcp, TcpConnection and TcpListener handles
// (api/net/tcp.hpp); one connection's logic is tcp::Connection.
//
//   tcp_layer.cpp  table, slots, deadlines, dispatch of the service's events
//   tcp_receive.cpp  segment checks, demultiplexing, RSTs for nobody, ICMP errors
//   tcp_ip6.cpp    IPv6's side: segments, ICMPv6 errors (RFC 8200 §8, RFC 8201)
//   tcp_path.cpp   the path of outgoing segments, either family
//   listen.cpp     listeners: SYNs, the backlog, SYN cookies, TIME_WAIT reuse
//   tcp_api.cpp    the handles' calls
//
// Connections are found by their 4-tuple in a bounded hash table keyed with
// a secret (FlatMaps + SipHash, one per family: connection_table.hpp). A connection lives in a slot
// with a generation; handles name both, so a stale handle finds nothing. Handlers never run in the
// middle of a connection's processing: events queue up and run once the segment (or timer, or call)
// is done, each handler moved out of its connection while it runs; connections that ended stay in a
// graveyard until then, so nothing a handler does frees what is in use.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <net/config.hpp>
#include <net/counters.hpp>
#include <net/packet.hpp>
#include <net/tcp.hpp>
#include <vector>

#include "connection.hpp"
#include "connection_key.hpp"
#include "connection_table.hpp"
#include "deadlines.hpp"
#include "net/ip4/icmp4.hpp"
#include "net/ip4/ip4.hpp"
#include "net/ip6/icmp6.hpp"
#include "net/ip6/ip6.hpp"
#include "secrets.hpp"
#include "time_wait.hpp"
#include "util/flat_map.hpp"

namespace net {

struct StackParts;

// Where a connection's segments leave: what IPv4's or IPv6's routing chose,
// by the key's family.
struct TcpPath {
  InterfaceId interface = no_interface;
  Ip4Path ip4;  // an IPv4 key's
  Ip6Path ip6;  // an IPv6 key's
};

class TcpLayer {
 public:
  TcpLayer(StackParts& parts, const StackConfig& config);
  ~TcpLayer();

  // From IPv4 or IPv6: data() at the TCP header.
  void receive(const Ip4Received& info, PacketPtr packet);
  void receive(const Ip6Received& info, PacketPtr packet);
  // ICMP or ICMPv6 about a segment we sent (the quoted header is a TCP one's).
  void icmp_error(const Icmp4ErrorReport& report);
  void icmp_error(const Icmp6ErrorReport& report);
  // An interface's transmit queue has room again.
  void writable();
  void poll(uint64_t now);
  // The service's handlers for what the stack did since the last call
  // (dispatch.cpp), and ended connections freed; StackParts::run_handlers
  // calls it.
  void run_handlers();
  void dispatch_ready();
  bool handlers_pending() const { return !ready_.empty() || !graveyard_.empty(); }
  uint64_t next_deadline() const {
    return std::min(deadlines_.earliest(), time_waits_.next_deadline());
  }

  // The API behind Tcp and the handles (tcp_api.cpp).
  Result<TcpListener> listen(const Endpoint& local, Tcp::ConnectHandler on_connect,
                             const TcpOptions& options);
  Result<TcpConnection> connect(const Endpoint& remote, Tcp::ConnectHandler on_connect,
                                const TcpOptions& options, const Endpoint& local);
  void set_limits(const Tcp::Limits& limits);
  const Tcp::Limits& limits() const { return limits_; }
  // Connections in every state, TIME_WAIT records included.
  std::size_t connections() const { return table_.size() + time_waits_.size(); }
  std::size_t time_waits() const { return time_waits_.size(); }
  const TcpCounters& counters() const { return counters_; }
  // Every connection the table holds (diagnostics, tests).
  template <class Fn>
  void for_each_connection(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (s.connection) fn(*s.connection);
  }
  // A visible connection (open for the service), or nullptr.
  tcp::Connection* find(uint32_t slot, uint32_t generation);
  const tcp::Connection* find(uint32_t slot, uint32_t generation) const;
  // Any connection in the slot, visible or not (state(), stats()).
  const tcp::Connection* lookup(uint32_t slot, uint32_t generation) const;
  bool listener_open(uint32_t slot, uint32_t generation) const;
  Endpoint listener_local(uint32_t slot, uint32_t generation) const;
  std::size_t listener_pending(uint32_t slot, uint32_t generation) const;
  void close_listener(uint32_t slot, uint32_t generation);
  // Handlers set from outside a handler run from the next poll, not
  // inside the caller's call.
  void deliver_later(tcp::Connection& connection, uint8_t events);
  TcpConnection handle(const tcp::Connection& c) {
    return TcpConnection(this, c.slot, c.generation);
  }

  // For connections.
  StackParts& parts() { return parts_; }
  TcpCounters& counters() { return counters_; }
  tcp::Budget& budget() { return budget_; }
  const tcp::Secrets& secrets() const { return secrets_; }
  uint64_t now() const;
  // The connection's deadline moved.
  void schedule(tcp::Connection& c);
  // The connection has events for the service.
  void notify(tcp::Connection& c);
  // The connection reached CLOSED: out of the table, its slot freed.
  void release(tcp::Connection& c);
  // The connection closed first: a TIME_WAIT record takes its 4-tuple.
  void entered_time_wait(const tcp::Connection& c, uint64_t now);
  // The interface towards the peer is congested: resume on writable().
  void wait_for_link(tcp::Connection& c);
  // RFC 5961 §7: challenge ACKs host-wide, about Limits::challenge_acks_per_second
  // (randomised each second).
  bool allow_challenge_ack(uint64_t now);
  // The route to the peer, or a status.
  Result<TcpPath> route(const tcp::ConnectionKey& key) const;
  bool congested(const TcpPath& path) const;
  // The MTU a connection to key.remote starts from: the link's, or over
  // IPv6 the destination cache's path MTU when a Packet Too Big lowered it
  // (RFC 8201 §4, decision 0147). IPv4 keeps no such cache.
  uint32_t mtu(const TcpPath& path, const tcp::ConnectionKey& key) const;
  // The most payload one segment to key.remote may carry: `mss`, or with TSO
  // (the NIC segments this family, tso=on, a peer not on this host) the
  // multiple of `mss` that fits a 64 KiB IP packet (docs/decisions/0092).
  uint32_t segment_limit(const tcp::ConnectionKey& key, uint32_t mss) const;
  // Sends one segment from key.local to key.remote along `path`, its
  // payload (header.payload_len bytes) from `data` at `offset`. A payload
  // beyond `mss` leaves as one TSO segment (segment_limit) the NIC cuts into
  // segments of `mss` bytes.
  bool send(const TcpPath& path, const tcp::ConnectionKey& key, const wire::TcpRepr& header,
            const tcp::SendBuffer* data = nullptr, std::size_t offset = 0, uint32_t mss = 0);
  // RFC 9293 §3.10.7.1: the RST answering `s` (which is no RST), from
  // key.local to key.remote.
  void send_reset(const tcp::ConnectionKey& key, const tcp::Segment& s);
  // The listener a passive open came from (its on_connect), if still open.
  bool listener_handler(const tcp::Connection& c, Tcp::ConnectHandler& out) const;
  void handshake_done(tcp::Connection& c);  // a SYN_RECEIVED one leaves the backlog

 private:
  friend class Tcp;
  static constexpr uint32_t none = UINT32_MAX;
  struct Slot {
    std::unique_ptr<tcp::Connection> connection;
    uint32_t generation = 0;
  };
  struct Listener {
    uint32_t generation = 0;
    bool open = false;
    Address address;  // any of either family: every address of this host, both families
    uint16_t port = 0;
    Tcp::ConnectHandler on_connect;
    TcpOptions options;
    uint32_t pending = 0;  // connections in SYN_RECEIVED
    uint32_t next_on_port = none;
  };
  struct PortHash {
    std::size_t operator()(uint16_t port) const { return port * 0x9e3779b1u; }
  };
  // Top-level work (a segment, an ICMP error, a timer pass): the events it
  // queues wait until the stack is done with the frame or step that brought
  // it (StackParts::run_handlers), never longer than the next step.
  class Work {
   public:
    explicit Work(TcpLayer& layer) : layer_(layer) { ++layer_.depth_; }
    ~Work();

   private:
    TcpLayer& layer_;
  };

  // tcp_layer.cpp
  tcp::Connection* create(const tcp::ConnectionKey& key, const TcpOptions& options);
  void run_events(tcp::Connection& c);
  template <class Fn>
  bool guarded(tcp::Connection& c, Fn&& fn);
  void bury();
  // tcp_receive.cpp: a checked segment to its connection, listener or a RST.
  // A segment's header check, for either family: true if it passed, else the drop counted.
  bool counted_ok(wire::TcpError error);
  void demultiplex(const tcp::ConnectionKey& key, const wire::TcpView<uint8_t>& v);
  // A checked error about the segment of `key` with sequence number `seq`:
  // the connection it is about and in flight, or nullptr (counted).
  tcp::Connection* icmp_target(const tcp::ConnectionKey& key, uint32_t seq);
  // listen.cpp
  uint32_t find_listener(const Address& address, uint16_t port) const;
  void listen_input(uint32_t listener, const tcp::ConnectionKey& key, const tcp::Segment& s,
                    uint64_t now);
  void accept_cookie(uint32_t listener, const tcp::ConnectionKey& key, const tcp::Segment& s,
                     uint64_t now);
  void send_cookie(uint32_t listener, const tcp::ConnectionKey& key, const tcp::Segment& syn,
                   uint64_t now);
  // time_wait_input.cpp: a segment for a TIME_WAIT record; false when a
  // new SYN took the 4-tuple over (the listener gets it).
  bool time_wait_input(tcp::TimeWaitRecord& record, const tcp::Segment& s, uint64_t now);
  void time_wait_ack(const tcp::TimeWaitRecord& record, uint64_t now);
  bool in_use(const tcp::ConnectionKey& key) const;
  uint16_t free_port(const Address& local, const Endpoint& remote);
  // tcp_api.cpp
  Result<tcp::ConnectionKey> active_key(const Endpoint& remote, const Endpoint& local);
  bool is_ours_or_any(const Address& a) const;

  StackParts& parts_;
  TcpCounters& counters_;
  Tcp::Limits limits_;
  tcp::Secrets secrets_;
  tcp::Budget budget_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  tcp::ConnectionTable<uint32_t> table_;
  tcp::Deadlines deadlines_;
  std::vector<Listener> listeners_;
  std::vector<uint32_t> free_listeners_;
  keel::util::FlatMap<uint16_t, uint32_t, PortHash> listener_ports_;
  tcp::TimeWaits time_waits_;
  std::vector<std::pair<uint32_t, uint32_t>> blocked_;  // waiting for writable()
  std::vector<tcp::Connection*> ready_;                 // events to dispatch
  std::vector<std::unique_ptr<tcp::Connection>> graveyard_;
  int depth_ = 0;
  uint16_t ephemeral_next_;
  bool segmentation_offload_;  // StackConfig::segmentation_offload
  uint32_t challenge_tokens_ = 0;
  uint64_t challenge_refilled_ns_ = 0;
  bool challenge_drawn_ = false;
};

}  // namespace net
