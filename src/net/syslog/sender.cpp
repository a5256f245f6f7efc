// The syslog sender (api/net/syslog.hpp): the console's tap cuts what the
// image prints into lines and queues them in fixed slots (the tap runs
// wherever something prints, even when the heap is exhausted, so it never
// allocates and never sends); an event sends them from the event loop.
#include <net/interface.hpp>
#include <net/metrics.hpp>
#include <net/stack.hpp>
#include <net/syslog.hpp>
#include <net/udp.hpp>
#include <os>

#include "kernel/console.hpp"

namespace net::syslog {
namespace {

constexpr std::size_t slots = 64;
constexpr std::size_t line_max = 1024;

struct Slot {
  uint64_t unix_ns = 0;
  uint16_t size = 0;
  char text[line_max];
};

struct Sender {
  Stack* stack = nullptr;
  UdpSocket socket;
  Endpoint collector;
  int event = -1;
  bool clock_known = false;
  Slot queue[slots];
  std::size_t first = 0, queued = 0;
  char partial[line_max];
  std::size_t partial_size = 0;
  bool partial_cut = false;
  Counters counters;
};

Sender* sender = nullptr;

uint64_t wall_ns() {
  auto since_epoch = os::wall_clock().time_since_epoch();
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count());
}

void commit_line(Sender& s) {
  ++s.counters.lines;
  if (s.partial_cut) ++s.counters.truncated;
  if (s.queued == slots) {
    ++s.counters.drop_queue_full;
  } else {
    Slot& slot = s.queue[(s.first + s.queued++) % slots];
    slot.unix_ns = wall_ns();
    slot.size = uint16_t(s.partial_size);
    std::copy(s.partial, s.partial + s.partial_size, slot.text);
    if (s.event >= 0) os::Events::trigger(s.event);
  }
  s.partial_size = 0;
  s.partial_cut = false;
}

void tap(const char* data, std::size_t size) {
  Sender& s = *sender;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      commit_line(s);
    } else if (s.partial_size < line_max) {
      s.partial[s.partial_size++] = data[i];
    } else {
      s.partial_cut = true;
    }
  }
}

// The host: the first interface's address (RFC 5424 §6.2.4 prefers a
// static IP to nothing; Keel has no host name).
std::string hostname(Stack& stack) {
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    Interface& nic = stack.interface(InterfaceId(i));
    if (nic.is_configured()) return nic.address().to_string();
    if (!nic.address6().is_any()) return Address(nic.address6()).to_string();
  }
  return {};
}

void send_queued() {
  Sender& s = *sender;
  const std::string host = hostname(*s.stack);
  while (s.queued > 0) {
    Slot& slot = s.queue[s.first];
    Message m;
    if (s.clock_known) m.unix_ns = slot.unix_ns;
    m.hostname = host;
    m.text = std::string_view(slot.text, slot.size);
    const std::string text = format(m);
    s.first = (s.first + 1) % slots;
    --s.queued;
    if (s.socket.send_to(s.collector, text.data(), text.size()) == Status::ok) {
      ++s.counters.sent;
    } else {
      ++s.counters.drop_send_failed;
    }
  }
}

void families(metrics::Writer& w) {
  const Counters& c = sender->counters;
  using metrics::Type;
  w.family("keel_syslog_lines_total", "Console lines the syslog sender saw", Type::counter);
  w.sample(c.lines);
  w.family("keel_syslog_sent_total", "RFC 5424 messages handed to UDP", Type::counter);
  w.sample(c.sent);
  w.family("keel_syslog_drops_total", "Lines not sent, by reason", Type::counter);
  w.sample(c.drop_queue_full, "reason", "queue_full");
  w.sample(c.drop_send_failed, "reason", "send_failed");
  w.family("keel_syslog_truncated_total", "Lines cut to fit a message", Type::counter);
  w.sample(c.truncated);
}

}  // namespace

std::string start(Stack& stack, const std::vector<std::string>& args) {
  std::optional<Endpoint> collector;
  for (const std::string& word : args) {
    if (!word.starts_with("syslog=")) continue;
    collector = parse_collector(std::string_view(word).substr(7));
    if (!collector)
      return word + ": expected HOST[:PORT] (10.0.0.1, 10.0.0.1:514, fd00::1, [fd00::1]:514)";
  }
  if (!collector || sender) return {};
  // The any-address sends to either family; port 0: an ephemeral one.
  auto bound = stack.udp().bind(Endpoint{ip4::Addr{}, 0});
  if (!bound) return std::string("syslog: cannot bind a port: ") + to_string(bound.status);
  sender = new Sender;  // for the image's life
  sender->stack = &stack;
  sender->socket = *bound;
  sender->collector = *collector;
  // Before 2000 the clock was never set: say so with NILVALUE (§6.2.3).
  constexpr uint64_t year_2000_ns = 946'684'800ull * 1'000'000'000;
  sender->clock_known = wall_ns() >= year_2000_ns;
  sender->event = os::Events::allocate(send_queued);
  if (sender->event < 0) return "syslog: no event left";
  metrics::add_collector(families);
  keel::console::set_tap(tap);
  return {};
}

const Counters& counters() {
  static const Counters none;
  return sender ? sender->counters : none;
}

}  // namespace net::syslog
