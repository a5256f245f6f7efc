// musl issues `syscall` for what it needs from a kernel. Keel runs in ring 0,
// so SYSCALL is just a jump here: no privilege change and no stack switch.
// The caller may keep data in its red zone across the instruction, so step
// over it before pushing. Registers other than rax, rcx and r11 survive.
  .text
  .code64
  .global syscall_entry
syscall_entry:
  sub $128, %rsp                  // the caller's red zone
  push %rcx                       // return address
  push %r11                       // rflags
  push %rbp
  mov %rsp, %rbp
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

  .section .note.GNU-stack, "", @progbits
