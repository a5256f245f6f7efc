// libFuzzer target: a TcpStream service under a client the input drives.
// Two host stacks on an in-memory link; the client (a plain connection)
// writes bytes from the input in pieces it chooses, and the input also
// plays the service: which reader the stream has (lines, frames of a
// count, data taken in part), pause and resume, writes back, shutdown,
// close and abort, and time. Build with -DKEEL_FUZZ=ON (clang); run
// test/fuzz/run_tcp_stream.sh.
//
// Input: byte 0: max_line - 1 (6 bits), bit 6 a 2 KiB send buffer at the
// server, bit 7 the client reads nothing. Then records:
//   0x00 n [n bytes]   the client writes n bytes (what the send buffer takes)
//   0x01 t             t ms pass
//   0x02 c             the service's reader: c%3 0 lines, 1 frames of
//                      1 + c/3 bytes, 2 data, taking at most c/3 + ... bytes
//   0x03 k             pause (k even) or resume
//   0x04 n             the service writes n × 64 bytes
//   0x05 k             shutdown (k%3 == 0), close (1) or abort (2)
//   0x06               the client shuts down
// Invariants (abort): no crash, leak or undefined behaviour (ASan, UBSan,
// LeakSanitizer: the stream's state must not outlive its connection);
// lines within max_line and without an LF, frames of the count asked for,
// data handlers never offered nothing; what the stream handed out is a
// prefix of what the client sent (lines compared without their endings);
// the queue within write_limit plus one write; at the end, after aborts
// and time, no TCP memory left on either side.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <net/stack.hpp>
#include <net/tcp_stream.hpp>
#include <vector>

#include "stack_pair.hpp"

namespace {

#define CHECK(ok) keel::fuzz::check_at("tcp_stream_fuzz", ok, __LINE__)
using Side = keel::fuzz::StackSide;

class Run {
 public:
  Run(const uint8_t* data, std::size_t size) : in_(data), end_(data + size) {}

  void go() {
    if (in_ == end_) return;
    uint8_t setup = *in_++;
    so_.max_line = 1 + (setup & 0x3f);
    so_.write_limit = 4096;
    so_.drain_at = 1024;
    so_.max_frame = 256;
    net::TcpOptions o;
    o.auto_consume = false;
    o.receive_buffer = 8192;
    if (setup & 0x40) o.send_buffer = 2048;
    listener_ = *server_.stack.tcp().listen(
        7, [this](net::TcpConnection c) { accept(c); }, o);
    net::TcpOptions co;
    co.no_delay = true;
    co.auto_consume = !(setup & 0x80);
    client_ = *client_side_.stack.tcp().connect(
        {net::ip4::Addr{10, 0, 0, 2}, 7}, [](net::TcpConnection) {}, co);
    client_.on_read([](std::span<const uint8_t>) {});
    step(5);
    while (in_ < end_) record();
    step(50);
    stream_.abort();
    client_.abort();
    listener_.close();
    step(200);
    CHECK(server_.stack.tcp().memory_used() == 0);
    CHECK(client_side_.stack.tcp().memory_used() == 0);
  }

 private:
  void accept(net::TcpConnection c) {
    auto s = net::TcpStream::open(c, so_);
    CHECK(s.ok());
    stream_ = *s;
    set_reader(0);
    stream_.on_end([this](std::span<const uint8_t> rest) {
      CHECK(rest.size() <= std::max(so_.max_line + 1, so_.max_frame));
      handed(rest, false);
    });
    stream_.on_error([this](net::TcpStreamError) { failed_ = true; });
  }

  // What the stream hands out must be what the client sent, in order
  // (a line's ending, which the stream strips, is skipped over).
  void handed(std::span<const uint8_t> bytes, bool line) {
    CHECK(out_ + bytes.size() <= sent_.size());
    CHECK(std::equal(bytes.begin(), bytes.end(), sent_.begin() + std::ptrdiff_t(out_)));
    out_ += bytes.size();
    if (!line) return;
    if (out_ < sent_.size() && sent_[out_] == '\r') ++out_;
    CHECK(out_ < sent_.size() && sent_[out_] == '\n');
    ++out_;
  }

  void set_reader(uint8_t c) {
    switch (c % 3) {
      case 0:
        stream_.on_line([this](std::string_view line) {
          CHECK(line.size() <= so_.max_line);
          CHECK(line.find('\n') == std::string_view::npos);
          handed({reinterpret_cast<const uint8_t*>(line.data()), line.size()}, true);
        });
        break;
      case 1: {
        std::size_t count = 1 + c / 3;
        net::Status st = stream_.on_bytes(count, [this, count](std::span<const uint8_t> b) {
          CHECK(b.size() == count);
          handed(b, false);
        });
        CHECK(st == net::Status::ok || (st == net::Status::closed && !stream_.is_open()));
        break;
      }
      case 2: {
        std::size_t take = c / 3;
        stream_.on_data([this, take](std::span<const uint8_t> d) {
          CHECK(!d.empty());
          std::size_t n = std::min(take, d.size());
          handed(d.first(n), false);
          return n;
        });
        break;
      }
    }
  }

  uint8_t next() { return in_ < end_ ? *in_++ : 0; }

  void record() {
    switch (next()) {
      case 0x00: {
        std::size_t n = std::min<std::size_t>(next(), std::size_t(end_ - in_));
        auto taken = client_.write(in_, n);
        if (taken) sent_.insert(sent_.end(), in_, in_ + *taken);
        in_ += n;
        break;
      }
      case 0x01:
        step(next());
        break;
      case 0x02:
        set_reader(next());
        break;
      case 0x03:
        if (next() % 2 == 0)
          stream_.pause();
        else
          stream_.resume();
        break;
      case 0x04: {
        std::vector<uint8_t> bytes(std::size_t(next()) * 64, 'x');
        if (stream_.write(bytes) == net::Status::ok) largest_ = std::max(largest_, bytes.size());
        break;
      }
      case 0x05:
        switch (next() % 3) {
          case 0:
            stream_.shutdown();
            break;
          case 1:
            stream_.close();
            break;
          default:
            stream_.abort();
            break;
        }
        break;
      case 0x06:
        client_.shutdown();
        break;
      default:
        in_ = end_;
        break;
    }
    CHECK(stream_.queued() <= so_.write_limit + largest_);
  }

  // Frames sent during one millisecond arrive in the next.
  void step(int ms) {
    for (int i = 0; i < ms; ++i) keel::fuzz::one_millisecond(server_, client_side_, [] {});
  }

  const uint8_t* in_;
  const uint8_t* end_;
  Side server_{net::ethernet::Addr{{2, 0, 0, 0, 0, 2}}, net::ip4::Addr{10, 0, 0, 2}};
  Side client_side_{net::ethernet::Addr{{2, 0, 0, 0, 0, 1}}, net::ip4::Addr{10, 0, 0, 1}};
  net::TcpStreamOptions so_;
  net::TcpListener listener_;
  net::TcpStream stream_;
  net::TcpConnection client_;
  std::vector<uint8_t> sent_;  // what the client's send buffer took, in order
  std::size_t out_ = 0;        // how much of it the stream handed out
  std::size_t largest_ = 0;
  bool failed_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Run(data, size).go();
  return 0;
}
