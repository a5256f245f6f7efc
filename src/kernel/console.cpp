#include "console.hpp"

#include <algorithm>
#include <cstring>

#include "format.hpp"
#include "platform.hpp"

namespace keel::console {
namespace {

constexpr std::size_t buffer_size = 64 * 1024;
char buffer[buffer_size];
std::size_t head = 0;  // next byte to send
std::size_t used = 0;
bool waiting = false;  // panic or exit: never drop
Counters totals;
Tap tap = nullptr;
// Drops not yet reported by a notice line in the ring.
uint64_t unreported_writes = 0, unreported_bytes = 0;

// The contiguous run of buffered bytes starting at head.
std::size_t contiguous() { return std::min(used, buffer_size - head); }

void consume(std::size_t n) {
  head = (head + n) % buffer_size;
  used -= n;
}

void append(const char* data, std::size_t size) {
  while (size > 0) {
    if (used == buffer_size) flush();  // only in waiting mode: callers checked room
    std::size_t tail = (head + used) % buffer_size;
    std::size_t room = std::min(buffer_size - used, buffer_size - tail);
    std::size_t n = std::min(room, size);
    std::memcpy(buffer + tail, data, n);
    used += n;
    data += n;
    size -= n;
  }
}

// The notice line, when drops are unreported; empty otherwise.
std::size_t format_notice(char* line, std::size_t capacity) {
  if (unreported_writes == 0) return 0;
  FixedWriter w(line, capacity);
  w.text("Keel: console dropped ")
      .udec(unreported_bytes)
      .text(" bytes (")
      .udec(unreported_writes)
      .text(" writes): the device was slower than the output\n");
  return w.view().size();
}

// Puts the notice where the gap is, if there is room for it and `more`
// bytes after it; false when there is not (the gap goes on).
bool report_drops(std::size_t more) {
  char line[128];
  std::size_t n = format_notice(line, sizeof line);
  if (n == 0) return true;
  if (!waiting && buffer_size - used < n + more) return false;
  unreported_writes = unreported_bytes = 0;  // first: append may flush (waiting)
  append(line, n);
  return true;
}

}  // namespace

void write(const char* data, std::size_t size) {
  if (tap && !waiting) tap(data, size);
  if (!waiting && buffer_size - used < size) drain();  // room the device makes now
  // Whole writes or nothing: a line is never cut, and while drops are
  // unreported nothing later may pass the gap (report_drops first).
  if (!report_drops(size) || (!waiting && buffer_size - used < size)) {
    ++totals.dropped_writes;
    totals.dropped_bytes += size;
    ++unreported_writes;
    unreported_bytes += size;
    return;
  }
  append(data, size);
  totals.written_bytes += size;
  drain();
}

bool drain() {
  while (used > 0) {
    std::size_t taken = platform::console_try_write(buffer + head, contiguous());
    if (taken == 0) return false;
    consume(taken);
  }
  if (!report_drops(0)) return false;
  return used == 0 || drain();
}

void flush() {
  while (used > 0) {
    std::size_t n = contiguous();
    platform::console_write_all(buffer + head, n);
    consume(n);
  }
  if (unreported_writes != 0) {
    char line[128];
    std::size_t n = format_notice(line, sizeof line);
    unreported_writes = unreported_bytes = 0;
    platform::console_write_all(line, n);
  }
}

void wait_when_full() { waiting = true; }

const Counters& counters() { return totals; }

void set_tap(Tap t) { tap = t; }

}  // namespace keel::console
