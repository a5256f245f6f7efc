// Where the kvm platform's random bytes come from (getrandom(),
// std::random_device, musl's AT_RANDOM): the kernel's ChaCha20 generator
// (src/kernel/random), seeded from every source the machine has: a
// virtio-rng device, RDSEED, RDRAND. Without any of them, TSC jitter keys
// it, and it reports itself NOT seeded. docs/decisions/0104.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::kvm::entropy {

// Stage 1, from kernel_entry before the C library runs (no heap): the CPU's
// instructions, the TSC and the command line (jitter if the CPU has none). `cmdline` must outlive
// the image (start.cpp's copy).
void seed_early(std::string_view cmdline);

// Bytes from the stage-1 generator, for musl's AT_RANDOM in kernel_entry.
void fill_early(void* out, std::size_t size);

// Stage 2, once the heap works: reads 64 bytes from a virtio-rng device and
// prints the one console line that says what seeded the generator, or
// loudly that nothing did. Runs once: before Service::start(), or earlier
// at the first request for random bytes (a global constructor).
void seed_from_devices();

// Whether a real source (virtio-rng, RDSEED, RDRAND) seeded the generator.
// Runs stage 2 first if it has not run.
bool seeded();

// `size` random bytes. Reseeds from RDSEED/RDRAND every reseed_interval.
void fill(void* out, std::size_t size);

}  // namespace keel::kvm::entropy
