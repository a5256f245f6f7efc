#include "apic.hpp"

#include <kernel/events.hpp>

#include "clock.hpp"
#include "cpu.hpp"
#include "kernel/platform.hpp"

namespace keel::arch::apic {
namespace {

constexpr uint32_t msr_apic_base = 0x1b;
constexpr uint32_t msr_tsc_deadline = 0x6e0;
constexpr uint64_t apic_base_mask = ~0xfffull;
constexpr uint64_t apic_global_enable = 1 << 11;

// Local APIC register offsets (Intel SDM vol. 3, 10.4.1).
constexpr uint32_t reg_eoi = 0xb0;
constexpr uint32_t reg_spurious = 0xf0;
constexpr uint32_t reg_lvt_timer = 0x320;
constexpr uint32_t reg_timer_initial = 0x380;
constexpr uint32_t reg_timer_current = 0x390;
constexpr uint32_t reg_timer_divide = 0x3e0;
constexpr uint32_t apic_software_enable = 1 << 8;
constexpr uint32_t lvt_tsc_deadline_mode = 2 << 17;
constexpr uint32_t divide_by_16 = 0x3;
constexpr uint32_t cpuid_tsc_deadline = 1 << 24;

constexpr uint64_t ioapic_base = 0xfec00000;
// QEMU -M microvm with ACPI adds a second I/O APIC for GSIs 24..47, where
// its virtio-mmio transports are wired (hw/i386/microvm.c).
constexpr uint64_t ioapic2_base = 0xfec10000;
constexpr uint32_t ioapic_pins = 24;
constexpr uint32_t ioapic_redirection_table = 0x10;
constexpr uint32_t ioapic_level_triggered = 1 << 15;

volatile uint32_t* lapic = nullptr;
bool tsc_deadline = false;
uint64_t lapic_timer_hz = 0;  // one-shot mode only

uint32_t read(uint32_t reg) { return lapic[reg / 4]; }
void write(uint32_t reg, uint32_t value) { lapic[reg / 4] = value; }

void mask_legacy_pic() {
  constexpr uint16_t pic1_data = 0x21, pic2_data = 0xa1;
  constexpr uint8_t mask_all = 0xff;
  outb(pic1_data, mask_all);
  outb(pic2_data, mask_all);
}

// Without TSC-deadline mode the APIC timer counts its own clock: measure it
// against the TSC once.
void calibrate_lapic_timer() {
  constexpr uint32_t start_count = 0xffffffff;
  constexpr uint64_t window_ns = 500'000;
  write(reg_timer_divide, divide_by_16);
  write(reg_timer_initial, start_count);
  uint64_t start = clock::monotonic_ns();
  while (clock::monotonic_ns() - start < window_ns) pause();
  uint32_t elapsed_ticks = start_count - read(reg_timer_current);
  uint64_t elapsed_ns = clock::monotonic_ns() - start;
  write(reg_timer_initial, 0);
  lapic_timer_hz = uint64_t(elapsed_ticks) * 1'000'000'000ull / elapsed_ns;
}

void ioapic_write(uint64_t ioapic, uint32_t reg, uint32_t value) {
  auto* base = reinterpret_cast<volatile uint32_t*>(ioapic);
  base[0] = reg;
  base[4] = value;
}

}  // namespace

void init() {
  mask_legacy_pic();
  uint64_t base = rdmsr(msr_apic_base);
  wrmsr(msr_apic_base, base | apic_global_enable);
  lapic = reinterpret_cast<volatile uint32_t*>(base & apic_base_mask);
  write(reg_spurious, apic_software_enable | spurious_vector);
  tsc_deadline = cpuid(1).ecx & cpuid_tsc_deadline;
  if (tsc_deadline) {
    write(reg_lvt_timer, lvt_tsc_deadline_mode | timer_vector);
  } else {
    write(reg_lvt_timer, timer_vector);  // one-shot
    calibrate_lapic_timer();
  }
}

bool uses_tsc_deadline() { return tsc_deadline; }

void end_of_interrupt() { write(reg_eoi, 0); }

void arm_timer(uint64_t deadline_ns) {
  if (tsc_deadline) {
    wrmsr(msr_tsc_deadline, deadline_ns == platform::no_deadline ? 0 : clock::tsc_at(deadline_ns));
    return;
  }
  if (deadline_ns == platform::no_deadline) {
    write(reg_timer_initial, 0);
    return;
  }
  uint64_t now = clock::monotonic_ns();
  uint64_t delta_ns = deadline_ns > now ? deadline_ns - now : 0;
  unsigned __int128 ticks = (unsigned __int128)delta_ns * lapic_timer_hz / 1'000'000'000u;
  if (ticks == 0) ticks = 1;
  if (ticks > 0xffffffffu) ticks = 0xffffffffu;  // wakes early; the loop re-arms
  write(reg_timer_initial, uint32_t(ticks));
}

bool route_irq(uint32_t gsi, int event, Trigger trigger) {
  if (gsi >= 2 * ioapic_pins || event < 0 || event >= os::Events::max_events) return false;
  // One event per pin: a second device on a shared line (PCI INTx) would
  // silently take the first one's interrupts. It is refused instead, and
  // its driver falls back to polling.
  static int routed_event_plus_one[2 * ioapic_pins] = {};
  int& routed = routed_event_plus_one[gsi];
  if (routed != 0 && routed != event + 1) return false;
  routed = event + 1;
  uint32_t low = first_event_vector + uint32_t(event);
  if (trigger == Trigger::level) low |= ioapic_level_triggered;
  uint64_t ioapic = gsi < ioapic_pins ? ioapic_base : ioapic2_base;
  gsi %= ioapic_pins;
  ioapic_write(ioapic, ioapic_redirection_table + 2 * gsi + 1, 0);  // destination: APIC 0
  ioapic_write(ioapic, ioapic_redirection_table + 2 * gsi, low);
  return true;
}

}  // namespace keel::arch::apic
