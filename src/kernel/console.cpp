#include "console.hpp"

#include <algorithm>
#include <cstring>

#include "platform.hpp"

namespace keel::console {
namespace {

constexpr std::size_t buffer_size = 64 * 1024;
char buffer[buffer_size];
std::size_t head = 0;  // next byte to send
std::size_t used = 0;
std::size_t overflows = 0;

// The contiguous run of buffered bytes starting at head.
std::size_t contiguous() { return std::min(used, buffer_size - head); }

void consume(std::size_t n) {
  head = (head + n) % buffer_size;
  used -= n;
}

}  // namespace

void write(const char* data, std::size_t size) {
  while (size > 0) {
    if (used == buffer_size) {
      // Losing output is worse than a stall: only a flood this large waits.
      ++overflows;
      flush();
    }
    std::size_t tail = (head + used) % buffer_size;
    std::size_t room = std::min(buffer_size - used, buffer_size - tail);
    std::size_t n = std::min(room, size);
    std::memcpy(buffer + tail, data, n);
    used += n;
    data += n;
    size -= n;
  }
  drain();
}

bool drain() {
  while (used > 0) {
    std::size_t taken = platform::console_try_write(buffer + head, contiguous());
    if (taken == 0) return false;
    consume(taken);
  }
  return true;
}

void flush() {
  while (used > 0) {
    std::size_t n = contiguous();
    platform::console_write_all(buffer + head, n);
    consume(n);
  }
}

std::size_t overflow_flushes() { return overflows; }

}  // namespace keel::console
