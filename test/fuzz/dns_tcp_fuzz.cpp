// libFuzzer target: DNS over TCP (examples/dns/dns_tcp.cpp) under a client
// the input drives. Two host stacks on an in-memory link; the appliance's
// TCP front end listens on one with a lib/dns Server over a small zone
// (big TXT sets for long answers, zone transfers allowed to the client and
// a zone bigger than one 16 KiB message, so AXFR streams); the client
// writes the input's bytes split anywhere: length prefixes and messages
// cut across segments, pipelined, zero lengths, garbage, valid queries
// from a table. The os:: timers (the idle timeout) are test/net/fake_os.cpp.
// Build with -DKEEL_FUZZ=ON (clang); run test/fuzz/run_dns.sh.
//
// Input: records
//   0x00 n [n bytes]   the client writes n raw bytes
//   0x01 t             t ms pass (both stacks and the OS timers)
//   0x02 k             the client writes query k%queries, framed; k >= 128:
//                      its length prefix only, the message comes with the next record
//   0x03               the client shuts down (FIN)
// Invariants (abort): no crash, leak or undefined behaviour; what the
// server sends is a sequence of complete frames (RFC 1035 §4.2.2) each a
// well-formed DNS response (QR set); at the end, after the client aborts
// and time passes, no connection is counted open and no TCP memory is left.
#include <chrono>
#include <cstdint>
#include <memory>
#include <net/stack.hpp>
#include <net/tcp.hpp>
#include <string>
#include <vector>

#include "dns_socket.hpp"
#include "fake_os.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/zone_file.hpp"
#include "stack_pair.hpp"

namespace {

#define CHECK(ok) keel::fuzz::check_at("dns_tcp_fuzz", ok, __LINE__)
using Side = keel::fuzz::StackSide;
namespace dns = keel::dns;

constexpr uint32_t idle_ms = 300;

std::string zone_text() {
  std::string z = "$TTL 300\n@ SOA ns h 1 7200 3600 1209600 300\n@ NS ns\nns A 10.0.0.9\n";
  for (int i = 0; i < 12; ++i) z += "big TXT \"" + std::string(250, char('a' + i)) + "\"\n";
  for (int i = 0; i < 1500; ++i)
    z += "h" + std::to_string(i) + " A 10.1." + std::to_string(i / 250) + "." +
         std::to_string(i % 250) + "\n";
  return z;
}

dns::Server& server() {
  static std::unique_ptr<dns::Server> s = [] {
    dns::ZoneData zone;
    std::vector<dns::Diagnostic> errors;
    dns::parse_zone_text(zone_text(), "t.test.zone", "t.test", zone, errors);
    CHECK(errors.empty());
    auto catalog = dns::Catalog::build({zone}, errors);
    CHECK(catalog != nullptr);
    dns::ServerOptions o;
    dns::AddressPrefix client;
    CHECK(dns::parse_prefix("10.0.0.1", client));
    o.transfer.allow.push_back(client);
    o.tcp_idle_ms = idle_ms;
    return std::make_unique<dns::Server>(std::move(catalog), o);
  }();
  return *s;
}

// A query for `name` (dotted, relative to t.test) of `type`; EDNS with the
// keepalive option when asked.
std::vector<uint8_t> query(const std::string& name, uint16_t type, bool edns, uint16_t id) {
  std::vector<uint8_t> m = {uint8_t(id >> 8),     uint8_t(id), 0, 0, 0, 1, 0, 0, 0, 0, 0,
                            uint8_t(edns ? 1 : 0)};
  std::string dotted = name.empty() ? "t.test" : name + ".t.test";
  std::size_t start = 0;
  while (start <= dotted.size()) {
    std::size_t dot = dotted.find('.', start);
    if (dot == std::string::npos) dot = dotted.size();
    m.push_back(uint8_t(dot - start));
    m.insert(m.end(), dotted.begin() + std::ptrdiff_t(start), dotted.begin() + std::ptrdiff_t(dot));
    start = dot + 1;
  }
  m.push_back(0);
  m.insert(m.end(), {uint8_t(type >> 8), uint8_t(type), 0, 1});
  if (edns) m.insert(m.end(), {0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 4, 0, 11, 0, 0});
  return m;
}

const std::vector<std::vector<uint8_t>>& queries() {
  static const std::vector<std::vector<uint8_t>> q = {
      query("h1", dns::rr_type::a, false, 1),    query("big", dns::rr_type::txt, true, 2),
      query("", dns::rr_type::axfr, false, 3),   query("", dns::rr_type::ixfr, true, 4),
      query("nx", dns::rr_type::a, true, 5),     query("", dns::rr_type::soa, false, 6),
      query("h9", dns::rr_type::axfr, false, 7), query("", dns::rr_type::any, true, 8)};
  return q;
}

class Run {
 public:
  Run(const uint8_t* data, std::size_t size) : in_(data), end_(data + size) {}

  void go() {
    dns_app::ListenOptions options;
    options.tcp.idle_timeout_ms = idle_ms;
    options.tcp.max_connections = 4;
    options.tcp.max_per_client = 2;
    auto handler = std::make_shared<dns_app::QueryHandler>(
        [](std::span<const uint8_t> q, const dns::ClientAddress& client, std::span<uint8_t> out,
           dns::Transport transport, dns::Transfer* transfer) {
          return server().answer(q, client, out, transport, transfer);
        });
    CHECK(dns_app::listen_tcp(server_side_.stack, options, handler));
    net::TcpOptions co;
    co.no_delay = true;
    co.receive_buffer = 4096;  // a small window: the server's transfers wait for it
    client_ = *client_side_.stack.tcp().connect(
        {net::ip4::Addr{10, 0, 0, 2}, options.port}, [](net::TcpConnection) {}, co);
    client_.on_read([this](std::span<const uint8_t> d) { received(d); });
    step(5);
    while (in_ < end_) record();
    step(50);
    client_.abort();
    step(2 * idle_ms);
    CHECK(dns_app::tcp_counters().open == 0);
    CHECK(client_side_.stack.tcp().memory_used() == 0);
  }

 private:
  // The server's bytes: whole frames, each a well-formed response.
  void received(std::span<const uint8_t> d) {
    got_.insert(got_.end(), d.begin(), d.end());
    std::size_t at = 0;
    while (got_.size() - at >= 2) {
      const std::size_t length = std::size_t(got_[at]) << 8 | got_[at + 1];
      CHECK(length >= dns::header_size);
      if (got_.size() - at - 2 < length) break;
      dns::Message m;
      const std::string_view bytes(reinterpret_cast<const char*>(got_.data() + at + 2), length);
      CHECK(dns::parse_message(bytes, m) == dns::WireError::none);
      CHECK((m.header.flags & dns::flag::qr) != 0);
      at += 2 + length;
    }
    got_.erase(got_.begin(), got_.begin() + std::ptrdiff_t(at));
  }

  void write(const uint8_t* data, std::size_t n) { (void)client_.write(data, n); }

  uint8_t next() { return in_ < end_ ? *in_++ : 0; }

  void record() {
    switch (next()) {
      case 0x00: {
        const std::size_t n = std::min<std::size_t>(next(), std::size_t(end_ - in_));
        write(in_, n);
        in_ += n;
        break;
      }
      case 0x01:
        step(next());
        break;
      case 0x02: {
        const uint8_t k = next();
        const std::vector<uint8_t>& q = queries()[k % queries().size()];
        const uint8_t prefix[2] = {uint8_t(q.size() >> 8), uint8_t(q.size())};
        write(prefix, 2);
        if (k < 128) write(q.data(), q.size());
        break;
      }
      case 0x03:
        (void)client_.shutdown();
        break;
      default:
        in_ = end_;
        break;
    }
  }

  // Frames sent during one millisecond arrive in the next; the OS timers
  // (the appliance's idle timeout) move with the stacks' clocks.
  void step(int ms) {
    for (int i = 0; i < ms; ++i) {
      keel::fuzz::one_millisecond(server_side_, client_side_,
                                  [] { keel::test::advance_os(std::chrono::milliseconds(1)); });
    }
  }

  const uint8_t* in_;
  const uint8_t* end_;
  Side server_side_{net::ethernet::Addr{{2, 0, 0, 0, 0, 2}}, net::ip4::Addr{10, 0, 0, 2}};
  Side client_side_{net::ethernet::Addr{{2, 0, 0, 0, 0, 1}}, net::ip4::Addr{10, 0, 0, 1}};
  net::TcpConnection client_;
  std::vector<uint8_t> got_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Run(data, size).go();
  return 0;
}
