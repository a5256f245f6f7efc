// The HTTPS transport (https.hpp): one mbed TLS session over a net::TcpStream.
//
// Input: the stream offers ciphertext; mbed TLS pulls it through recv() record by record
// (it keeps a partial record in its own 16 KiB input buffer). A record's plaintext is handed
// to the server; while the server has not taken all of it, no further record is decrypted
// and the stream is told fewer bytes were taken, so it pauses and the TCP window closes.
// Output: mbed TLS pushes records through send() into `cipher_`, which goes to the stream in
// one write. write() is refused while the stream is not writable, so `cipher_` holds at most
// one server write's records (or one handshake flight): never unbounded.
// Handshakes: where the context paces them, a ClientHello waits (paused in the stream) for the
// session's turn (handshake_turns.hpp).
#include <mbedtls/ssl.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "context_impl.hpp"
#include "keel/tls/https.hpp"

namespace keel::tls {
namespace {

// One record's plaintext at most (RFC 8446 §5.1: 2^14 bytes).
constexpr std::size_t kMaxPlaintext = 16 * 1024;

enum class State : uint8_t { handshake, open, closed };
// How the transport ends a connection on its own: a FIN after what is queued (an alert), or
// a reset.
enum class Ending : uint8_t { close, reset };

class TlsTransport final : public http::Transport,
                           public std::enable_shared_from_this<TlsTransport> {
 public:
  TlsTransport(std::shared_ptr<ServerContext> context, net::TcpStream stream)
      : context_(std::move(context)), stream_(stream), plain_(kMaxPlaintext) {
    mbedtls_ssl_init(&ssl_);
    ++context_->counters().open;
    ++context_->counters().sessions;
  }
  ~TlsTransport() override {
    mbedtls_ssl_free(&ssl_);
    --context_->counters().open;
  }

  void on_data(DataHandler h) override { app_data_ = std::move(h); }
  void on_drain(EventHandler h) override { app_drain_ = std::move(h); }
  void on_end(EventHandler h) override { app_end_ = std::move(h); }
  void on_close(EventHandler h) override { app_close_ = std::move(h); }
  void on_hold(HoldHandler h) override { app_hold_ = std::move(h); }

  void start() override {
    auto self = shared_from_this();  // the stream's handlers own the transport
    (void)stream_.on_data([self](std::span<const uint8_t> d) { return self->on_cipher(d); });
    (void)stream_.on_drain([self] { self->on_stream_drain(); });
    (void)stream_.on_end([self](std::span<const uint8_t>) { self->on_stream_end(); });
    (void)stream_.on_close([self](net::TcpCloseReason) { self->on_stream_close(); });
  }

  net::Status write(std::span<const uint8_t> data) override {
    if (state_ != State::open) return net::Status::closed;
    if (!writable()) return net::Status::would_block;
    std::size_t done = 0;
    while (done < data.size()) {
      const int n = mbedtls_ssl_write(&ssl_, data.data() + done, data.size() - done);
      if (n <= 0) {  // send() never asks to wait: an error
        ++context_->counters().record_errors;
        fail(Ending::reset);
        return net::Status::closed;
      }
      done += std::size_t(n);
    }
    return flush() || state_ == State::open ? net::Status::ok : net::Status::closed;
  }
  // Encrypting copies it anyway: no reference to keep.
  net::Status write_static(std::span<const uint8_t> data) override { return write(data); }
  bool writable() const override {
    return state_ == State::open && cipher_.empty() && stream_.writable();
  }
  std::size_t send_space() const override { return stream_.connection().send_space(); }
  net::Endpoint remote() const override { return stream_.connection().remote(); }

  net::Status resume() override {
    if (state_ != State::open) return net::Status::closed;
    deliver();
    if (state_ == State::open && pending() == 0) return stream_.resume();
    return net::Status::ok;
  }

  // RFC 8446 §6.1: close_notify before our FIN, when it can go now (a response that the
  // stream has not taken yet is only ever followed by an abort).
  net::Status shutdown() override {
    if (state_ == State::closed) return net::Status::closed;
    notify_close();
    return stream_.shutdown();
  }
  net::Status close() override {
    if (state_ == State::closed) return net::Status::closed;
    notify_close();
    state_ = State::closed;
    const net::Status s = stream_.close();
    release();
    return s;
  }
  net::Status abort() override {
    if (state_ == State::closed) return net::Status::closed;
    state_ = State::closed;
    const net::Status s = stream_.abort();
    release();
    return s;
  }

 private:
  static int send(void* self, const unsigned char* data, size_t size) {
    auto& cipher = static_cast<TlsTransport*>(self)->cipher_;
    cipher.insert(cipher.end(), data, data + size);
    return int(size);
  }
  static int recv(void* self, unsigned char* out, size_t size) {
    auto* t = static_cast<TlsTransport*>(self);
    const std::size_t n = std::min(size, t->input_.size());
    if (n == 0) return MBEDTLS_ERR_SSL_WANT_READ;
    std::memcpy(out, t->input_.data(), n);
    t->input_ = t->input_.subspan(n);
    return int(n);
  }

  std::size_t pending() const { return plain_end_ - plain_start_; }

  // Ciphertext from the stream: returns how much of it mbed TLS took.
  std::size_t on_cipher(std::span<const uint8_t> data) {
    auto self = shared_from_this();  // a handler may end the connection
    if (state_ == State::closed) return data.size();
    if (state_ == State::open && pending() != 0) {
      deliver();  // the server paused on the last record: offer it again first
      if (state_ != State::open || pending() != 0) return state_ == State::closed ? data.size() : 0;
    }
    if (state_ == State::handshake && !my_turn()) return 0;  // the stream pauses till then
    if (!set_up_ && !setup(data)) return data.size();
    input_ = data;
    if (state_ == State::handshake) handshake();
    if (state_ == State::open) deliver();
    const std::size_t taken = data.size() - input_.size();
    input_ = {};
    return state_ == State::closed ? data.size() : taken;
  }

  // Whether handshake input may be handled now: always unless the context paces handshakes
  // (decision 0107); then the first input (the ClientHello, whose answer is the expensive
  // flight) only in this session's turn, which it queues for once. What follows it (the
  // client's Finished and often its first request with it) goes as it comes: a session is
  // finished before others are begun.
  bool my_turn() {
    HandshakeTurns& turns = context_->impl().turns;
    if (!turns.paced() || in_turn_ || answered_hello_) return true;
    if (!waiting_) {
      waiting_ = true;
      ++context_->counters().handshake_waits;
      turns.wait([weak = weak_from_this()] {
        auto self = weak.lock();
        return self && self->take_turn();
      });
      hold(true);
    }
    return false;
  }

  // The turn came: the stream offers the input it kept again, handled now. A client that sent
  // its FIN meanwhile (its end is queued behind the ClientHello we kept) can never send its
  // Finished: its flight, the expensive part, is not made, and the next session's turn runs.
  // Overload makes such clients: ones that gave up waiting, or a load tool at its end.
  bool take_turn() {
    waiting_ = false;
    if (state_ != State::handshake) return false;  // ended while it waited
    if (stream_.connection().state() == net::TcpState::close_wait) {
      ++context_->counters().abandoned;
      fail(Ending::close);
      return false;
    }
    in_turn_ = true;
    (void)stream_.resume();
    in_turn_ = false;
    hold(false);  // the flight is out: the client's move
    return true;
  }

  void hold(bool held) {
    HoldHandler handler = app_hold_;  // may be released while it runs
    if (handler) handler(held);
  }

  // mbed TLS's session, with the config the ClientHello's start calls for (decision 0106):
  // made at the first bytes, so a connection that sends none holds no record buffers.
  bool setup(std::span<const uint8_t> first_bytes) {
    ServerContext::Impl& impl = context_->impl();
    const mbedtls_ssl_config& config = impl.config_for(first_bytes);
    if (mbedtls_ssl_setup(&ssl_, &config) != 0) {  // no memory for its buffers
      ++context_->counters().refused;
      fail(Ending::reset);
      return false;
    }
    if (&config != &impl.config) ++context_->counters().chacha20_preferred;
    mbedtls_ssl_set_bio(&ssl_, this, &TlsTransport::send, &TlsTransport::recv, nullptr);
    set_up_ = true;
    return true;
  }

  void handshake() {
    const int e = mbedtls_ssl_handshake(&ssl_);
    answered_hello_ = answered_hello_ || !cipher_.empty();
    if (!flush()) return;  // the stream is gone
    if (e == MBEDTLS_ERR_SSL_WANT_READ || e == MBEDTLS_ERR_SSL_WANT_WRITE) return;
    if (e != 0) {
      // Not TLS (plain HTTP to this port), no common version, suite or protocol, a bad
      // message: mbed TLS has queued its alert where it could; it goes before the FIN.
      ++context_->counters().handshake_failures;
      fail(Ending::close);
      return;
    }
    Counters& c = context_->counters();
    ++c.handshakes;
    ++(mbedtls_ssl_get_version_number(&ssl_) == MBEDTLS_SSL_VERSION_TLS1_3 ? c.tls1_3 : c.tls1_2);
    state_ = State::open;
  }

  // Plaintext to the server, one record at a time, while it takes all it is given.
  void deliver() {
    if (delivering_) return;  // resume() from inside the server's handler: the loop goes on
    delivering_ = true;
    auto self = shared_from_this();
    while (state_ == State::open) {
      if (pending() != 0) {
        DataHandler handler = app_data_;  // may be replaced or released while it runs
        const std::size_t taken =
            handler ? handler(std::span(plain_).subspan(plain_start_, pending())) : pending();
        plain_start_ += std::min(taken, pending());
        if (pending() != 0) break;  // the server paused: read no further record
        continue;
      }
      const int n = mbedtls_ssl_read(&ssl_, plain_.data(), plain_.size());
      if (!flush()) break;  // e.g. a TLS 1.3 ticket or key update answer could not go
      if (n > 0) {
        plain_start_ = 0;
        plain_end_ = std::size_t(n);
        continue;
      }
      if (n == MBEDTLS_ERR_SSL_WANT_READ || n == MBEDTLS_ERR_SSL_WANT_WRITE) break;
      // mbed TLS 3.x: a TLS 1.3 NewSessionTicket or post-handshake message was handled.
      if (n == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET) continue;
      if (n == 0 || n == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY) {
        end_of_input();
        break;
      }
      ++context_->counters().record_errors;  // bad MAC, bad record, a fatal alert
      fail(Ending::close);
      break;
    }
    delivering_ = false;
  }

  // The client's close_notify, or its FIN: the server sees the end of input once.
  void end_of_input() {
    if (ended_ || state_ == State::closed) return;
    ended_ = true;
    EventHandler handler = app_end_;
    if (handler) handler();
  }

  void on_stream_end() {
    auto self = shared_from_this();
    if (state_ == State::handshake) {
      fail(Ending::close);  // a client that left before the handshake ended (or a port probe)
      return;
    }
    end_of_input();
  }

  void on_stream_drain() {
    auto self = shared_from_this();
    if (!flush() || state_ != State::open) return;
    EventHandler handler = app_drain_;
    if (handler) handler();
  }

  void on_stream_close() {
    auto self = shared_from_this();
    const bool was_open = state_ != State::closed;
    state_ = State::closed;
    EventHandler handler = app_close_;
    release();
    if (was_open && handler) handler();
  }

  // The queued records into the stream: true when none wait. The stream takes a write whole
  // while writable; a refused one waits for on_drain.
  bool flush() {
    if (cipher_.empty()) return state_ != State::closed;
    const net::Status s = stream_.write(std::span<const uint8_t>(cipher_));
    if (s == net::Status::ok) {
      cipher_.clear();
      return true;
    }
    if (s == net::Status::would_block) return true;  // on_drain sends it
    fail(Ending::reset);
    return false;
  }

  void notify_close() {
    if (state_ == State::open && cipher_.empty() && stream_.writable()) {
      (void)mbedtls_ssl_close_notify(&ssl_);
      (void)flush();
    }
  }

  // The transport ends the connection itself (an error, the peer left mid-handshake): unlike
  // the server's own close() and abort(), this runs the server's on_close once, so the
  // server forgets the connection (its deadline, its count) before the handlers go.
  void fail(Ending how) {
    if (state_ == State::closed) return;
    auto self = shared_from_this();
    state_ = State::closed;
    (void)(how == Ending::reset ? stream_.abort() : stream_.close());
    EventHandler handler = app_close_;
    release();
    if (handler) handler();
  }

  // No handler of the server runs again: the handlers (which hold the server's connection,
  // which holds this transport) go, so neither outlives the connection.
  void release() {
    app_data_ = nullptr;
    app_drain_ = nullptr;
    app_end_ = nullptr;
    app_close_ = nullptr;
    app_hold_ = nullptr;
  }

  std::shared_ptr<ServerContext> context_;
  net::TcpStream stream_;
  mbedtls_ssl_context ssl_;
  State state_ = State::handshake;
  bool set_up_ = false;
  bool delivering_ = false;
  bool ended_ = false;
  bool waiting_ = false;  // for a handshake turn
  bool in_turn_ = false;
  bool answered_hello_ = false;     // the server's first flight is written
  std::span<const uint8_t> input_;  // ciphertext offered, not yet taken by mbed TLS
  std::vector<uint8_t> cipher_;     // records mbed TLS wrote, not yet in the stream
  std::vector<uint8_t> plain_;      // the last record's plaintext
  std::size_t plain_start_ = 0;
  std::size_t plain_end_ = 0;
  DataHandler app_data_;
  EventHandler app_drain_;
  EventHandler app_end_;
  EventHandler app_close_;
  HoldHandler app_hold_;
};

}  // namespace

http::TransportFactory https_transport(std::shared_ptr<ServerContext> context) {
  return [context](net::TcpStream stream) -> std::shared_ptr<http::Transport> {
    if (context->counters().open >= context->options().max_sessions) {
      ++context->counters().refused;
      (void)stream.abort();
      return nullptr;
    }
    return std::make_shared<TlsTransport>(context, stream);
  };
}

}  // namespace keel::tls
