#include "entropy.hpp"

#include <utility>

#include "arch/x86_64/cpu.hpp"
#include "cpu_random.hpp"
#include "drivers/virtio/rng.hpp"
#include "kernel/console.hpp"
#include "kernel/format.hpp"
#include "kernel/platform.hpp"
#include "kernel/random/generator.hpp"

namespace keel::kvm::entropy {
namespace {

// 64 bytes from each source: twice the generator's key, so a source that
// delivers half its nominal entropy still fills it.
constexpr std::size_t seed_bytes = 64;
// How long stage 2 waits for virtio-rng. QEMU answers from its main loop
// in well under a millisecond here (docs/decisions/0104 has the figure);
// the bound is for a host whose backend blocks (/dev/random on an old
// kernel) or a device that never answers: boot goes on without it, and
// says so.
constexpr uint64_t virtio_rng_wait_ns = 1'000'000'000;
// Like Linux's crng: fresh CPU entropy every minute of uptime.
constexpr uint64_t reseed_interval_ns = 60'000'000'000;
// TSC readings around a ChaCha20 block: their low bits carry the host's
// scheduling and cache noise. Only when no real source answered; never
// counted as a seed.
constexpr int jitter_samples = 64;

enum Source : unsigned { virtio_rng = 1, rdseed = 2, rdrand = 4 };

random::Generator generator;
unsigned sources = 0;
std::string_view boot_cmdline;
bool devices_tried = false, in_stage2 = false;
uint64_t last_reseed_ns = 0;

void mix_jitter() {
  uint64_t samples[jitter_samples];
  uint8_t key[random::chacha20_key_size] = {}, nonce[random::chacha20_nonce_size] = {};
  uint8_t block[random::chacha20_block_size];
  for (int i = 0; i < jitter_samples; ++i) {
    samples[i] = arch::rdtsc();
    random::chacha20_block(key, uint32_t(i), nonce, block);
    key[i % sizeof key] ^= block[samples[i] % sizeof block];
  }
  generator.mix(samples, sizeof samples);
  random::wipe(samples, sizeof samples);
  random::wipe(block, sizeof block);
}

// Mixes `seed_bytes` from a CPU instruction; true when it delivered.
bool mix_cpu(bool (*draw)(void*, std::size_t)) {
  uint8_t seed[seed_bytes];
  bool ok = draw(seed, sizeof seed);
  if (ok) generator.mix(seed, sizeof seed);
  random::wipe(seed, sizeof seed);
  return ok;
}

uint64_t now_ns() { return platform::monotonic_ns(); }

void say(FixedWriter& w) {
  w.text("\n");
  console::write(w.view().data(), w.view().size());
}

void report(std::size_t virtio_bytes, bool virtio_present) {
  char line[400];
  FixedWriter w(line, sizeof line);
  if (sources == 0) {
    w.text("Keel: random: NOT SEEDED: ");
    if (!virtio_present) {
      w.text("no virtio-rng device");
    } else if (virtio_bytes == 0) {
      w.text("virtio-rng gave nothing");
    } else {
      w.text("virtio-rng gave only ")
          .udec(virtio_bytes)
          .text(" of ")
          .udec(seed_bytes)
          .text(" bytes");
    }
    w.text(
        " and the CPU has no usable RDSEED/RDRAND; getrandom() answers from TSC jitter, "
        "which is guessable. Add `-object rng-random,id=rng0,filename=/dev/urandom -device "
        "virtio-rng-pci,rng=rng0` (virtio-rng-device on microvm) to QEMU's command line");
    return say(w);
  }
  w.text("Keel: random: seeded from ");
  const char* separator = "";
  for (auto [bit, name] : {std::pair{virtio_rng, "virtio-rng"}, std::pair{rdseed, "rdseed"},
                           std::pair{rdrand, "rdrand"}}) {
    if (!(sources & bit)) continue;
    w.text(separator).text(name);
    separator = ", ";
  }
  if (virtio_present && !(sources & virtio_rng)) {
    w.text(" (virtio-rng gave ").udec(virtio_bytes).text(" of ").udec(seed_bytes);
    w.text(" bytes within ").udec(virtio_rng_wait_ns / 1'000'000).text(" ms)");
  }
  say(w);
}

void reseed_if_due() {
  uint64_t now = now_ns();
  if (now - last_reseed_ns < reseed_interval_ns) return;
  last_reseed_ns = now;
  if (!mix_cpu(cpu_random::rdseed_bytes)) mix_cpu(cpu_random::rdrand_bytes);
}

}  // namespace

void seed_early(std::string_view cmdline) {
  boot_cmdline = cmdline;
  cpu_random::detect();
  uint64_t tsc = arch::rdtsc();
  generator.mix(&tsc, sizeof tsc);
  generator.mix(cmdline.data(), cmdline.size());  // distinct per instance, not secret
  if (mix_cpu(cpu_random::rdseed_bytes)) sources |= rdseed;
  if (mix_cpu(cpu_random::rdrand_bytes)) sources |= rdrand;
  // AT_RANDOM comes from this stage: without a CPU source, jitter is all
  // there is to make it worse than a TSC guess.
  if (sources == 0) mix_jitter();
  last_reseed_ns = now_ns();
}

void fill_early(void* out, std::size_t size) { generator.generate(out, size); }

void seed_from_devices() {
  if (devices_tried || in_stage2) return;
  in_stage2 = true;  // the driver's own allocations must not come back here
  std::size_t got = 0;
  bool present = false;
  if (auto rng = drivers::virtio::find_rng_device(boot_cmdline)) {
    present = true;
    uint8_t seed[seed_bytes];
    got = rng->read(seed, now_ns() + virtio_rng_wait_ns, now_ns);
    if (got == seed_bytes) sources |= virtio_rng;
    if (got > 0) generator.mix(seed, got);
    random::wipe(seed, sizeof seed);
  }
  // Nothing real: jitter is the last resort (and the line says so). With a
  // real source it would cost boot time (milliseconds under TCG) for little.
  if (sources == 0) mix_jitter();
  devices_tried = true;
  in_stage2 = false;
  report(got, present);
}

bool seeded() {
  seed_from_devices();
  return sources != 0;
}

void fill(void* out, std::size_t size) {
  seed_from_devices();
  if (sources & (rdseed | rdrand)) reseed_if_due();
  generator.generate(out, size);
}

}  // namespace keel::kvm::entropy
