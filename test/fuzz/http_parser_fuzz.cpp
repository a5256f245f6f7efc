// libFuzzer target: the HTTP request parser. The first input byte picks
// the limits (defaults, or small ones that every path reaches) and the
// next two a split point; the rest is a connection's bytes, parsed as
// pipelined requests. Invariants: no crash or sanitizer report; parsing
// the bytes whole and in two pieces at the split gives the same requests,
// bodies, events and verdicts; body pieces lie inside the input; no body
// is larger than max_body. Each request's path also goes through the
// router. Run with test/fuzz/run_http.sh.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/http/request_parser.hpp"
#include "keel/http/response_writer.hpp"
#include "keel/http/router.hpp"

namespace {

using namespace keel::http;

void check(bool ok) {
  if (!ok) std::abort();
}

std::string summary(const Request& r) {
  std::string s = r.method_text + ' ' + r.target + ' ' + r.authority + ' ' + r.path + ' ' +
                  r.query + ' ' + std::to_string(int(r.form)) + std::to_string(r.version_minor) +
                  std::to_string(int(r.framing)) + std::to_string(r.content_length) +
                  std::to_string(r.keep_alive) + std::to_string(r.expect_continue) + '\n';
  for (const Field& f : r.fields) s += f.name + ':' + f.value + '\n';
  for (const Field& f : r.trailers) s += "t " + f.name + ':' + f.value + '\n';
  return s;
}

// Answers `request` with `content` through a 256-byte buffer drained as a
// slow reader would; the framing must hold whatever the request was.
void answer(const Request& request, std::string_view content, bool with_length) {
  constexpr std::size_t capacity = 256;  // a head (about 100 bytes) fits
  OutputBuffer out(capacity);
  ResponseWriter writer(out, request);
  Response response;
  if (with_length) response.content_length = content.size();
  WriteStatus s;
  while ((s = writer.write_head(response, 0)) == WriteStatus::would_block) out.consume(out.size());
  check(s == WriteStatus::ok);
  while (!content.empty()) {
    s = writer.write_body(content);
    check(s == WriteStatus::ok || s == WriteStatus::would_block);
    check(out.size() <= capacity);
    out.consume(out.size() / 2 + 1);
  }
  while ((s = writer.finish()) == WriteStatus::would_block) out.consume(out.size());
  check(s == WriteStatus::ok);
  check(request.keep_alive || !writer.keep_alive());
}

const RouteTable& routes() {
  static const RouteTable table = [] {
    RouteTable t;
    t.add(Method::get, "/", 0);
    t.add(Method::get, "/api/items/:id", 1);
    t.add(Method::post, "/api/items", 2);
    t.add(Method::get, "/static/*file", 3);
    return t;
  }();
  return table;
}

// Everything the parser said about the connection's bytes, request by request.
std::string parse_all(const std::vector<std::span<const uint8_t>>& pieces, const Limits& limits,
                      std::span<const uint8_t> whole) {
  RequestParser parser(limits);
  std::string out;
  std::string events;
  uint64_t body = 0;
  std::size_t consumed = 0;
  for (std::span<const uint8_t> piece : pieces) {
    while (true) {
      const ParseStep step = parser.parse(piece);
      check(step.consumed <= piece.size());
      piece = piece.subspan(step.consumed);
      consumed += step.consumed;
      if (step.event == ParseEvent::need_more) {
        check(piece.empty());
        break;
      }
      if (step.event == ParseEvent::headers_done) {
        events += 'H';
        routes().match(parser.request().method, parser.request().path);
      } else if (step.event == ParseEvent::body) {
        check(!step.body.empty() && step.body.data() >= whole.data() &&
              step.body.data() + step.body.size() <= whole.data() + whole.size());
        body += step.body.size();
        check(body <= limits.max_body);
        if (events.empty() || events.back() != 'B') events += 'B';
        for (uint8_t b : step.body) out += char(b);
      } else if (step.event == ParseEvent::message_done) {
        answer(parser.request(), std::string_view(out).substr(out.size() - body), body % 2 == 0);
        out += events + "D " + std::to_string(consumed) + ' ' + summary(parser.request());
        events.clear();
        body = 0;
        consumed = 0;
        parser.reset();
      } else {
        out += events + "E " + to_string(parser.error()) + '\n';
        return out;
      }
    }
  }
  return out + events + " pending " + std::to_string(consumed) +
         (parser.headers_complete() ? summary(parser.request()) : std::string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  constexpr std::size_t control = 3;
  if (size < control) return 0;
  Limits limits;
  if (data[0] & 1) {
    limits.max_request_line = 64;
    limits.max_header_bytes = 128;
    limits.max_header_count = 4;
    limits.max_body = 64;
    limits.max_chunk_line = 16;
  }
  limits.chunked_bodies = !(data[0] & 2);
  const std::span<const uint8_t> input(data + control, size - control);
  const std::size_t split = (std::size_t(data[1]) << 8 | data[2]) % (input.size() + 1);

  const std::string whole = parse_all({input}, limits, input);
  const std::string two = parse_all({input.first(split), input.subspan(split)}, limits, input);
  check(whole == two);
  return 0;
}
