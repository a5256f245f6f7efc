// Thin wrappers over x86-64 instructions the kernel needs.
#pragma once
#include <cstdint>

namespace keel::arch {

inline void outb(uint16_t port, uint8_t v) { asm volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
inline void outw(uint16_t port, uint16_t v) { asm volatile("outw %0, %1" ::"a"(v), "Nd"(port)); }
inline void outl(uint16_t port, uint32_t v) { asm volatile("outl %0, %1" ::"a"(v), "Nd"(port)); }
inline uint8_t inb(uint16_t port) {
  uint8_t v;
  asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
inline uint16_t inw(uint16_t port) {
  uint16_t v;
  asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
inline uint32_t inl(uint16_t port) {
  uint32_t v;
  asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
// One VM exit for up to a page of bytes under KVM, instead of one per byte.
inline void outsb(uint16_t port, const void* data, uint64_t count) {
  asm volatile("rep outsb" : "+S"(data), "+c"(count) : "d"(port) : "memory");
}

inline uint64_t rdmsr(uint32_t msr) {
  uint32_t lo, hi;
  asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
  return (uint64_t(hi) << 32) | lo;
}
inline void wrmsr(uint32_t msr, uint64_t v) {
  asm volatile("wrmsr" ::"c"(msr), "a"(uint32_t(v)), "d"(uint32_t(v >> 32)));
}
inline uint64_t rdtsc() {
  uint32_t lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t(hi) << 32) | lo;
}

struct CpuidResult {
  uint32_t eax, ebx, ecx, edx;
};
inline CpuidResult cpuid(uint32_t leaf, uint32_t subleaf = 0) {
  CpuidResult r;
  asm volatile("cpuid"
               : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
               : "a"(leaf), "c"(subleaf));
  return r;
}

inline uint64_t read_cr2() {
  uint64_t v;
  asm volatile("mov %%cr2, %0" : "=r"(v));
  return v;
}
inline uint64_t read_cr3() {
  uint64_t v;
  asm volatile("mov %%cr3, %0" : "=r"(v));
  return v;
}
inline void write_cr3(uint64_t v) { asm volatile("mov %0, %%cr3" ::"r"(v) : "memory"); }

inline void disable_interrupts() { asm volatile("cli" ::: "memory"); }
inline void enable_interrupts() { asm volatile("sti" ::: "memory"); }
}  // namespace keel::arch

extern "C" void arch_idle();

namespace keel::arch {

// Enables interrupts and halts until one arrives (idle.S). sti's shadow makes
// the pair atomic: an interrupt that is already pending still ends the hlt.
inline void idle() { arch_idle(); }
[[noreturn]] inline void halt_forever() {
  for (;;) asm volatile("cli; hlt");
}
inline void pause() { asm volatile("pause"); }

}  // namespace keel::arch
