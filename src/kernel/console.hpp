// The console never stalls the service: writes land in a ring buffer, and
// go on to the device at once as far as it takes them without waiting; the
// event loop drains the rest. So output shows even if a handler never
// returns, and only a flood larger than the buffer ever waits.
#pragma once
#include <cstddef>

namespace keel::console {

void write(const char* data, std::size_t size);
// Moves buffered bytes to the device without waiting; true when empty.
bool drain();
// Moves everything, waiting on the device (panic, exit).
void flush();
// How often a full buffer made a write wait for the device.
std::size_t overflow_flushes();

}  // namespace keel::console
