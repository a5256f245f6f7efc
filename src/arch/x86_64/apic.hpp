// Local APIC: the one-shot wake-up timer and end-of-interrupt; the legacy PIC
// is masked. I/O APIC routing for device interrupts.
#pragma once
#include <cstdint>

namespace keel::arch::apic {

inline constexpr uint8_t first_event_vector = 32;  // vector 32 + n marks event n
inline constexpr uint8_t timer_vector = 0xf0;
inline constexpr uint8_t spurious_vector = 0xff;

void init();
void end_of_interrupt();
// Interrupts at (or soon after) the monotonic deadline; no_deadline disarms.
void arm_timer(uint64_t deadline_ns);
bool uses_tsc_deadline();

// Routes I/O APIC input `gsi` to the vector of event `event`.
enum class Trigger : uint8_t { edge, level };
// False when the GSI or the event is out of range, or the GSI is already
// routed to another event (a shared line).
[[nodiscard]] bool route_irq(uint32_t gsi, int event, Trigger trigger);

}  // namespace keel::arch::apic
