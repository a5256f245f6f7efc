// net::TcpStream: the handle, opening a stream on a connection, and its
// end. The connection's on_read, on_writable and on_close each hold the
// state, so it ends with the connection's handlers (close(), abort(), or
// the connection's end); a handle holds a weak pointer and answers
// Status::closed once the state is gone or no longer open.
#include "state.hpp"

namespace net {

Result<TcpStream> TcpStream::open(TcpConnection connection, const TcpStreamOptions& options) {
  if (!connection.is_open()) return Status::closed;
  // The stream keeps spans of the receive ring until it consumes them.
  if (connection.options().auto_consume) return Status::invalid;
  auto state = std::make_shared<State>(connection, options);
  connection.on_read([state](std::span<const uint8_t> data) { state->received(data); });
  connection.on_writable([state] { state->flush(); });
  connection.on_close([state](TcpCloseReason reason) { state->ended(reason); });
  return TcpStream(state);
}

void TcpStream::State::drop_handlers() {
  drain_handler = nullptr;
  line_handler = nullptr;
  bytes_handler = nullptr;
  data_handler = nullptr;
  end_handler = nullptr;
  error_handler = nullptr;
  close_handler = nullptr;
  framing = Framing::none;
  held.clear();
}

void TcpStream::State::ended(TcpCloseReason reason) {
  bool tell = phase == Phase::open;
  phase = Phase::done;
  queue.clear();
  queue_head = 0;
  queued = 0;
  CloseHandler handler = std::move(close_handler);
  drop_handlers();
  if (tell && handler) handler(reason);
}

namespace {

// The state behind a handle while it is open, kept alive for the call
// (a handler the call runs may end the stream).
std::shared_ptr<TcpStream::State> open_state(const std::weak_ptr<TcpStream::State>& weak) {
  auto state = weak.lock();
  return state && state->phase == TcpStream::State::Phase::open ? state : nullptr;
}

}  // namespace

bool TcpStream::is_open() const { return open_state(state_) != nullptr; }

TcpConnection TcpStream::connection() const {
  auto s = open_state(state_);
  return s ? s->connection : TcpConnection{};
}

Status TcpStream::write(std::span<const uint8_t> data) {
  auto s = open_state(state_);
  return s ? s->write(data) : Status::closed;
}

Status TcpStream::write(std::string_view text) {
  return write(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Status TcpStream::write(TcpBuffer buffer) {
  auto s = open_state(state_);
  return s ? s->write(std::move(buffer)) : Status::closed;
}

bool TcpStream::writable() const {
  auto s = open_state(state_);
  return s && s->can_write() && s->under_limit();
}

std::size_t TcpStream::queued() const {
  auto s = state_.lock();
  return s ? s->queued : 0;
}

Status TcpStream::on_drain(DrainHandler handler) {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->drain_handler = std::move(handler);
  ++s->drain_version;
  return Status::ok;
}

Status TcpStream::on_line(LineHandler handler) {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->set_reader(handler ? State::Framing::line : State::Framing::none, 0);
  s->line_handler = std::move(handler);
  s->pump();
  return Status::ok;
}

Status TcpStream::on_bytes(std::size_t count, BytesHandler handler) {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  if (count == 0) return Status::invalid;
  if (count > s->options.max_frame) return Status::too_big;
  s->set_reader(handler ? State::Framing::bytes : State::Framing::none, count);
  s->bytes_handler = std::move(handler);
  s->pump();
  return Status::ok;
}

Status TcpStream::on_data(DataHandler handler) {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->set_reader(handler ? State::Framing::data : State::Framing::none, 0);
  s->data_handler = std::move(handler);
  s->pump();
  return Status::ok;
}

Status TcpStream::on_end(EndHandler handler) {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->end_handler = std::move(handler);
  s->pump();
  return Status::ok;
}

Status TcpStream::on_error(ErrorHandler handler) {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->error_handler = std::move(handler);
  return Status::ok;
}

Status TcpStream::pause() {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->paused = true;
  return Status::ok;
}

Status TcpStream::resume() {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->paused = false;
  s->pump();
  return Status::ok;
}

bool TcpStream::paused() const {
  auto s = open_state(state_);
  return s && s->paused;
}

Status TcpStream::shutdown() {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->fin_wanted = true;
  s->flush();  // the FIN now if nothing is queued
  return Status::ok;
}

Status TcpStream::close() {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  // What a running handler was handed has been read; what was not handed
  // out yet, or arrives from now on, has not: the stack's close answers it
  // with a reset (RFC 1122 §4.2.2.13, RFC 2525 §2.17).
  s->take(s->in_hand);
  s->in_hand = 0;
  s->phase = State::Phase::closing;
  s->drop_handlers();
  s->connection.on_read(nullptr);
  s->flush();  // hands the connection over now if nothing is queued
  return Status::ok;
}

Status TcpStream::abort() {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->phase = State::Phase::done;
  s->drop_handlers();
  s->queue.clear();
  s->queue_head = 0;
  s->queued = 0;
  return s->connection.abort();  // RFC 9293 §3.10.5: RST, the queue dropped
}

Status TcpStream::on_close(CloseHandler handler) {
  auto s = open_state(state_);
  if (!s) return Status::closed;
  s->close_handler = std::move(handler);
  ++s->close_version;
  return Status::ok;
}

}  // namespace net
