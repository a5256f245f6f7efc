// The console never stalls the service: writes land in a ring buffer and go
// on to the device at once as far as it takes them without waiting; the
// event loop drains the rest. So output shows even if a handler never
// returns. When the ring is full a write is DROPPED whole (counted), never
// waited for: a flood larger than the ring loses lines, not throughput. The
// next write or drain that finds room puts one line where the gap is:
// "Keel: console dropped N bytes (M writes)". Panics and exit switch to
// waiting (wait_when_full), so their output and everything before it that
// the ring held arrives. Decision 0114.
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel::console {

void write(const char* data, std::size_t size);
// Moves buffered bytes to the device without waiting; true when empty.
bool drain();
// Moves everything, waiting on the device (panic, exit).
void flush();
// From now on a full ring makes a write wait instead of dropping it (panic,
// exit): the last words of an image are never lost.
void wait_when_full();

struct Counters {
  uint64_t written_bytes = 0;  // taken into the ring
  uint64_t dropped_writes = 0, dropped_bytes = 0;
};
const Counters& counters();

// Sees every write before the ring does (a dropped write too), until panic
// or exit: the syslog sender (src/net/syslog). A plain function: it is
// called where the heap may be unusable. One at a time; nullptr removes it.
using Tap = void (*)(const char* data, std::size_t size);
void set_tap(Tap tap);

}  // namespace keel::console
