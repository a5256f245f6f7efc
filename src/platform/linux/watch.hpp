// Linux platform: file descriptors stand in for device interrupts. A watched
// fd that becomes readable marks its event pending, like an IRQ would.
#pragma once

namespace keel::linux_platform {

// Marks os::Events event `event` pending whenever `fd` is readable.
bool watch_fd(int fd, int event);
void unwatch_fd(int fd);
// Waits up to timeout_ms (-1: forever) for a watched fd.
void wait_for_watched_fds(int timeout_ms);

}  // namespace keel::linux_platform
