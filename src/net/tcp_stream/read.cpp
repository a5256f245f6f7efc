// TcpStream reading: the connection delivers spans of its receive ring,
// which stay unconsumed (the window stays closed by as much) until a
// reader has taken them. A line or frame lying whole in one span goes to
// its handler without a copy and is consumed when the handler returns; one
// split across spans is copied into `partial` (consumed as it is copied),
// bounded by max_line or max_frame.
#include <cstring>

#include "state.hpp"

namespace net {

const char* to_string(TcpStreamError error) {
  switch (error) {
    case TcpStreamError::line_too_long:
      return "line too long";
  }
  return "?";
}

void TcpStream::State::received(std::span<const uint8_t> data) {
  if (data.empty()) {
    peer_done = true;
  } else if (!held.empty() && held.back().data() + held.back().size() == data.data()) {
    // The next bytes of the same ring: one span, however small the segments.
    held.back() = {held.back().data(), held.back().size() + data.size()};
  } else {
    held.push_back(data);
  }
  pump();
}

void TcpStream::State::set_reader(Framing f, std::size_t n) {
  framing = f;
  count = n;
  line_handler = nullptr;
  bytes_handler = nullptr;
  data_handler = nullptr;
  ++reader_version;
  // A line or frame begun for the old reader is input for the new one.
  if (!partial.empty()) {
    partial.insert(partial.end(), requeued.begin() + std::ptrdiff_t(requeued_at), requeued.end());
    requeued = std::move(partial);
    requeued_at = 0;
    partial.clear();
  }
}

std::span<const uint8_t> TcpStream::State::front() const {
  if (!requeued.empty()) return std::span<const uint8_t>(requeued).subspan(requeued_at);
  return held.empty() ? std::span<const uint8_t>{} : held.front();
}

void TcpStream::State::release(std::size_t n) {
  if (phase != Phase::open) return;  // closed or aborted meanwhile: nothing to keep
  take(n);
}

void TcpStream::State::take(std::size_t n) {
  if (n == 0) return;
  if (!requeued.empty()) {
    requeued_at += n;
    if (requeued_at >= requeued.size()) {
      requeued.clear();
      requeued.shrink_to_fit();
      requeued_at = 0;
    }
    return;
  }
  connection.consumed(n);  // opens the window (RFC 9293 §3.8.6.2.2)
  held.front() = held.front().subspan(n);
  if (held.front().empty()) held.erase(held.begin());
}

void TcpStream::State::pump() {
  if (pumping) return;  // the running pump picks the change up
  {
    struct Pumping {  // reset even if a handler throws
      bool& flag;
      ~Pumping() { flag = false; }
    } guard{pumping = true};
    while (phase == Phase::open && !paused && !failed && step()) {
    }
  }
  if (phase == Phase::open && !paused && !failed && peer_done && !end_delivered && input_empty()) {
    end_delivered = true;
    std::vector<uint8_t> rest = std::move(partial);
    partial.clear();
    if (end_handler) {
      uint32_t version = 0;  // on_end runs once: never put back
      run_handler(*this, end_handler, version, std::span<const uint8_t>(rest));
      end_handler = nullptr;
    }
  }
}

bool TcpStream::State::step() {
  switch (framing) {
    case Framing::none:
      return false;
    case Framing::line:
      return step_line();
    case Framing::bytes:
      return step_bytes();
    case Framing::data:
      return step_data();
  }
  return false;
}

void TcpStream::State::fail(TcpStreamError error) {
  failed = true;
  uint32_t version = 0;
  if (error_handler) run_handler(*this, error_handler, version, error);
}

bool TcpStream::State::step_line() {
  std::span<const uint8_t> s = front();
  if (s.empty()) return false;
  const std::size_t max = options.max_line;
  auto* lf = static_cast<const uint8_t*>(std::memchr(s.data(), '\n', s.size()));
  if (!lf) {
    // +1: the CR of a CR LF may come before its LF does.
    if (partial.size() + s.size() > max + 1) {
      fail(TcpStreamError::line_too_long);
      return false;
    }
    partial.insert(partial.end(), s.begin(), s.end());
    release(s.size());
    return true;
  }
  const std::size_t at = std::size_t(lf - s.data());
  auto without_cr = [](const uint8_t* p, std::size_t n) {
    if (n > 0 && p[n - 1] == '\r') --n;  // RFC 9112 §2.2: CR LF, or a bare LF
    return std::string_view(reinterpret_cast<const char*>(p), n);
  };
  if (partial.empty()) {
    std::string_view line = without_cr(s.data(), at);
    if (line.size() > max) {
      fail(TcpStreamError::line_too_long);
      return false;
    }
    in_hand = at + 1;
    run_handler(*this, line_handler, reader_version, line);
    in_hand = 0;
    release(at + 1);
    return true;
  }
  partial.insert(partial.end(), s.begin(), s.begin() + std::ptrdiff_t(at));
  release(at + 1);
  std::vector<uint8_t> whole = std::move(partial);
  partial.clear();
  std::string_view line = without_cr(whole.data(), whole.size());
  if (line.size() > max) {
    fail(TcpStreamError::line_too_long);
    return false;
  }
  run_handler(*this, line_handler, reader_version, line);
  return true;
}

bool TcpStream::State::step_bytes() {
  std::span<const uint8_t> s = front();
  if (s.empty()) return false;
  const std::size_t n = count;  // the handler may ask for another count
  if (partial.empty() && s.size() >= n) {
    in_hand = n;
    run_handler(*this, bytes_handler, reader_version, s.first(n));
    in_hand = 0;
    release(n);
    return true;
  }
  std::size_t take = std::min(count - partial.size(), s.size());
  partial.insert(partial.end(), s.begin(), s.begin() + std::ptrdiff_t(take));
  release(take);
  if (partial.size() < count) return true;
  std::vector<uint8_t> whole = std::move(partial);
  partial.clear();
  run_handler(*this, bytes_handler, reader_version, std::span<const uint8_t>(whole));
  return true;
}

bool TcpStream::State::step_data() {
  std::span<const uint8_t> s = front();
  if (s.empty()) return false;
  in_hand = s.size();
  std::size_t took = run_handler(*this, data_handler, reader_version, s);
  in_hand = 0;
  took = std::min(took, s.size());
  release(took);
  if (took < s.size()) paused = true;  // the rest waits for resume()
  return true;
}

}  // namespace net
