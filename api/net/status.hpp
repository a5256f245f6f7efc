// Results of network operations: errors are values (docs/STYLE.md).
#pragma once
#include <utility>

namespace net {

enum class Status {
  ok,              // sent, or queued while the next hop's MAC is resolved
  not_configured,  // no interface has an address (yet) to send from
  no_route,        // no route to the destination
  too_big,         // larger than the stack sends (UDP payload: 65507 bytes, 65527 over IPv6)
  no_buffer,       // packet pool exhausted: dropped and counted
  queue_full,      // too many packets already wait for ARP resolution
  would_block,     // the interface's transmit queue is full: on_writable says when to retry
  in_use,          // the address and port are bound already
  closed,          // the socket handle is no longer open
  filtered,        // a hook (the firewall) dropped it
  unsupported,     // not carried yet (TCP over IPv6: docs/net/ipv6.md)
  invalid,         // bad argument (port 0, an unknown interface, ...)
};

constexpr const char* to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::not_configured:
      return "not configured";
    case Status::no_route:
      return "no route";
    case Status::too_big:
      return "too big";
    case Status::no_buffer:
      return "no buffer";
    case Status::queue_full:
      return "queue full";
    case Status::would_block:
      return "would block";
    case Status::in_use:
      return "in use";
    case Status::closed:
      return "closed";
    case Status::filtered:
      return "filtered";
    case Status::unsupported:
      return "unsupported";
    case Status::invalid:
      return "invalid";
  }
  return "?";
}

// A value or the status saying why there is none.
template <class T>
struct Result {
  Status status = Status::ok;
  T value{};

  Result(T v) : value(std::move(v)) {}  // NOLINT: implicit, for `return value;`
  Result(Status s) : status(s) {}       // NOLINT: implicit, for `return Status::...;`

  bool ok() const { return status == Status::ok; }
  explicit operator bool() const { return ok(); }
  T& operator*() { return value; }
  const T& operator*() const { return value; }
  T* operator->() { return &value; }
  const T* operator->() const { return &value; }
};

}  // namespace net
