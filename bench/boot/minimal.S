// The baseline for boot-time measurements: a PVH kernel that only exits
// through isa-debug-exit, so its time is QEMU's own share.
  .section .note.Xen, "a", @note
  .balign 4
  .long 4, 4, 18                  // XEN_ELFNOTE_PHYS32_ENTRY
  .asciz "Xen"
  .balign 4
  .long start
  .text
  .code32
  .global start
start:
  mov $0xf4, %dx
  xor %eax, %eax
  out %eax, %dx
1:hlt
  jmp 1b
  .section .note.GNU-stack, "", @progbits
