// Console lines to a syslog collector: RFC 5424 messages over UDP (RFC 5426),
// turned on by the setting `syslog=HOST[:PORT]` (port 514 by default;
// 10.0.0.1, 10.0.0.1:5514, fd00::1, [fd00::1]:5514). Each line the image
// prints becomes one message:
//
//   <30>1 2026-11-27T10:04:05.123456Z 10.0.0.2 keel - - - the line
//
// facility daemon, severity info; the time from os::wall_clock() ("-" when
// the image has none); the host the interface's address. Bounded: lines
// wait in a fixed queue until the event loop sends them; a full queue or a
// failed send drops the line, counted, and never stalls the service.
// docs/observability.md, decision 0114.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/address.hpp"

namespace net {
class Stack;
}

namespace net::syslog {

inline constexpr uint16_t default_port = 514;  // RFC 5426 §3.3
// Keeps a message inside one IPv6 minimum-MTU packet (RFC 5426 §3.2).
inline constexpr std::size_t max_message = 1180;

enum class Facility : uint8_t { user = 1, daemon = 3 };            // RFC 5424 §6.2.1
enum class Severity : uint8_t { err = 3, warning = 4, info = 6 };  // RFC 5424 §6.2.1

struct Message {
  Facility facility = Facility::daemon;
  Severity severity = Severity::info;
  std::optional<uint64_t> unix_ns;                              // none: NILVALUE
  std::string_view hostname, app_name = "keel", procid, msgid;  // empty: NILVALUE
  std::string_view text;                                        // one line
};

// The RFC 5424 SYSLOG-MSG, at most max_message bytes (the text is cut).
// Header fields keep only PRINTUSASCII and their ABNF lengths.
std::string format(const Message& m);

// "HOST[:PORT]"; nullopt when it is neither an address nor one with a port.
std::optional<Endpoint> parse_collector(std::string_view text);

struct Counters {
  uint64_t lines = 0;             // console lines seen
  uint64_t sent = 0;              // messages handed to UDP
  uint64_t drop_queue_full = 0;   // lines dropped: the queue was full
  uint64_t drop_send_failed = 0;  // UDP refused (no route, no buffer)
  uint64_t truncated = 0;         // lines cut to fit a message
};

// Reads `syslog=` from `args` and, when given, starts sending console lines
// from `stack`; an error names the setting ("" when fine or absent).
std::string start(Stack& stack, const std::vector<std::string>& args);
const Counters& counters();

}  // namespace net::syslog
