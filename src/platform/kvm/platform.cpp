// The kernel's platform interface on a KVM (or TCG) virtual machine.
#include "kernel/platform.hpp"

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/clock.hpp"
#include "arch/x86_64/cpu.hpp"
#include "entropy.hpp"
#include "kernel/kernel.hpp"
#include "memory.hpp"
#include "profiler.hpp"
#include "serial.hpp"

extern "C" char boot_stack_bottom[], boot_stack_top[], __text_start[], __text_end[];

namespace keel::platform {
namespace {
// QEMU's isa-debug-exit (iobase=0xf4, iosize=4): the VM exits with status
// (value << 1) | 1. `keel boot` maps that back (see exit() below).
constexpr uint16_t debug_exit_port = 0xf4;
// QEMU's exit status is 8 bits: ((code + 1) << 1) | 1 <= 255.
constexpr int max_exit_code = 126;
}  // namespace

std::string_view name() { return "kvm"; }
uint64_t monotonic_ns() { return arch::clock::monotonic_ns(); }
uint64_t wall_clock_ns() { return arch::clock::wall_clock_ns(); }
uint64_t total_memory() { return kvm::total_memory(); }
uint64_t memory_in_use() { return kvm::total_memory() - kvm::free_memory(); }
bool stack_contains(uint64_t address) {
  return address >= reinterpret_cast<uint64_t>(boot_stack_bottom) &&
         address < reinterpret_cast<uint64_t>(boot_stack_top);
}

bool code_contains(uint64_t address) {
  return address >= reinterpret_cast<uint64_t>(__text_start) &&
         address < reinterpret_cast<uint64_t>(__text_end);
}

void wait_for_events(uint64_t deadline_ns) {
  arch::disable_interrupts();
  uint64_t now = arch::clock::monotonic_ns();
  if (kernel::events_pending() || now >= deadline_ns) {
    arch::enable_interrupts();
    return;
  }
  // Tickless: nothing wakes an idle guest before its next deadline (the C
  // library's crash paths trap instead of halting, decision 0005).
  arch::apic::arm_timer(deadline_ns);
  // An interrupt between arming and here stays pending and ends the hlt.
  arch::idle();
}

void before_service_start() {
  kvm::entropy::seed_from_devices();  // unless a global constructor asked already
  kvm::profiler::start_if_requested();
}

bool random_seeded() { return kvm::entropy::seeded(); }

std::size_t console_try_write(const char* data, std::size_t size) {
  return kvm::serial::try_write(data, size);
}
void console_write_all(const char* data, std::size_t size) { kvm::serial::write_all(data, size); }

void exit(int code) {
  arch::disable_interrupts();
  // Status 1 is QEMU's own error status, so code c is sent as c + 1.
  if (code < 0 || code > max_exit_code) code = max_exit_code;
  arch::outl(debug_exit_port, uint32_t(code + 1));
  // No isa-debug-exit. Firecracker ends the VM on an i8042 reset request;
  // elsewhere a triple fault resets it, which ends it under -no-reboot. The
  // status is lost either way: `keel boot` reports "no status".
  constexpr uint16_t i8042_command = 0x64;
  constexpr uint8_t i8042_pulse_reset = 0xfe;
  arch::outb(i8042_command, i8042_pulse_reset);
  struct [[gnu::packed]] {
    uint16_t limit = 0;
    uint64_t base = 0;
  } empty_idt;
  asm volatile("lidt %0; int3" ::"m"(empty_idt));
  arch::halt_forever();
}

}  // namespace keel::platform
