// Registers saved by interrupt_entry.S, lowest address first.
#pragma once
#include <cstdint>

namespace keel::kernel {

struct CpuState {
  uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
  uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
  uint64_t vector, error_code;
  // Pushed by the CPU.
  uint64_t rip, cs, rflags, rsp, ss;
};

}  // namespace keel::kernel
