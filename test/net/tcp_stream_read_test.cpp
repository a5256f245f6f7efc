// TcpStream reading, against the scripted peer of tcp_fixture.hpp, which
// cuts the input where the test says: lines and length-prefixed frames
// split at every position across segments, over-long lines, the end of
// the stream with a line unfinished, pausing with the window closing.
#include <net/tcp_stream.hpp>
#include <random>

#include "tcp_fixture.hpp"

namespace keel::test {
namespace {

using ::net::TcpStream;
using ::net::TcpStreamError;
using ::net::TcpStreamOptions;

class TcpStreamRead : public TcpTest {
 protected:
  TcpStream open_stream(TcpStreamOptions so = {}) {
    TcpOptions o = options();
    o.auto_consume = false;
    connection = accept({}, o);
    auto s = TcpStream::open(connection, so);
    EXPECT_TRUE(s.ok());
    return *s;
  }
  void peer_sends(std::string_view data) {
    inject(from_peer(flag::ack, peer_isn + 1 + sent, iss + 1, 511), text(data));
    sent += uint32_t(data.size());
    nic.transmitted.clear();
  }
  void peer_ends() {
    inject(from_peer(flag::ack | flag::fin, peer_isn + 1 + sent, iss + 1, 511));
    nic.transmitted.clear();
  }
  TcpConnection connection;
  uint32_t sent = 0;
  std::vector<std::string> lines;
};

TEST_F(TcpStreamRead, LinesSplitAtEveryPositionAcrossSegments) {
  TcpStream s = open_stream();
  s.on_line([this](std::string_view line) { lines.emplace_back(line); });
  const std::string input = "GET / HTTP/1.1\r\nHost: a\r\n\r\nx\ny\r\n";
  const std::vector<std::string> each = {"GET / HTTP/1.1", "Host: a", "", "x", "y"};
  std::vector<std::string> expected;
  // Three segments, cut at every pair of positions.
  for (std::size_t i = 0; i <= input.size(); ++i) {
    for (std::size_t j = i; j <= input.size(); ++j) {
      peer_sends(std::string_view(input).substr(0, i));
      peer_sends(std::string_view(input).substr(i, j - i));
      peer_sends(std::string_view(input).substr(j));
      expected.insert(expected.end(), each.begin(), each.end());
      ASSERT_EQ(lines, expected) << "cut at " << i << " and " << j;
    }
  }
  // All of it consumed: the window is whole again.
  EXPECT_EQ(connection.unconsumed(), 0u);
}

TEST_F(TcpStreamRead, LinesOneByteASegment) {
  TcpStream s = open_stream();
  s.on_line([this](std::string_view line) { lines.emplace_back(line); });
  for (char c : std::string_view("ab\r\ncd\n\n")) peer_sends(std::string_view(&c, 1));
  EXPECT_EQ(lines, (std::vector<std::string>{"ab", "cd", ""}));
}

// Random lines in random segments, past the end of the receive ring
// several times (it wraps: a line may lie in two spans of it).
TEST_F(TcpStreamRead, RandomLinesInRandomSegmentsAcrossTheRingsWrap) {
  TcpStreamOptions so;
  so.max_line = 64;
  TcpStream s = open_stream(so);
  s.on_line([this](std::string_view line) { lines.emplace_back(line); });
  std::mt19937 random(7);
  std::string input;
  std::vector<std::string> expected;
  while (input.size() < 4 * buffer) {
    std::string line(random() % 65, 'a');
    for (char& c : line) c = char('a' + random() % 26);
    expected.push_back(line);
    input += line + (random() % 2 ? "\r\n" : "\n");
  }
  for (std::size_t at = 0; at < input.size();) {
    std::size_t n = std::min<std::size_t>(1 + random() % 1400, input.size() - at);
    peer_sends(std::string_view(input).substr(at, n));
    at += n;
  }
  EXPECT_EQ(lines, expected);
  EXPECT_EQ(connection.unconsumed(), 0u);
}

TEST_F(TcpStreamRead, ALineLongerThanMaxLineIsAnErrorNotMemory) {
  TcpStreamOptions so;
  so.max_line = 16;
  TcpStream s = open_stream(so);
  std::vector<TcpStreamError> errors;
  s.on_line([this](std::string_view line) { lines.emplace_back(line); });
  s.on_error([&](TcpStreamError e) { errors.push_back(e); });
  peer_sends("0123456789abcdef\r\n");  // 16: the longest taken
  peer_sends("0123456789abcdef\r");    // 17 without an LF: a CR may end it
  EXPECT_TRUE(errors.empty());
  peer_sends("x");  // 18 bytes and no line ending
  EXPECT_EQ(errors, (std::vector<TcpStreamError>{TcpStreamError::line_too_long}));
  EXPECT_EQ(lines, (std::vector<std::string>{"0123456789abcdef"}));
  // Reading stopped for good: nothing more is handed out or copied.
  peer_sends("\nmore\n");
  EXPECT_EQ(lines.size(), 1u);
  EXPECT_EQ(errors.size(), 1u);
  EXPECT_TRUE(s.is_open());  // the service answers and closes
  EXPECT_EQ(s.close(), Status::ok);
}

TEST_F(TcpStreamRead, ALongLineInOneSegmentIsAnErrorToo) {
  TcpStreamOptions so;
  so.max_line = 16;
  TcpStream s = open_stream(so);
  int errors = 0;
  s.on_line([this](std::string_view line) { lines.emplace_back(line); });
  s.on_error([&](TcpStreamError) { ++errors; });
  peer_sends("ok\n0123456789abcdefg\n");  // 17 before the LF
  EXPECT_EQ(lines, (std::vector<std::string>{"ok"}));
  EXPECT_EQ(errors, 1);
}

// DNS over TCP (RFC 7766 §8): a 2-byte length, then the message.
TEST_F(TcpStreamRead, LengthPrefixedFramesSplitAtEveryPosition) {
  TcpStream s = open_stream();
  std::vector<Bytes> messages;
  std::function<void()> read_length = [&] {
    s.on_bytes(2, [&](std::span<const uint8_t> length) {
      std::size_t n = std::size_t(length[0]) << 8 | length[1];
      EXPECT_EQ(s.on_bytes(n,
                           [&](std::span<const uint8_t> m) {
                             messages.emplace_back(m.begin(), m.end());
                             read_length();
                           }),
                Status::ok);
    });
  };
  read_length();
  std::string input;
  std::vector<Bytes> each;
  for (std::size_t n : {1, 12, 300}) {
    Bytes m = pattern(n, uint8_t(n));
    each.push_back(m);
    input += char(n >> 8);
    input += char(n & 0xff);
    input.append(m.begin(), m.end());
  }
  std::vector<Bytes> expected;
  for (std::size_t i = 0; i <= input.size(); ++i) {
    peer_sends(std::string_view(input).substr(0, i));
    peer_sends(std::string_view(input).substr(i));
    expected.insert(expected.end(), each.begin(), each.end());
    ASSERT_EQ(messages, expected) << "cut at " << i;
  }
  EXPECT_EQ(connection.unconsumed(), 0u);
}

TEST_F(TcpStreamRead, FrameCountsOutOfRangeAreRefused) {
  TcpStreamOptions so;
  so.max_frame = 100;
  TcpStream s = open_stream(so);
  auto ignore = [](std::span<const uint8_t>) {};
  EXPECT_EQ(s.on_bytes(0, ignore), Status::invalid);
  EXPECT_EQ(s.on_bytes(101, ignore), Status::too_big);
  EXPECT_EQ(s.on_bytes(100, ignore), Status::ok);
}

TEST_F(TcpStreamRead, TheEndHandsOverWhatMadeNoWholeLine) {
  TcpStream s = open_stream();
  std::optional<std::string> rest;
  s.on_line([this](std::string_view line) { lines.emplace_back(line); });
  s.on_end([&](std::span<const uint8_t> r) { rest = std::string(r.begin(), r.end()); });
  peer_sends("a\nb");
  peer_sends("c");
  EXPECT_FALSE(rest);
  peer_ends();
  EXPECT_EQ(lines, (std::vector<std::string>{"a"}));
  EXPECT_EQ(rest, "bc");
}

TEST_F(TcpStreamRead, ReplacingTheReaderInsideAHandlerSwitchesAtThatByte) {
  TcpStream s = open_stream();
  Bytes body;
  // A header line, then a body of the length it gives, then lines again.
  std::function<void()> read_head = [&] {
    s.on_line([&](std::string_view line) {
      lines.emplace_back(line);
      if (line.starts_with("len ")) {
        std::size_t n = std::stoul(std::string(line.substr(4)));
        s.on_bytes(n, [&](std::span<const uint8_t> b) {
          body.assign(b.begin(), b.end());
          read_head();
        });
      }
    });
  };
  read_head();
  peer_sends("len 6\nhel");
  peer_sends("lo\nnext\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"len 6", "next"}));
  EXPECT_EQ(std::string(body.begin(), body.end()), "hello\n");
}

TEST_F(TcpStreamRead, PausedInputStaysInTheWindowAndResumeHandsItOut) {
  TcpStream s = open_stream();
  s.on_line([&](std::string_view line) {
    lines.emplace_back(line);
    s.pause();  // one request at a time (HTTP pipelining)
  });
  peer_sends("one\ntwo\nthree\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"one"}));
  EXPECT_TRUE(s.paused());
  // "two\nthree\n" is held unconsumed: the window stays closed by as much.
  EXPECT_EQ(connection.unconsumed(), 10u);
  EXPECT_EQ(s.resume(), Status::ok);  // from outside a handler: at once
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(connection.unconsumed(), 6u);
  s.resume();
  s.resume();
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(connection.unconsumed(), 0u);
}

TEST_F(TcpStreamRead, DataTakenInPartPausesAndIsOfferedAgain) {
  TcpStream s = open_stream();
  std::string got;
  std::size_t take = 3;
  s.on_data([&](std::span<const uint8_t> d) {
    std::size_t n = std::min(take, d.size());
    got.append(d.begin(), d.begin() + std::ptrdiff_t(n));
    return n;
  });
  peer_sends("abcdefgh");
  EXPECT_EQ(got, "abc");
  EXPECT_TRUE(s.paused());
  EXPECT_EQ(connection.unconsumed(), 5u);
  take = 100;
  s.resume();
  EXPECT_EQ(got, "abcdefgh");
  EXPECT_FALSE(s.paused());
}

TEST_F(TcpStreamRead, ACloseInsideAHandlerEndsReadingThere) {
  TcpStream s = open_stream();
  s.on_line([&](std::string_view line) {
    lines.emplace_back(line);
    if (line == "quit") {
      EXPECT_EQ(s.write(std::string_view("bye\n")), Status::ok);
      EXPECT_EQ(s.close(), Status::ok);
    }
  });
  bool closed_ran = false;
  s.on_close([&](TcpCloseReason) { closed_ran = true; });
  peer_sends("a\nquit\nb\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "quit"}));
  EXPECT_FALSE(s.is_open());
  EXPECT_EQ(s.write(std::string_view("x")), Status::closed);
  EXPECT_EQ(connection.state(), TcpState::closed);  // handed to the stack
  peer_ends();
  EXPECT_FALSE(closed_ran);  // no handler runs after close()
}

TEST_F(TcpStreamRead, AnAbortInsideAHandlerResetsAtOnce) {
  TcpStream s = open_stream();
  s.on_line([&](std::string_view line) {
    lines.emplace_back(line);
    EXPECT_EQ(s.abort(), Status::ok);
    EXPECT_EQ(s.abort(), Status::closed);
  });
  peer_sends("a\nb\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"a"}));
  EXPECT_FALSE(s.is_open());
  EXPECT_FALSE(connection.is_open());
}

TEST_F(TcpStreamRead, AConnectionWithAutoConsumeIsRefused) {
  TcpConnection c = accept();
  EXPECT_EQ(TcpStream::open(c).status, Status::invalid);
  EXPECT_EQ(TcpStream::open(TcpConnection{}).status, Status::closed);
  TcpStream none;
  EXPECT_EQ(none.write(std::string_view("x")), Status::closed);
  EXPECT_EQ(none.on_line([](std::string_view) {}), Status::closed);
}

}  // namespace
}  // namespace keel::test
