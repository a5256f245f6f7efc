// The kernel's platform interface on a KVM (or TCG) virtual machine.
#include "kernel/platform.hpp"

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/clock.hpp"
#include "arch/x86_64/cpu.hpp"
#include "kernel/kernel.hpp"
#include "serial.hpp"

namespace keel::platform {
namespace {
// QEMU's isa-debug-exit (iobase=0xf4, iosize=4): the VM exits with status
// (value << 1) | 1. `keel boot` maps that back to `value`.
constexpr uint16_t debug_exit_port = 0xf4;
}  // namespace

std::string_view name() { return "kvm"; }
uint64_t monotonic_ns() { return arch::clock::monotonic_ns(); }
uint64_t wall_clock_ns() { return arch::clock::wall_clock_ns(); }
void arm_timer(uint64_t deadline_ns) { arch::apic::arm_timer(deadline_ns); }

void wait_for_events() {
  arch::disable_interrupts();
  if (kernel::events_pending()) {
    arch::enable_interrupts();
    return;
  }
  arch::enable_interrupts_and_halt();
}

std::size_t console_try_write(const char* data, std::size_t size) {
  return kvm::serial::try_write(data, size);
}
void console_write_all(const char* data, std::size_t size) { kvm::serial::write_all(data, size); }

void exit(int code) {
  arch::disable_interrupts();
  arch::outl(debug_exit_port, uint32_t(code));
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
