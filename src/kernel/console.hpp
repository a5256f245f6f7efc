// The console never stalls the service: writes land in a ring buffer that the
// event loop drains into the device while the device accepts bytes.
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
