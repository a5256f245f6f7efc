// 256 interrupt stubs, 16 bytes apart (descriptors.cpp computes their
// addresses). Each pushes an error code (a zero where the CPU pushes none)
// and its vector, then the common path saves the general registers and the
// SSE state, since interrupt_dispatch is compiled C++ that may use SSE.
  .text
  .code64

.macro stub vector
  .balign 16
  .if (\vector == 8) || (\vector == 10) || (\vector == 11) || (\vector == 12) || (\vector == 13) || (\vector == 14) || (\vector == 17) || (\vector == 21) || (\vector == 29) || (\vector == 30)
  .else
  pushq $0
  .endif
  pushq $\vector
  jmp interrupt_common
.endm

  .balign 16
  .global interrupt_stubs
interrupt_stubs:
  .set vector, 0
  .rept 256
  stub vector
  .set vector, vector + 1
  .endr

interrupt_common:
  push %rax
  push %rbx
  push %rcx
  push %rdx
  push %rsi
  push %rdi
  push %rbp
  push %r8
  push %r9
  push %r10
  push %r11
  push %r12
  push %r13
  push %r14
  push %r15
  mov %rsp, %rdi                  // CpuState *
  mov %rsp, %rbx
  sub $512, %rsp
  and $-16, %rsp
  fxsave64 (%rsp)
  cld
  call interrupt_dispatch
  fxrstor64 (%rsp)
  mov %rbx, %rsp
  pop %r15
  pop %r14
  pop %r13
  pop %r12
  pop %r11
  pop %r10
  pop %r9
  pop %r8
  pop %rbp
  pop %rdi
  pop %rsi
  pop %rdx
  pop %rcx
  pop %rbx
  pop %rax
  add $16, %rsp                   // vector and error code
  iretq

  .section .note.GNU-stack, "", @progbits
