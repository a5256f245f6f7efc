#include "descriptors.hpp"

#include <cstring>

#include "cpu.hpp"

extern "C" char interrupt_stubs[];
extern "C" void syscall_entry();

namespace keel::arch {
namespace {

constexpr int vector_count = 256;
constexpr int stub_spacing = 16;  // matches .balign in interrupt_entry.S
constexpr int exception_vectors = 32;
constexpr uint8_t double_fault_vector = 8;
constexpr uint8_t nmi_vector = 2;
constexpr uint8_t interrupt_gate = 0x8e;  // present, DPL 0, 64-bit interrupt gate
constexpr std::size_t ist_stack_size = 16 * 1024;

struct [[gnu::packed]] Tss {
  uint32_t reserved0;
  uint64_t rsp[3];
  uint64_t reserved1;
  uint64_t ist[7];
  uint64_t reserved2;
  uint16_t reserved3;
  uint16_t iomap_base;
};

struct [[gnu::packed]] IdtEntry {
  uint16_t offset_low;
  uint16_t selector;
  uint8_t ist;
  uint8_t type;
  uint16_t offset_mid;
  uint32_t offset_high;
  uint32_t reserved;
};

struct [[gnu::packed]] TablePointer {
  uint16_t limit;
  uint64_t base;
};

alignas(16) uint64_t gdt[5] = {
    0,
    0x00af9a000000ffff,  // 0x08: 64-bit code
    0x00cf92000000ffff,  // 0x10: data
    0,
    0,  // 0x18: TSS (16 bytes)
};
constexpr uint16_t tss_selector = 0x18;

alignas(16) Tss tss;
alignas(16) IdtEntry idt[vector_count];
alignas(16) char ist_stacks[3][ist_stack_size];

void set_tss_descriptor() {
  uint64_t base = reinterpret_cast<uint64_t>(&tss);
  uint64_t limit = sizeof(Tss) - 1;
  constexpr uint64_t available_tss = 0x89;  // present, type 9
  gdt[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (available_tss << 40) |
           (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
  gdt[4] = base >> 32;
}

InterruptStack stack_for(int vector) {
  if (vector == double_fault_vector || vector == nmi_vector) return InterruptStack::double_fault;
  if (vector < exception_vectors) return InterruptStack::exception;
  return InterruptStack::irq;
}

}  // namespace

void init_descriptors() {
  for (int i = 0; i < 3; ++i) {
    tss.ist[i] = reinterpret_cast<uint64_t>(ist_stacks[i] + ist_stack_size);
  }
  tss.iomap_base = sizeof(Tss);
  set_tss_descriptor();

  TablePointer gdtr{sizeof gdt - 1, reinterpret_cast<uint64_t>(gdt)};
  asm volatile(
      "lgdt %0\n"
      "pushq %1\n"
      "leaq 1f(%%rip), %%rax\n"
      "pushq %%rax\n"
      "lretq\n"
      "1:\n"
      "mov %2, %%ds\n"
      "mov %2, %%es\n"
      "mov %2, %%ss\n"
      "ltr %w3\n" ::"m"(gdtr),
      "i"(uint64_t(kernel_code_selector)), "r"(uint32_t(kernel_data_selector)),
      "r"(uint32_t(tss_selector))
      : "rax", "memory");

  for (int v = 0; v < vector_count; ++v) {
    uint64_t handler = reinterpret_cast<uint64_t>(interrupt_stubs + v * stub_spacing);
    idt[v] = IdtEntry{uint16_t(handler),
                      kernel_code_selector,
                      uint8_t(stack_for(v)),
                      interrupt_gate,
                      uint16_t(handler >> 16),
                      uint32_t(handler >> 32),
                      0};
  }
  TablePointer idtr{sizeof idt - 1, reinterpret_cast<uint64_t>(idt)};
  asm volatile("lidt %0" ::"m"(idtr));
}

void init_syscalls() {
  constexpr uint32_t msr_efer = 0xC0000080, msr_star = 0xC0000081, msr_lstar = 0xC0000082,
                     msr_fmask = 0xC0000084;
  constexpr uint64_t efer_sce = 1;
  // Clear DF, TF and AC on entry; IF stays as it was.
  constexpr uint64_t masked_flags = (1 << 10) | (1 << 8) | (1 << 18);
  wrmsr(msr_efer, rdmsr(msr_efer) | efer_sce);
  wrmsr(msr_star, uint64_t(kernel_code_selector) << 32);
  wrmsr(msr_lstar, reinterpret_cast<uint64_t>(&syscall_entry));
  wrmsr(msr_fmask, masked_flags);
}

}  // namespace keel::arch
