// DHCPv4 client (RFC 2131 §4.4, options RFC 2132): DISCOVER → OFFER →
// REQUEST → ACK; renews at T1 (unicast to the server), rebinds at T2
// (broadcast), drops the address at lease expiry or on NAK and starts over.
// If no lease comes within the configured timeout, the fallback handler
// runs (the stack applies static settings, if it has any) and the client
// stops. Runs on the stack's own UDP sockets (port 68, bound to its
// interface), like any service; time comes from poll(now).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <net/counters.hpp>
#include <net/ethernet_addr.hpp>
#include <net/ip4_addr.hpp>
#include <net/udp.hpp>
#include <optional>
#include <vector>

namespace net {

class Link;

namespace dhcp {
inline constexpr uint16_t server_port = 67;
inline constexpr uint16_t client_port = 68;
inline constexpr uint32_t fixed_size = 236;           // RFC 2131 §2, up to the options
inline constexpr uint32_t magic_cookie = 0x63825363;  // RFC 2131 §3
enum MessageType : uint8_t {
  discover = 1,
  offer = 2,
  request = 3,
  decline = 4,
  ack = 5,
  nak = 6,
  release = 7
};
enum Option : uint8_t {
  pad = 0,
  subnet_mask = 1,
  router = 3,
  dns_servers = 6,
  requested_address = 50,
  lease_time = 51,
  message_type = 53,
  server_id = 54,
  parameter_list = 55,
  renewal_time = 58,
  rebinding_time = 59,
  client_id = 61,
  end = 255
};
}  // namespace dhcp

class Dhcp {
 public:
  using Addr = ip4::Addr;
  using Mac = ethernet::Addr;
  using Seconds = std::chrono::seconds;

  struct Lease {
    Addr address, netmask, gateway, server;
    std::vector<Addr> dns;
    Seconds lease{0}, t1{0}, t2{0};
  };
  // Every ACK: `renewed` is true when it only extends the current lease.
  using Bound = keel::delegate<void(const Lease&, bool renewed)>;
  using Lost = keel::delegate<void()>;
  using Fallback = keel::delegate<void()>;

  enum class State { stopped, selecting, requesting, bound, renewing, rebinding };

  // RFC 2131 §4.1: retransmit after 4 s, doubling up to 64 s.
  static constexpr Seconds first_retry{4};
  static constexpr Seconds max_retry{64};
  static constexpr int max_request_tries = 4;
  // RFC 2131 §4.4.5: retransmit no faster than this while renewing/rebinding
  // (60 s in the RFC; shorter here so short test leases work).
  static constexpr Seconds min_renew_retry{4};

  Dhcp(Udp& udp, Link& link, DhcpCounters& counters);
  ~Dhcp();

  // Starts in INIT. `timeout`: when to give up and run the fallback (0 s:
  // never). `t1`: renew then instead of the server's T1 (tests).
  void start(Seconds timeout, std::optional<Seconds> t1 = std::nullopt);
  void stop();
  State state() const { return state_; }
  const Lease& lease() const { return lease_; }

  void on_bound(Bound handler) { bound_ = std::move(handler); }
  void on_lost(Lost handler) { lost_ = std::move(handler); }
  void on_fallback(Fallback handler) { fallback_ = std::move(handler); }

  // Datagrams for port 68 (public for tests and fuzzing).
  void receive(const uint8_t* data, std::size_t len);

  void poll(uint64_t now);
  uint64_t next_deadline() const { return std::min(deadline_ns_, fallback_ns_); }

 private:
  struct Message;
  void enter_init();
  void send_discover();
  void send_request();
  void send(uint8_t type, Addr dst);
  void on_retransmit();
  void expire();
  void handle_offer(const Message& m);
  void handle_ack(const Message& m);
  void handle_nak();
  void set_timer(Seconds delay, void (Dhcp::*what)());
  Seconds since_bound() const;
  uint64_t now() const;

  Udp& udp_;
  Link& link_;
  Mac mac_;
  DhcpCounters& counters_;
  UdpSocket socket_;
  State state_ = State::stopped;
  uint32_t xid_ = 0;
  uint64_t seed_;
  Seconds retry_{first_retry};
  int tries_ = 0;
  Addr offered_, server_;
  Lease lease_;
  uint64_t bound_at_ns_ = 0;
  std::optional<Seconds> t1_override_;
  Bound bound_;
  Lost lost_;
  Fallback fallback_;
  static constexpr uint64_t never = UINT64_MAX;
  uint64_t deadline_ns_ = never;
  void (Dhcp::*due_)() = nullptr;
  uint64_t fallback_ns_ = never;
};

}  // namespace net
