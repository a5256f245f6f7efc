// One HTTP connection (connection.hpp): the request loop over on_data, the
// response pump over on_drain, and the timeouts.
#include "connection.hpp"

#include <algorithm>

namespace keel::http::server_detail {

Connection::Connection(Server::Impl& s, std::shared_ptr<Transport> st)
    : server(s),
      stream(std::move(st)),
      remote(stream->remote()),
      parser(s.options.limits),
      out(s.options.output_buffer) {}

void Connection::start() {
  server.connections.insert(this);
  auto self = shared_from_this();
  stream->on_data([self](std::span<const uint8_t> d) { return self->on_data(d); });
  stream->on_drain([self] { self->on_drain(); });
  stream->on_end([self] { self->on_end(); });
  stream->on_close([self] { self->finish(); });
  stream->on_hold([self](bool held) { self->on_hold(held); });
  stream->start();
  // The first request's header is due within header_timeout of the accept.
  set_deadline(server.options.header_timeout);
}

// Requests one at a time: while one is being answered, taking fewer bytes
// than offered pauses the stream; next_request() resumes it.
std::size_t Connection::on_data(std::span<const uint8_t> data) {
  if (phase == Phase::lingering || phase == Phase::done) return data.size();  // dropped
  in_on_data = true;
  auto self = shared_from_this();  // a handler may end the connection
  std::size_t taken = 0;
  while (phase == Phase::idle || phase == Phase::head || phase == Phase::body) {
    if (phase == Phase::idle) {
      if (taken == data.size() || !stream->writable()) break;
      phase = Phase::head;
      set_deadline(server.options.header_timeout);
    }
    if (taken < data.size()) request_started = true;
    const ParseStep step = parser.parse(data.subspan(taken));
    taken += step.consumed;
    if (step.event == ParseEvent::need_more) break;
    if (step.event == ParseEvent::headers_done) on_headers();
    if (step.event == ParseEvent::body) on_body(step.body);
    if (step.event == ParseEvent::message_done) on_message();
    if (step.event == ParseEvent::error) on_parse_error();
  }
  in_on_data = false;
  return phase == Phase::lingering ? data.size() : taken;
}

void Connection::on_headers() {
  ++server.counters.requests;
  phase = Phase::body;
  set_deadline(server.options.body_timeout);
  const Request& req = parser.request();
  auto found = server.router.match(req.method, req.path);
  if (found.result == RouteResult::found) {
    route = found.handler;
    params = std::move(found.params);
  } else {
    route_error = found.status();
    if (found.result == RouteResult::method_not_allowed) head.set("Allow", found.allow);
  }
  if (route != nullptr && route->on_head) route->on_head(Exchange(weak_from_this(), seq));
  if (phase != Phase::body) return;  // answered (or ended) already
  // Content that would be kept whole and cannot fit: refused before it
  // comes (RFC 9110 §15.5.14), 100-continue or not.
  if (route_error == 0 && !body_handler && req.framing == BodyFraming::content_length &&
      req.content_length > server.options.max_buffered_body) {
    route_error = status::content_too_large;
    Exchange(weak_from_this(), seq).respond(route_error);
    return;
  }
  // RFC 9110 §10.1.1: a client waiting for 100 before its content. A route
  // error answers at once instead (and the connection closes after it).
  if (req.expect_continue && req.framing != BodyFraming::none) {
    if (route_error != 0) {
      Exchange(weak_from_this(), seq).respond(route_error);
      return;
    }
    ResponseWriter interim(out, req, server.options.writer);
    (void)interim.write_interim(status::continue_);  // out is empty between responses
    (void)flush();
  }
}

void Connection::on_body(std::span<const uint8_t> piece) {
  set_deadline(server.options.body_timeout);
  if (route_error != 0) return;  // read and dropped: the error answers at the end
  if (body_handler) {
    body_handler(piece);
    return;
  }
  if (piece.size() > server.options.max_buffered_body - body.size())  // chunked, too long
    return answer_and_close(status::content_too_large);
  body.append(reinterpret_cast<const char*>(piece.data()), piece.size());  // within max_body
}

void Connection::on_message() {
  phase = Phase::handling;
  clear_deadline();
  if (route_error != 0) {
    Exchange(weak_from_this(), seq).respond(route_error);
    return;
  }
  route->on_request(Exchange(weak_from_this(), seq));
}

void Connection::on_parse_error() {
  ++server.counters.parse_errors;
  answer_and_close(status_of(parser.error()));
}

// An error status for a request that cannot go on: answered with
// Connection: close (the writer adds it), then the close.
void Connection::answer_and_close(StatusCode status) {
  ++seq;  // whatever handler holds the exchange, it is over
  responded = true;
  out.consume(out.size());
  Request closing;
  closing.keep_alive = false;  // the writer keeps only what it needs of it
  writer.emplace(out, closing, server.options.writer);
  head = Response{};
  head.status = status;
  head.close = true;
  head.content_length = 0;
  content.clear();
  content_sent = 0;
  producer = nullptr;
  producer_done = true;
  direct = {};
  direct_sent = 0;
  direct_started = false;
  phase = Phase::writing;
  clear_deadline();
  pump();
}

bool Connection::respond(Response h, std::string c, BodyProducer p, std::span<const uint8_t> d) {
  if (responded || phase == Phase::done || phase == Phase::lingering) return false;
  responded = true;
  // Before the request's end: its content is not read, so the connection
  // cannot carry another request.
  if (phase != Phase::handling) h.close = true;
  for (Field& f : head.fields) h.fields.push_back(std::move(f));  // Allow of a 405
  head = std::move(h);
  content = std::move(c);
  content_sent = 0;
  producer = std::move(p);
  producer_done = !producer;
  direct = d;
  direct_sent = 0;
  direct_started = false;
  // RFC 9110 §8.6: a 304's Content-Length could only be the 200's, which
  // a handler sets itself if it wants it.
  if (producer_done && !head.content_length && head.status != status::not_modified)
    head.content_length = content.size() + d.size();
  writer.emplace(out, parser.request(), server.options.writer);
  phase = Phase::writing;
  clear_deadline();
  pump();
  return true;
}

// Moves the response into the OutputBuffer and the buffer into the stream
// as far as each takes; on_drain calls again.
void Connection::pump() {
  auto self = shared_from_this();
  const int64_t now = server.time.unix_seconds ? server.time.unix_seconds() : 0;
  while (phase == Phase::writing) {
    WriteStatus s = WriteStatus::ok;
    if (!writer->head_written()) {
      s = writer->write_head(head, now);
    } else if (content_sent < content.size()) {
      std::string_view rest = std::string_view(content).substr(content_sent);
      s = writer->write_body(rest);
      content_sent = content.size() - rest.size();
    } else if (direct_sent < direct.size()) {
      if (!direct_started) {
        // The beginning, as much as fits beside the head, is copied: a
        // small file leaves with its head in one write (no second small
        // segment for Nagle to hold until the client's delayed ACK); the
        // rest goes by reference. HEAD drops it all.
        direct_started = true;
        const std::size_t copied = std::min(direct.size(), out.room());
        std::span<const uint8_t> first = direct.first(copied);
        s = writer->write_body(first);  // fits: all taken
        direct_sent = copied;
        if (s == WriteStatus::ok && direct_sent < direct.size()) {
          bool send = false;
          s = writer->write_body_direct(direct.size() - direct_sent, send);
          if (!send) direct_sent = direct.size();
        }
        if (s == WriteStatus::ok) continue;
      } else {
        if (!send_direct()) return;
        continue;
      }
    } else if (!producer_done && !writer->sends_content()) {
      // HEAD (or 204, 304): the content would be dropped, so the producer
      // is never asked for it; a stream of 1 TiB would otherwise be made
      // whole, for nothing, before the next event.
      producer_done = true;
      producer = nullptr;
    } else if (!producer_done) {
      content.clear();
      content_sent = 0;
      producer_done = !producer(content);
      if (producer_done) content.clear();
      continue;
    } else if (!writer->finished()) {
      s = writer->finish();
    } else {
      if (flush()) complete();
      return;
    }
    if (s == WriteStatus::would_block) {
      if (!flush()) return;
      continue;
    }
    if (s != WriteStatus::ok) {  // a handler's invalid response: nothing sane to send
      ++server.counters.responses[5];
      abort();
      return;
    }
  }
}

// The OutputBuffer into the stream; false while the stream refuses (the
// client does not read: on_drain comes when it does).
bool Connection::flush() {
  if (out.empty()) return true;
  const net::Status s = stream->write(out.pending());
  if (s == net::Status::ok) {
    out.consume(out.size());
    blocked = false;
    return true;
  }
  return refused(s);
}

// The next piece of a respond_static() content, by reference: the head
// (in out) goes first, and each piece is one entry of the stream's queue,
// so a client that does not read holds write_limit plus one piece of
// references, never a copy. False while the stream refuses.
bool Connection::send_direct() {
  if (!flush()) return false;
  // As much as the send buffer has room for, or one OutputBuffer's worth
  // for the stream's queue: a piece never exceeds what the send buffer can
  // ever take (a larger one would wait for room that never comes).
  const std::size_t room = std::max(stream->send_space(), out.capacity());
  const std::span<const uint8_t> piece =
      direct.subspan(direct_sent, std::min(room, direct.size() - direct_sent));
  // The content outlives the response (embedded data): no owner to hold.
  const net::Status s = stream->write_static(piece);
  if (s == net::Status::ok) {
    direct_sent += piece.size();
    blocked = false;
    return true;
  }
  return refused(s);
}

// A write the stream did not take: wait for on_drain (within
// send_timeout), or end the connection if the stream is gone.
bool Connection::refused(net::Status s) {
  if (s == net::Status::would_block) {
    if (!blocked) set_deadline(server.options.send_timeout);
    blocked = true;
    return false;
  }
  abort();
  return false;
}

void Connection::complete() {
  out.release();  // all went into the stream: an idle connection holds no buffer of ours
  server.count_response(head.status);
  if (server.access_log) {
    const Request& req = parser.request();
    server.access_log(AccessEntry{remote, req.method_text, req.target, head.status,
                                  head.content_length.value_or(content_sent)});
  }
  if (!writer->keep_alive() || head.close || peer_done) return linger();
  next_request();
}

void Connection::next_request() {
  ++seq;
  parser.reset();
  route = nullptr;
  params = {};
  route_error = 0;
  std::string().swap(body);  // a large body's storage is not kept between requests
  body_handler = nullptr;
  responded = false;
  writer.reset();
  head = Response{};
  std::string().swap(content);
  producer = nullptr;
  direct = {};
  direct_sent = 0;
  direct_started = false;
  request_started = false;
  phase = Phase::idle;
  set_deadline(server.options.idle_timeout);
  // Pipelined requests wait in the stream: on_data's loop goes on by itself,
  // from anywhere else the stream hands them out now.
  if (!in_on_data) (void)stream->resume();
}

void Connection::on_drain() {
  if (phase == Phase::writing) {
    blocked = false;
    clear_deadline();
    pump();
  }
  if (phase == Phase::idle) (void)stream->resume();
}

void Connection::on_end() {
  peer_done = true;
  // Mid-request (or between requests): nothing more will come to answer.
  if (phase == Phase::idle || phase == Phase::head || phase == Phase::body) close();
  if (phase == Phase::lingering) close();
}

// Time the server itself takes before it reads the first request (its TLS handshake's turn)
// does not count against the client: the deadline stops, and the header is due within
// header_timeout of the moment the server is ready again.
void Connection::on_hold(bool held) {
  if (phase != Phase::head || request_started) return;
  if (held) {
    clear_deadline();
  } else {
    set_deadline(server.options.header_timeout);
  }
}

void Connection::on_deadline() {
  auto self = shared_from_this();
  deadline = 0;
  switch (phase) {
    case Phase::head:
      if (!request_started) {
        ++server.counters.idle_timeouts;
        return close();
      }
      ++server.counters.header_timeouts;
      return answer_and_close(status::request_timeout);
    case Phase::body:
      ++server.counters.body_timeouts;
      return answer_and_close(status::request_timeout);
    case Phase::idle:
      ++server.counters.idle_timeouts;
      return linger();
    case Phase::writing:
      ++server.counters.send_timeouts;
      return abort();
    case Phase::lingering:
      return abort();
    case Phase::handling:
    case Phase::done:
      return;
  }
}

// RFC 9112 §9.6: half-close after the response, and read (and drop) until
// the client closes too, so its late input cannot make our stack reset the
// connection over a response the client has not read yet.
void Connection::linger() {
  if (stream->shutdown() != net::Status::ok) return abort();
  phase = Phase::lingering;
  set_deadline(server.options.linger_timeout);
  if (peer_done) return close();
  if (!in_on_data) (void)stream->resume();
}

void Connection::close() {
  auto self = shared_from_this();  // the stream's handlers, which own us, go now
  (void)stream->close();
  finish();
}

void Connection::abort() {
  auto self = shared_from_this();  // the stream's handlers, which own us, go now
  (void)stream->abort();
  finish();
}

// Once, however the connection ends.
void Connection::finish() {
  if (phase == Phase::done) return;
  phase = Phase::done;
  ++seq;
  clear_deadline();
  server.connections.erase(this);
  --server.counters.open;
}

void Connection::set_deadline(std::chrono::milliseconds in) {
  server.arm(this, server.now() + uint64_t(std::chrono::nanoseconds(in).count()));
}

void Connection::clear_deadline() { server.disarm(this); }

}  // namespace keel::http::server_detail

namespace keel::http {

using server_detail::Connection;

Connection* Exchange::current() const {
  auto c = connection_.lock();
  if (!c || c->seq != seq_ || c->phase == server_detail::Phase::done) return nullptr;
  return c.get();  // kept alive by its stream's handlers while not done
}

bool Exchange::pending() const {
  Connection* c = current();
  return c != nullptr && !c->responded;
}

const Request& Exchange::request() const {
  static const Request none;
  Connection* c = current();
  return c != nullptr ? c->parser.request() : none;
}

std::string_view Exchange::param(std::string_view name) const {
  Connection* c = current();
  return c != nullptr ? c->params.get(name) : std::string_view();
}

const std::string& Exchange::body() const {
  static const std::string none;
  Connection* c = current();
  return c != nullptr ? c->body : none;
}

net::Endpoint Exchange::remote() const {
  Connection* c = current();
  return c != nullptr ? c->remote : net::Endpoint{};
}

void Exchange::on_body(BodyHandler handler) {
  if (Connection* c = current()) c->body_handler = std::move(handler);
}

bool Exchange::respond(Response head, std::string content) {
  Connection* c = current();
  return c != nullptr && c->respond(std::move(head), std::move(content), nullptr);
}

bool Exchange::respond(StatusCode status) {
  Response r;
  r.status = status;
  return respond(std::move(r));
}

bool Exchange::respond_static(Response head, std::span<const uint8_t> content) {
  Connection* c = current();
  if (c == nullptr) return false;
  if (head.status != status::not_modified) head.content_length = content.size();
  return c->respond(std::move(head), {}, nullptr, content);
}

bool Exchange::respond_stream(Response head, BodyProducer producer) {
  Connection* c = current();
  return c != nullptr && producer && c->respond(std::move(head), {}, std::move(producer));
}

}  // namespace keel::http
