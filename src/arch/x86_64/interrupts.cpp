// Interrupt dispatch: CPU exceptions panic; device interrupts only mark their
// event pending (vector 32 + n is event n); the timer only wakes the loop.
#include "interrupts.hpp"

#include <kernel/events.hpp>

#include "apic.hpp"
#include "cpu.hpp"
#include "cpu_state.hpp"
#include "kernel/console.hpp"
#include "kernel/format.hpp"
#include "kernel/kernel.hpp"
#include "platform/kvm/symbols.hpp"

extern "C" char boot_stack_guard[], boot_stack_bottom[];

namespace keel::kernel {

uint64_t frame_pointer_of(const CpuState& state) { return state.rbp; }
uint64_t instruction_pointer_of(const CpuState& state) { return state.rip; }
uint64_t stack_pointer_of(const CpuState& state) { return state.rsp; }

void print_registers(const CpuState& s) {
  struct Named {
    const char* name;
    uint64_t value;
  };
  const Named regs[] = {
      {"rip", s.rip},
      {"rsp", s.rsp},
      {"rbp", s.rbp},
      {"rflags", s.rflags},
      {"rax", s.rax},
      {"rbx", s.rbx},
      {"rcx", s.rcx},
      {"rdx", s.rdx},
      {"rsi", s.rsi},
      {"rdi", s.rdi},
      {"r8", s.r8},
      {"r9", s.r9},
      {"r10", s.r10},
      {"r11", s.r11},
      {"r12", s.r12},
      {"r13", s.r13},
      {"r14", s.r14},
      {"r15", s.r15},
      {"cr2", arch::read_cr2()},
      {"cr3", arch::read_cr3()},
  };
  char line[512];
  FixedWriter w(line, sizeof line);
  int column = 0;
  for (const Named& r : regs) {
    w.text("  ").text(r.name).text(
        std::string_view("       ", 7 - std::string_view(r.name).size()));
    w.hex(r.value);
    if (++column % 4 == 0) {
      w.text("\n");
      console::write(w.view().data(), w.view().size());
      w = FixedWriter(line, sizeof line);
    }
  }
  console::write(w.view().data(), w.view().size());
}

}  // namespace keel::kernel

namespace {

constexpr uint64_t exception_vectors = 32;
constexpr uint64_t breakpoint_vector = 3;
constexpr uint64_t page_fault_vector = 14;
constexpr uint64_t null_guard_size = 64 * 1024;  // unmapped by paging.cpp

const char* const exception_names[exception_vectors] = {"divide error",
                                                        "debug",
                                                        "NMI",
                                                        "breakpoint",
                                                        "overflow",
                                                        "bound range exceeded",
                                                        "invalid opcode",
                                                        "device not available",
                                                        "double fault",
                                                        "coprocessor segment overrun",
                                                        "invalid TSS",
                                                        "segment not present",
                                                        "stack-segment fault",
                                                        "general protection fault",
                                                        "page fault",
                                                        "reserved",
                                                        "x87 floating-point error",
                                                        "alignment check",
                                                        "machine check",
                                                        "SIMD floating-point error",
                                                        "virtualization exception",
                                                        "control protection",
                                                        "reserved",
                                                        "reserved",
                                                        "reserved",
                                                        "reserved",
                                                        "reserved",
                                                        "reserved",
                                                        "hypervisor injection",
                                                        "VMM communication",
                                                        "security exception",
                                                        "reserved"};

keel::arch::InterruptSampler sampler = nullptr;

// musl's a_crash() (failed heap checks such as a bad free(), a smashed
// stack) was a hlt; tools/keel-crash-traps made it an int3, which traps only
// when it runs, with rip just past it (docs/decisions/0005).
[[noreturn]] void library_crashed(const keel::kernel::CpuState& s) {
  keel::kernel::panic(
      "the C library crashed (musl's a_crash: heap corruption such as a bad free(), or a "
      "smashed stack)",
      &s);
}

[[noreturn]] void cpu_exception(const keel::kernel::CpuState& s) {
  if (s.vector == breakpoint_vector && keel::kvm::is_crash_trap(s.rip - 1)) library_crashed(s);
  char why[160];
  keel::FixedWriter w(why, sizeof why);
  w.text("CPU exception ").udec(s.vector).text(" (").text(exception_names[s.vector]).text(")");
  if (s.vector == page_fault_vector) {
    uint64_t address = keel::arch::read_cr2();
    uint64_t guard = reinterpret_cast<uint64_t>(boot_stack_guard);
    uint64_t bottom = reinterpret_cast<uint64_t>(boot_stack_bottom);
    if ((address >= guard && address < bottom) || (s.rsp >= guard && s.rsp < bottom)) {
      w.text(": stack overflow");
    } else if (address < null_guard_size) {
      w.text(": null pointer dereference");
    }
    w.text(" at address ").hex(address);
    w.text(", error code ").hex(s.error_code, 1);
  } else if (s.error_code != 0) {
    w.text(", error code ").hex(s.error_code, 1);
  }
  keel::kernel::panic(w.view(), &s);
}

}  // namespace

namespace keel::arch {
void set_interrupt_sampler(InterruptSampler s) { sampler = s; }
}  // namespace keel::arch

extern "C" void interrupt_dispatch(keel::kernel::CpuState* state) {
  using namespace keel::arch;
  uint64_t vector = state->vector;
  if (vector < exception_vectors) cpu_exception(*state);
  if (sampler) sampler(*state);
  if (vector == apic::spurious_vector) return;  // no EOI for spurious interrupts
  if (vector >= apic::first_event_vector &&
      vector < apic::first_event_vector + os::Events::max_events) {
    os::Events::trigger(int(vector - apic::first_event_vector));
  }
  // The timer needs no work: ending the idle hlt lets the loop run timers.
  apic::end_of_interrupt();
}
