// The service's handlers, run once the stack is done with the frame or
// step that caused them (StackParts::run_handlers, docs/net/handlers.md),
// never in the middle of one: the events a connection collected, in order:
// connected,
// data and the end of the stream, writable, closed. Each handler runs
// moved out of its connection, so it may replace itself, close or abort
// its connection, or open others; the connection object stays alive (in
// the graveyard, if it ended) until every handler returned. An exception a
// handler throws stops at this boundary: it is counted and costs that
// connection (aborted), never the image.
#include "net/stack_parts.hpp"
#include "tcp_layer.hpp"

namespace net {

template <class Fn>
bool TcpLayer::guarded(tcp::Connection& c, Fn&& fn) {
  try {
    fn();
    return true;
  } catch (...) {
    ++counters_.handler_exceptions;
    if (!c.user_closed) c.abort(now());
    return false;
  }
}

namespace {

// Runs `member` of `c` from a copy moved out of it; puts it back unless
// the handler replaced it (the version moved) or the connection closed.
template <class Guard, class Handler, class... Args>
void run(Guard&& guard, tcp::Connection& c, Handler tcp::Connection::*member,
         uint32_t tcp::Connection::*version, Args&&... args) {
  Handler handler = std::move(c.*member);
  c.*member = nullptr;
  uint32_t before = c.*version;
  guard([&] { handler(std::forward<Args>(args)...); });
  if (!c.user_closed && c.*version == before && !(c.*member)) c.*member = std::move(handler);
}

}  // namespace

void TcpLayer::run_handlers() {
  if (depth_ > 0) return;  // (a handler that polls the stack itself)
  ++depth_;
  dispatch_ready();
  --depth_;
}

void TcpLayer::dispatch_ready() {
  // By index: handlers may queue more (their own connections or others),
  // which run in this same pass.
  for (std::size_t i = 0; i < ready_.size(); ++i) {
    tcp::Connection* c = ready_[i];
    c->queued = false;
    run_events(*c);
  }
  ready_.clear();
  bury();
}

void TcpLayer::bury() { graveyard_.clear(); }

void TcpLayer::run_events(tcp::Connection& c) {
  uint8_t e = c.events;
  c.events = 0;
  uint64_t t = now();
  if (c.user_closed) {
    if (e & tcp::event::closed) c.release_buffers();
    return;
  }
  auto guard = [this, &c](auto&& fn) { return guarded(c, fn); };
  if (e & tcp::event::connected) {
    Tcp::ConnectHandler on_connect;
    if (c.listener_slot != none) {
      if (!listener_handler(c, on_connect)) {
        c.abort(t);  // its listener closed before the handshake completed
        return;
      }
    } else {
      on_connect = std::move(c.on_connect);
    }
    if (on_connect) guard([&] { on_connect(handle(c)); });
    if (c.user_closed) return;
  }
  // Data, then the end of the stream, while someone reads.
  bool delivered = false;
  while (c.receive.undelivered() > 0 && c.on_read && !c.user_closed) {
    std::span<const uint8_t> data = c.receive.undelivered_span();
    c.receive.delivered(uint32_t(data.size()));
    delivered = true;
    run(guard, c, &tcp::Connection::on_read, &tcp::Connection::read_version, data);
  }
  if (c.user_closed) return;
  if (delivered && c.options.auto_consume) c.consume(c.receive.unconsumed_delivered(), t);
  if (c.peer_fin && !c.eof_delivered && c.receive.undelivered() == 0 && c.on_read) {
    c.eof_delivered = true;
    run(guard, c, &tcp::Connection::on_read, &tcp::Connection::read_version,
        std::span<const uint8_t>{});
    if (c.user_closed) return;
  }
  if ((e & tcp::event::writable) && c.on_writable && !c.ended) {
    run(guard, c, &tcp::Connection::on_writable, &tcp::Connection::writable_version);
    if (c.user_closed) return;
  }
  if (e & tcp::event::closed) {
    c.on_read = nullptr;
    c.on_writable = nullptr;
    TcpConnection::CloseHandler on_close = std::move(c.on_close);
    c.on_close = nullptr;
    if (on_close) guard([&] { on_close(c.close_reason); });
    if (c.state == TcpState::time_wait || c.state == TcpState::closed) c.release_buffers();
  }
}

}  // namespace net
