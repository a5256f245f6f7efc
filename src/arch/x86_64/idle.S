// The event loop's only halt. interrupts.cpp tells it from any other hlt
// (musl's a_crash()) by the return address arch_idle_resume.
  .text
  .code64
  .global arch_idle, arch_idle_resume
arch_idle:
  sti                             // its one-instruction shadow covers the hlt
  hlt
arch_idle_resume:
  ret

  .section .note.GNU-stack, "", @progbits
