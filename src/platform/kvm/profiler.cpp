#include "profiler.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <os>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/cpu.hpp"
#include "arch/x86_64/interrupts.hpp"
#include "kernel/platform.hpp"
#include "symbols.hpp"

namespace keel::kvm::profiler {
namespace {

constexpr uint32_t sample_hz = 4000;
constexpr uint32_t pit_hz = 1'193'182;
constexpr uint16_t pit_channel0 = 0x40, pit_command = 0x43;
constexpr uint8_t channel0_rate_generator = 0x34;  // lobyte/hibyte, mode 2
// ISA IRQ 0 arrives on I/O APIC pin 2 (the interrupt source override QEMU's
// pc, q35 and microvm all declare).
constexpr uint32_t pit_gsi = 2;
constexpr std::size_t max_samples = 1 << 16;
constexpr std::size_t shown_functions = 15;

uint64_t* samples = nullptr;  // max_samples, allocated when profiling starts
volatile std::size_t sample_count = 0;
uint64_t window_start_ns = 0;

void record(const kernel::CpuState& interrupted) {
  std::size_t n = sample_count;
  if (n < max_samples) {
    samples[n] = interrupted.rip;
    sample_count = n + 1;
  }
}

void report() {
  arch::disable_interrupts();
  std::size_t n = sample_count;
  std::vector<uint64_t> taken(samples, samples + n);
  sample_count = 0;
  arch::enable_interrupts();
  uint64_t now = platform::monotonic_ns();
  // Counted by function start (0: unknown), named only when printed:
  // decoding a name costs far more than the lookup.
  std::unordered_map<uint64_t, std::size_t> per_function;
  for (uint64_t rip : taken) ++per_function[kvm::function_start(rip)];
  std::vector<std::pair<std::size_t, uint64_t>> ranked;
  for (auto& [start, count] : per_function) ranked.emplace_back(count, start);
  std::sort(ranked.rbegin(), ranked.rend());
  std::printf("profile: %zu samples in %.1f s\n", n, double(now - window_start_ns) / 1e9);
  for (std::size_t i = 0; i < ranked.size() && i < shown_functions; ++i) {
    const char* name = ranked[i].second ? platform::symbolize(ranked[i].second).name : nullptr;
    std::printf("  %5.1f%%  %s\n", 100.0 * double(ranked[i].first) / double(n ? n : 1),
                name ? name : "?");
  }
  window_start_ns = now;
}

}  // namespace

void start_if_requested() {
  constexpr std::string_view key = "keel.profile=";
  unsigned seconds = 0;
  for (const std::string& arg : os::args()) {
    if (arg.compare(0, key.size(), key) != 0) continue;
    std::string_view v = std::string_view(arg).substr(key.size());
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
    if (ec != std::errc() || end != v.data() + v.size() || seconds == 0) {
      std::printf("keel.profile: '%.*s' is not a number of seconds; not profiling\n", int(v.size()),
                  v.data());
      return;
    }
  }
  if (seconds == 0) return;
  int event = os::Events::allocate([] {});  // the interrupt itself is the sample
  if (event < 0 || !arch::apic::route_irq(pit_gsi, event, arch::apic::Trigger::edge)) {
    std::printf("keel.profile: no interrupt for the PIT; not profiling\n");
    return;
  }
  samples = new uint64_t[max_samples];
  arch::set_interrupt_sampler(record);
  uint16_t divisor = uint16_t(pit_hz / sample_hz);
  arch::outb(pit_command, channel0_rate_generator);
  arch::outb(pit_channel0, uint8_t(divisor));
  arch::outb(pit_channel0, uint8_t(divisor >> 8));
  window_start_ns = platform::monotonic_ns();
  os::Timers::periodic(std::chrono::seconds(seconds), [](os::Timers::id_t) { report(); });
  std::printf("keel.profile: sampling at %u Hz, a report every %u s\n", sample_hz, seconds);
}

}  // namespace keel::kvm::profiler
