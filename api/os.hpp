// The Keel service API. A service implements Service::start(); it returns to
// the event loop, which runs timers and device events until os::shutdown().
#pragma once
#include <chrono>
#include <cstdint>
#include <kernel/events.hpp>
#include <kernel/timers.hpp>
#include <string>
#include <string_view>
#include <vector>

struct Service {
  // Called once the OS is up: heap, clocks, console, global constructors.
  static void start();
};

namespace os {

// Ends the event loop after the current handler; the image then exits with
// `code` (QEMU's exit status is mapped back to it by `keel boot`).
void shutdown(int code);

// The kernel command line as the boot loader passed it, and split into words.
std::string_view cmdline();
const std::vector<std::string>& args();

// Monotonic time since boot, and wall-clock time.
std::chrono::nanoseconds uptime();
std::chrono::system_clock::time_point wall_clock();

// The memory this image was given (a VM's RAM; for a Linux process, the
// machine's), for sizing caches and limits.
std::size_t total_memory();
// The memory in use now, for watching it over time (a leak grows it): on kvm the pages handed
// out (the heap and every buffer: mmap's, so malloc's); on linux the process's resident set.
std::size_t memory_in_use();

// Whether getrandom(), std::random_device and arc4random() draw from a
// generator seeded by a real entropy source: on kvm a virtio-rng device,
// RDSEED or RDRAND (the boot line "Keel: random: ..." names them); on linux
// the host kernel's. When false the bytes are guessable: code that makes
// keys or secrets (TLS, session nonces) must refuse to start.
// docs/decisions/0104.
bool random_seeded();

// Where this image runs: "kvm" or "linux".
std::string_view platform();

}  // namespace os
