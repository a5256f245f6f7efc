// GDT with a TSS, IDT, and the SYSCALL MSRs.
#pragma once
#include <cstdint>

namespace keel::arch {

inline constexpr uint16_t kernel_code_selector = 0x08;
inline constexpr uint16_t kernel_data_selector = 0x10;

// Interrupt stack tables: every vector switches stacks, so an interrupt never
// writes into the red zone of the code it interrupts, and a stack overflow
// can still be reported.
enum class InterruptStack : uint8_t { irq = 1, exception = 2, double_fault = 3 };

void init_descriptors();
void init_syscalls();

}  // namespace keel::arch
