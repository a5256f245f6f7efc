// libFuzzer target: TLS record input to the HTTPS server (lib/tls over lib/http's server).
// Two host stacks on an in-memory link; a client connection writes bytes from the input, in
// pieces it chooses, to port 443 of an http::Server listening through tls::https_transport;
// the input also moves time (through the header timeout that bounds a handshake) and
// half-closes. Most inputs end in the handshake: the ClientHello and record parsing of mbed
// TLS (built with coverage here) are what is fuzzed; the seed corpus holds real ClientHellos
// of openssl s_client (TLS 1.3 and 1.2). Build with -DKEEL_FUZZ=ON (clang); run
// test/fuzz/run_http.sh.
//
// Input: the client's script of client_script.hpp (writes, time, half-close, reading).
// Invariants (abort): no crash, leak or undefined behaviour (ASan, UBSan, LeakSanitizer: a
// transport and its connection must not keep each other alive); at most one session; every
// failure counted; at the end, after the client's abort and time, no connection or session
// left and no TCP memory on either side.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <keel/http/server.hpp>
#include <keel/tls/https.hpp>
#include <net/stack.hpp>
#include <string>
#include <utility>
#include <vector>

#include "client_script.hpp"
#include "server_options.hpp"
#include "stack_pair.hpp"

namespace {

using namespace std::chrono_literals;
namespace http = keel::http;
namespace tls = keel::tls;

#define CHECK(ok) keel::fuzz::check_at("https_server_fuzz", ok, __LINE__)
using Side = keel::fuzz::StackSide;
using keel::test::FollowingClock;

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Two contexts for the whole run (as a service has one): the throwaway pair the build made,
// with the AEAD left to the client or preferring ChaCha20-Poly1305 (the first bytes of a
// session then choose its config, decision 0106). Inputs of odd length get the second, whose
// handshakes take turns (decision 0107): a turn asked for runs after the next millisecond.
bool turn_wanted = false;

std::shared_ptr<tls::ServerContext> make_context(tls::Aead aead) {
  const std::vector<uint8_t> cert = read_file(KEEL_FUZZ_TLS_CERT);
  const std::vector<uint8_t> key = read_file(KEEL_FUZZ_TLS_KEY);
  tls::ServerOptions o;
  o.max_sessions = 1;
  o.aead = aead;
  auto m = tls::ServerContext::create({cert, key}, o, tls::RandomSource::seeded);
  CHECK(m.context != nullptr);
  if (aead == tls::Aead::chacha20) m.context->pace_handshakes([] { turn_wanted = true; });
  return m.context;
}

std::shared_ptr<tls::ServerContext> context(std::size_t input_size) {
  static std::shared_ptr<tls::ServerContext> client_order = make_context(tls::Aead::client);
  static std::shared_ptr<tls::ServerContext> chacha20 = make_context(tls::Aead::chacha20);
  return input_size % 2 == 0 ? client_order : chacha20;
}

http::ServerOptions options() { return keel::fuzz::small_server_options(); }

class Run {
 public:
  Run(const uint8_t* data, std::size_t size)
      : script_{data, data + size}, context_(context(size)) {}

  void go() {
    const tls::Counters before = context_->counters();
    server_.route(http::Method::get, "/",
                  [](http::Exchange ex) { ex.respond(http::Response{}, "home\n"); });
    CHECK(server_.listen(server_side_.stack, 443, tls::https_transport(context_)) ==
          net::Status::ok);
    net::TcpOptions co;
    co.no_delay = true;
    co.auto_consume = false;
    client_ = *client_side_.stack.tcp().connect(
        {net::ip4::Addr{10, 0, 0, 2}, 443}, [](net::TcpConnection) {}, co);
    client_.on_read([this](std::span<const uint8_t>) {
      if (script_.reading) client_.consumed(client_.unconsumed());
    });
    step(5);
    while (!script_.done()) {
      if (script_.play(client_, [this](int ms) { step(ms); }) != -1) break;  // no opcode of its own
      CHECK(context_->counters().open <= 1);
    }
    step(50);
    client_.abort();
    step(3000);  // every timeout of the server's has passed
    const tls::Counters& after = context_->counters();
    CHECK(server_.counters().open == 0);
    CHECK(after.open == 0);
    // Every session that began either completed its handshake or was counted or ended.
    CHECK(after.handshakes + after.handshake_failures <= after.sessions);
    CHECK(after.sessions - before.sessions <= 1);
    CHECK(server_side_.stack.tcp().memory_used() == 0);
    CHECK(client_side_.stack.tcp().memory_used() == 0);
  }

 private:
  // Frames sent during one millisecond arrive in the next.
  void step(int ms) {
    for (int i = 0; i < ms; ++i) {
      keel::fuzz::one_millisecond(server_side_, client_side_, [this] { server_clock_.run_due(); });
      if (std::exchange(turn_wanted, false)) (void)context_->run_handshake_turn();
    }
  }

  keel::fuzz::ClientScript script_;
  std::shared_ptr<tls::ServerContext> context_;
  Side server_side_{net::ethernet::Addr{{2, 0, 0, 0, 0, 2}}, net::ip4::Addr{10, 0, 0, 2}};
  Side client_side_{net::ethernet::Addr{{2, 0, 0, 0, 0, 1}}, net::ip4::Addr{10, 0, 0, 1}};
  FollowingClock server_clock_{server_side_.clock};
  http::Server server_{http::ServerTime{&server_clock_, [] { return int64_t(0); }}, options()};
  net::TcpConnection client_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Run(data, size).go();
  return 0;
}
