#include "parse_support.hpp"

#include <gtest/gtest.h>

namespace keel::http::test {

std::string describe(const Request& r) {
  std::string s = r.method_text + " [" + std::string(to_string(r.method)) + "] " + r.target +
                  " form=" + std::to_string(int(r.form)) + " authority=" + r.authority +
                  " path=" + r.path + " query=" + r.query + " 1." +
                  std::to_string(r.version_minor) + " framing=" + std::to_string(int(r.framing)) +
                  " length=" + std::to_string(r.content_length) +
                  " keep_alive=" + std::to_string(r.keep_alive) +
                  " expect=" + std::to_string(r.expect_continue) + "\n";
  for (const Field& f : r.fields) s += f.name + ": " + f.value + "\n";
  for (const Field& f : r.trailers) s += "trailer " + f.name + ": " + f.value + "\n";
  return s;
}

Outcome run(const std::vector<std::string_view>& pieces, const Limits& limits) {
  RequestParser parser(limits);
  Outcome o;
  for (std::string_view piece : pieces) {
    while (true) {
      const ParseStep step = parser.parse(piece);
      piece.remove_prefix(step.consumed);
      o.consumed += step.consumed;
      switch (step.event) {
        case ParseEvent::need_more:
          break;
        case ParseEvent::headers_done:
          o.events += 'H';
          o.request = describe(parser.request());
          continue;
        case ParseEvent::body:
          if (o.events.empty() || o.events.back() != 'B') o.events += 'B';
          o.body.append(reinterpret_cast<const char*>(step.body.data()), step.body.size());
          continue;
        case ParseEvent::message_done:
          o.events += 'D';
          if (o.request != describe(parser.request()))
            o.request += "(trailers)" + describe(parser.request());
          return o;
        case ParseEvent::error:
          o.events += 'E';
          o.error = parser.error();
          o.consumed = 0;
          return o;
      }
      break;  // need_more: the next piece
    }
  }
  return o;
}

namespace {

std::string show(const Outcome& o) {
  return "events=" + o.events + " error=" + to_string(o.error) +
         " consumed=" + std::to_string(o.consumed) + " body=" + o.body + "\n" + o.request;
}

}  // namespace

Outcome parse_everywhere(std::string_view input, const Limits& limits) {
  const Outcome whole = run({input}, limits);
  for (std::size_t split = 0; split <= input.size(); ++split) {
    const Outcome o = run({input.substr(0, split), input.substr(split)}, limits);
    if (o != whole) {
      ADD_FAILURE() << "split at " << split << " differs:\n"
                    << show(o) << "whole input:\n"
                    << show(whole);
      return whole;
    }
  }
  std::vector<std::string_view> bytes;
  for (std::size_t i = 0; i < input.size(); ++i) bytes.push_back(input.substr(i, 1));
  const Outcome o = run(bytes, limits);
  if (o != whole)
    ADD_FAILURE() << "byte by byte differs:\n" << show(o) << "whole:\n" << show(whole);
  return whole;
}

ParseError verdict(std::string_view input, const Limits& limits) {
  return parse_everywhere(input, limits).error;
}

}  // namespace keel::http::test
