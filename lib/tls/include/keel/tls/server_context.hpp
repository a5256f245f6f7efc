// A TLS server's shared state: its certificate and key, the protocol settings (TLS 1.3 and
// 1.2, ALPN http/1.1, session tickets for resumption) and the counters of every connection
// made from it. One per listening port; connections (keel/tls/https.hpp) hold it.
// docs/http.md ("HTTPS"), docs/decisions/0105.
//
//   auto tls = tls::ServerContext::create(tls::embedded_credentials(), {});  // os_context.cpp
//   if (!tls.context) fail(tls.error);  // e.g. the random generator is not seeded
//   server.listen(stack, 443, tls::https_transport(tls.context));
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace keel::tls {

// A certificate chain (the server's first) and its private key, PEM or DER. They are parsed
// into the context: the bytes need not outlive create().
struct Credentials {
  std::span<const uint8_t> certificate_chain;
  std::span<const uint8_t> private_key;
};

enum class Version : uint8_t { tls1_2, tls1_3 };

// The AEAD a session gets when the client offers both ChaCha20-Poly1305 and AES-GCM
// (decision 0106).
enum class Aead : uint8_t {
  automatic,  // ChaCha20-Poly1305 where AES-GCM does not run in hardware (QEMU's TCG, CPUs
              // without AES-NI), else the client's order
  client,     // the client's order (TLS 1.3: the first suite it lists that the server has)
  chacha20,   // ChaCha20-Poly1305 whenever the client offers it
};

struct ServerOptions {
  Version min_version = Version::tls1_2;
  Version max_version = Version::tls1_3;
  // Connections at once; one more is closed as soon as it is accepted (each holds about
  // 16 KiB of record input and 8 KiB of output buffer, mbedtls_config.h).
  std::size_t max_sessions = 128;
  // How long a session ticket resumes (RFC 8446 §4.6.1 allows up to 7 days).
  uint32_t ticket_lifetime_s = 86400;
  Aead aead = Aead::automatic;
};

struct Counters {
  uint64_t sessions = 0;            // connections that began a handshake
  uint64_t refused = 0;             // over max_sessions, or no memory for the session
  uint64_t chacha20_preferred = 0;  // sessions whose client offered ChaCha20-Poly1305,
                                    // set up to prefer it (Aead)
  uint64_t handshakes = 0;          // completed
  uint64_t tls1_3 = 0;              // of those, by version
  uint64_t tls1_2 = 0;
  uint64_t tickets_accepted = 0;    // resumptions: a valid, current session ticket came
  uint64_t handshake_failures = 0;  // not TLS, no shared version or suite, bad messages
  uint64_t record_errors = 0;       // after the handshake: bad MAC, bad record, alerts
  uint64_t handshake_waits = 0;     // ClientHellos that waited for their turn (paced)
  uint64_t abandoned = 0;           // of those, the client left before the turn: no flight made
  uint64_t open = 0;
};

// Whether the random generator was seeded from a real source (os::random_seeded()).
enum class RandomSource : uint8_t { seeded, not_seeded };

class ServerContext {
 public:
  struct Made {
    std::shared_ptr<ServerContext> context;  // null on error
    std::string error;
  };
  // Refuses (an error, no context) when `random` is not_seeded: keys, tickets and
  // handshake secrets would be guessable (decision 0104).
  static Made create(const Credentials& credentials, const ServerOptions& options,
                     RandomSource random);
  // The same with the OS's answer (os::random_seeded()): images and the Linux process.
  static Made create(const Credentials& credentials, const ServerOptions& options);

  ~ServerContext();
  ServerContext(const ServerContext&) = delete;
  ServerContext& operator=(const ServerContext&) = delete;

  const Counters& counters() const { return counters_; }
  Counters& counters() { return counters_; }
  const ServerOptions& options() const { return options_; }

  // Handshakes take turns (decision 0107). Once paced, a new session's ClientHello waits in a
  // queue, and run_handshake_turn() answers the first waiting session's; `wake` asks for that
  // call soon (the OS: an event, so the loop serves open connections between two handshake
  // flights; create() without RandomSource paces so). Unpaced (host tests), a handshake runs
  // as its input comes.
  void pace_handshakes(std::function<void()> wake);
  // The first waiting session's ClientHello, answered; true while others wait.
  bool run_handshake_turn();

  struct Impl;  // mbed TLS's config, certificate, key and ticket keys
  Impl& impl() { return *impl_; }

 private:
  ServerContext(ServerOptions options, std::unique_ptr<Impl> impl);
  ServerOptions options_;
  Counters counters_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel::tls
