// musl issues `syscall` for what it needs from a kernel. Keel runs in ring 0,
// so SYSCALL is just a jump here: no privilege change and no stack switch.
// The caller may keep data in its red zone across the instruction, so step
// over it before pushing. General registers other than rax, rcx and r11
// survive; unlike Linux, SSE registers are not saved (musl keeps none live
// across a system call).
  .text
  .code64
  .global syscall_entry
// The CFI lets the unwinder (panic backtraces, e.g. after abort()) walk from
// syscall_dispatch on into the caller: its return address arrives in rcx.
syscall_entry:
  .cfi_startproc simple
  .cfi_def_cfa %rsp, 0
  .cfi_register %rip, %rcx
  sub $128, %rsp                  // the caller's red zone
  .cfi_adjust_cfa_offset 128
  push %rcx                       // return address
  .cfi_adjust_cfa_offset 8
  .cfi_rel_offset %rip, 0
  push %r11                       // rflags
  .cfi_adjust_cfa_offset 8
  push %rbp
  .cfi_adjust_cfa_offset 8
  .cfi_rel_offset %rbp, 0
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  push %rdi
  push %rsi
  push %rdx
  push %r10
  push %r8
  push %r9
  push %rax                       // SyscallFrame, lowest first: nr, a6..a1
  mov %rsp, %rdi
  and $-16, %rsp
  call syscall_dispatch           // returns the result in rax
  lea -56(%rbp), %rsp
  add $8, %rsp                    // nr
  pop %r9
  pop %r8
  pop %r10
  pop %rdx
  pop %rsi
  pop %rdi
  pop %rbp
  popfq                           // the saved rflags (r11 is clobbered anyway)
  pop %rcx
  lea 128(%rsp), %rsp             // lea leaves the restored flags alone
  jmp *%rcx
  .cfi_endproc

  .section .note.GNU-stack, "", @progbits
