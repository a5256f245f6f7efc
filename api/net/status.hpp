// Results of network operations: errors are values (docs/STYLE.md).
#pragma once

namespace net {

enum class Status {
  ok,              // sent, or queued while the next hop's MAC is resolved
  not_configured,  // the interface has no address yet
  no_route,        // destination is neither on-link nor reachable via a gateway
  too_big,         // larger than the stack sends (65507 bytes of UDP payload)
  no_buffer,       // packet pool exhausted: dropped and counted
  queue_full,      // too many packets already wait for ARP resolution
  invalid,         // bad argument (port 0, ...)
};

constexpr const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::not_configured: return "not configured";
    case Status::no_route: return "no route";
    case Status::too_big: return "too big";
    case Status::no_buffer: return "no buffer";
    case Status::queue_full: return "queue full";
    case Status::invalid: return "invalid";
  }
  return "?";
}

}  // namespace net
