// TcpStream end to end, two stacks over tcp_pair.hpp's link: the echo the
// old api/net/tcp.hpp comment showed loses what the send buffer does not
// take; the stream's echo (the headers' snippet, verbatim) brings 8 MiB
// back byte for byte; a peer that never reads makes the writer see
// would_block with the memory bounded.
#include <cstdio>
#include <net/tcp_stream.hpp>

#include "tcp_fixture.hpp"
#include "tcp_pair.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

using ::net::TcpBuffer;
using ::net::TcpStream;
using ::net::TcpStreamOptions;

// The echo api/net/tcp.hpp's comment showed until TcpStream, verbatim.
// clang-format off
::net::TcpListener old_header_echo(::net::Stack& stack) {
  [[maybe_unused]] auto listener = *stack.tcp().listen(7, [](net::TcpConnection c) {
    c.on_read([c](std::span<const uint8_t> data) mutable {
      if (data.empty()) { c.close(); return; }   // the peer finished sending
      c.write(data);                               // echo (what fits)
    });
  });
  return listener;
}
// clang-format on

// The echo of api/net/tcp_stream.hpp's and api/net/tcp.hpp's comments, verbatim.
// clang-format off
::net::TcpListener header_echo(::net::Stack& stack) {
  net::TcpOptions o;
  o.auto_consume = false;  // the stream releases input itself
  [[maybe_unused]] auto listener = *stack.tcp().listen(7, [](net::TcpConnection c) {
    auto s = *net::TcpStream::open(c);
    s.on_data([s](std::span<const uint8_t> data) mutable -> std::size_t {
      if (s.write(data) != net::Status::ok) return 0;  // queue full: pause
      return data.size();                             // taken: released
    });
    s.on_drain([s]() mutable { s.resume(); });  // the queue emptied: go on
    s.on_end([s](std::span<const uint8_t>) mutable { s.close(); });
  }, o);
  return listener;
}
// clang-format on

// The line service of docs/guide.md ("A TCP service"), verbatim but for
// net::stack() (the caller's stack here).
// clang-format off
void guide_service(::net::Stack& stack) {
  net::TcpOptions o;
  o.auto_consume = false;  // a TcpStream releases input itself
  auto listening = stack.tcp().listen(7000, [](net::TcpConnection c) {
    auto s = *net::TcpStream::open(c);
    s.on_line([s](std::string_view line) mutable {
      if (line == "quit") { s.close(); return; }  // after what is queued
      std::string answer = "you said: " + std::string(line) + "\r\n";
      (void)s.write(answer);         // taken: reading pauses before the queue is full
      if (!s.writable()) s.pause();  // until on_drain
    });
    s.on_drain([s]() mutable { s.resume(); });
    s.on_error([s](net::TcpStreamError) mutable { s.close(); });  // a line over 8 KiB
  }, o);
  if (!listening) std::printf("cannot listen: %s\n", net::to_string(listening.status));
}
// clang-format on

// The same, with the listener's options and the stream's given (what
// examples/tcp_echo does), counting the drains that resumed it.
::net::TcpListener small_buffer_echo(::net::Stack& stack, TcpOptions o, TcpStreamOptions so,
                                     int& drains) {
  o.auto_consume = false;
  return *stack.tcp().listen(
      7,
      [so, &drains](TcpConnection c) {
        auto s = *TcpStream::open(c, so);
        s.on_data([s](std::span<const uint8_t> data) mutable -> std::size_t {
          return s.write(data) == Status::ok ? data.size() : 0;
        });
        s.on_drain([s, &drains]() mutable {
          ++drains;
          s.resume();
        });
        s.on_end([s](std::span<const uint8_t>) mutable { s.close(); });
      },
      o);
}

// A client that writes `data` in one write, half-closes, and reads
// everything back; as it comes, or (read_after_upload, as `nc` with a
// file does when the echo is slower than the upload) only once all of
// its upload was acknowledged.
struct EchoClient {
  EchoClient(TcpPair& pair, Bytes payload, uint32_t receive_buffer = 256 * 1024,
             bool read_after_upload = false)
      : data(std::move(payload)) {
    TcpOptions o;
    o.auto_consume = false;
    o.receive_buffer = receive_buffer;
    auto c = pair.client.stack.tcp().connect(
        pair.server_endpoint(7), [](TcpConnection) {}, o);
    stream = *TcpStream::open(*c);
    EXPECT_EQ(stream.write(data), Status::ok);  // taken whole: the queue was empty
    EXPECT_EQ(stream.shutdown(), Status::ok);
    stream.on_data([this](std::span<const uint8_t> d) {
      got.insert(got.end(), d.begin(), d.end());
      return d.size();
    });
    stream.on_end([this](std::span<const uint8_t>) { ended = true; });
    stream.on_close([this](TcpCloseReason r) { closed = r; });
    if (read_after_upload) {
      stream.pause();
      TcpConnection c = stream.connection();
      EXPECT_TRUE(pair.run_until([&] { return stream.queued() == 0 && c.send_queued() == 0; }));
      stream.resume();
    }
  }
  Bytes data, got;
  TcpStream stream;
  bool ended = false;
  std::optional<TcpCloseReason> closed;
};

TEST(TcpStreamEcho, TheOldHeaderEchoLosesWhatTheSendBufferDidNotTake) {
  TcpPair pair;
  [[maybe_unused]] auto listener = old_header_echo(pair.server.stack);
  // The client reads once its upload is through: the server's send buffer
  // fills while the upload still comes in.
  EchoClient client(pair, pattern(1 << 20, 5), 16 * 1024, true);
  ASSERT_TRUE(pair.run_until([&] { return client.ended; }));
  // The defect found from outside (1 MB and 8 MB echoes came back short):
  // write() took what fitted and the rest was dropped without a word.
  EXPECT_LT(client.got.size(), client.data.size());
  std::printf("the old echo brought %zu of %zu bytes back\n", client.got.size(),
              client.data.size());
}

TEST(TcpStreamEcho, TheHeaderEchoBrings8MiBBackByteForByte) {
  TcpPair pair;
  [[maybe_unused]] auto listener = header_echo(pair.server.stack);
  // A small window at the client: the server's send buffer fills, its
  // stream queue fills, and it must pause instead of dropping.
  EchoClient client(pair, pattern(8 << 20, 7), 16 * 1024);
  ASSERT_TRUE(pair.run_until([&] { return client.closed.has_value(); }, 120s));
  ASSERT_EQ(client.got.size(), client.data.size());
  EXPECT_TRUE(client.got == client.data);
  EXPECT_EQ(client.closed, TcpCloseReason::closed);
  pair.run_for(10ms);  // the server's LAST-ACK gets the client's ACK
  EXPECT_EQ(pair.server.stack.tcp().memory_used(), 0u);
}

// The client of the old echo's test, against the stream's echo.
TEST(TcpStreamEcho, TheHeaderEchoStallsAClientThatReadsAfterItsUploadAndLosesNothing) {
  TcpPair pair;
  [[maybe_unused]] auto listener = header_echo(pair.server.stack);
  Bytes data = pattern(1 << 20, 5);
  // The client uploads until it stalls: the echo's window closed.
  TcpOptions o;
  o.auto_consume = false;
  o.receive_buffer = 16 * 1024;
  auto c = *pair.client.stack.tcp().connect(
      pair.server_endpoint(7), [](TcpConnection) {}, o);
  TcpStream client = *TcpStream::open(c);
  Bytes got;
  bool ended = false;
  ASSERT_EQ(client.write(data), Status::ok);
  ASSERT_EQ(client.shutdown(), Status::ok);
  client.pause();
  client.on_data([&](std::span<const uint8_t> d) {
    got.insert(got.end(), d.begin(), d.end());
    return d.size();
  });
  client.on_end([&](std::span<const uint8_t>) { ended = true; });
  pair.run_for(2s);
  EXPECT_GT(client.queued() + c.send_queued(), 0u);  // stalled, nothing lost
  client.resume();
  ASSERT_TRUE(pair.run_until([&] { return ended; }, 120s));
  ASSERT_EQ(got.size(), data.size());
  EXPECT_TRUE(got == data);
}

TEST(TcpStreamEcho, EightMiBThroughASmallSendBufferComeBackByteForByte) {
  TcpPair pair;
  TcpOptions o;
  o.send_buffer = 4 * 1024;
  o.receive_buffer = 32 * 1024;
  TcpStreamOptions so;
  so.write_limit = 8 * 1024;
  so.drain_at = 2 * 1024;
  int drains = 0;
  [[maybe_unused]] auto listener = small_buffer_echo(pair.server.stack, o, so, drains);
  EchoClient client(pair, pattern(8 << 20, 11));
  ASSERT_TRUE(pair.run_until([&] { return client.closed.has_value(); }, 600s));
  ASSERT_EQ(client.got.size(), client.data.size());
  EXPECT_TRUE(client.got == client.data);
  EXPECT_GT(drains, 0);  // the back-pressure path ran
}

// A service that writes as long as write() takes it, to a client that
// never reads.
struct Flood {
  TcpStream s;
  Bytes chunk = pattern(4096, 3);
  std::size_t taken = 0, refused = 0, drains = 0, limit = 0;
  void pump() {
    while (taken < limit) {
      std::span<const uint8_t> piece(chunk.data(), std::min(chunk.size(), limit - taken));
      Status st = s.write(piece);
      if (st == Status::would_block) {
        ++refused;
        return;  // on_drain calls again
      }
      ASSERT_EQ(st, Status::ok);
      taken += piece.size();
    }
    ASSERT_EQ(s.shutdown(), Status::ok);
  }
};

TEST(TcpStreamEcho, APeerThatNeverReadsGetsBackPressureWithBoundedMemory) {
  TcpPair pair;
  TcpOptions o;
  o.auto_consume = false;
  o.send_buffer = o.receive_buffer = 64 * 1024;
  TcpStreamOptions so;  // write_limit 64 KiB
  Flood flood;
  flood.limit = 4 << 20;
  [[maybe_unused]] auto listener = *pair.server.stack.tcp().listen(
      7,
      [&](TcpConnection c) {
        flood.s = *TcpStream::open(c, so);
        flood.s.on_drain([&] {
          ++flood.drains;
          flood.pump();
        });
        flood.pump();
      },
      o);
  // The client reads nothing: its window closes at 64 KiB.
  Bytes got;
  bool reading = false, ended = false;
  TcpConnection client = *pair.client.stack.tcp().connect(
      pair.server_endpoint(7), [](TcpConnection) {}, o);
  client.on_read([&](std::span<const uint8_t> d) {
    if (d.empty()) ended = true;
    got.insert(got.end(), d.begin(), d.end());
    if (reading) client.consumed(client.unconsumed());
  });
  pair.run_for(5s);
  EXPECT_GT(flood.refused, 0u);
  // Stuck: the client's window, our send buffer and the queue are full,
  // and nothing more is taken however long the writer waits.
  const std::size_t taken = flood.taken, drains = flood.drains;
  pair.run_for(5s);
  EXPECT_EQ(flood.taken, taken);
  EXPECT_EQ(flood.drains, drains);
  // What the writer got rid of: the client's window, our send buffer, the
  // stream's queue (its limit and the write that crossed it).
  EXPECT_LE(flood.taken, 64 * 1024 + 64 * 1024 + so.write_limit + flood.chunk.size() + 4096);
  EXPECT_LE(flood.s.queued(), so.write_limit + flood.chunk.size());
  EXPECT_LE(pair.server.stack.tcp().memory_used(), 2 * 64 * 1024 + 4096);

  // The client starts reading: the writer drains and everything arrives.
  reading = true;
  client.consumed(client.unconsumed());
  ASSERT_TRUE(pair.run_until([&] { return ended; }, 120s));
  EXPECT_GT(flood.drains, drains);
  ASSERT_EQ(got.size(), flood.limit);
  for (std::size_t i = 0; i < got.size(); i += flood.chunk.size()) {
    ASSERT_TRUE(std::equal(got.begin() + std::ptrdiff_t(i),
                           got.begin() + std::ptrdiff_t(std::min(i + 4096, got.size())),
                           flood.chunk.begin()))
        << "at " << i;
  }
}

TEST(TcpStreamEcho, CopiesAndZeroCopyBuffersGoOutInTheOrderWritten) {
  TcpPair pair;
  TcpOptions o;
  o.auto_consume = false;
  o.send_buffer = 2048;
  Bytes expected;
  [[maybe_unused]] auto listener = *pair.server.stack.tcp().listen(
      7,
      [&](TcpConnection c) {
        auto s = *TcpStream::open(c);
        for (uint8_t i = 0; i < 20; ++i) {
          Bytes piece = pattern(1000 + i, i);
          expected.insert(expected.end(), piece.begin(), piece.end());
          Status st = i % 2 ? s.write(TcpBuffer::from(piece)) : s.write(piece);
          ASSERT_EQ(st, Status::ok);
        }
        EXPECT_GT(s.queued(), 0u);  // most of it waits behind the 2 KiB send buffer
        ASSERT_EQ(s.close(), Status::ok);
        EXPECT_EQ(s.write(std::string_view("late")), Status::closed);
      },
      o);
  Bytes got;
  bool ended = false;
  TcpConnection client =
      *pair.client.stack.tcp().connect(pair.server_endpoint(7), [](TcpConnection) {}, {});
  client.on_read([&](std::span<const uint8_t> d) {
    if (d.empty()) ended = true;
    got.insert(got.end(), d.begin(), d.end());
  });
  ASSERT_TRUE(pair.run_until([&] { return ended; }));
  EXPECT_TRUE(got == expected);
}

TEST(TcpStreamEcho, TheGuidesLineServiceAnswersEachLineAndQuits) {
  TcpPair pair;
  guide_service(pair.server.stack);
  TcpOptions o;
  o.auto_consume = false;
  auto c = pair.client.stack.tcp().connect(
      pair.server_endpoint(7000), [](TcpConnection) {}, o);
  TcpStream client = *TcpStream::open(*c);
  std::vector<std::string> lines;
  bool ended = false;
  client.on_line([&](std::string_view line) { lines.emplace_back(line); });
  client.on_end([&](std::span<const uint8_t>) { ended = true; });
  ASSERT_EQ(client.write(std::string_view("hello\nwor")), Status::ok);
  pair.run_for(10ms);
  ASSERT_EQ(client.write(std::string_view("ld\r\nquit\n")), Status::ok);
  ASSERT_TRUE(pair.run_until([&] { return ended; }));
  EXPECT_EQ(lines, (std::vector<std::string>{"you said: hello", "you said: world"}));
}

}  // namespace
}  // namespace keel::test
