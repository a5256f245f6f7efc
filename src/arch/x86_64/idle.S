// The event loop's halt. The kernel's only other hlts follow a cli (stop for
// good); tools/keel-symbols refuses an image with any other hlt, and the C
// library's crash hlts are int3 traps (tools/keel-crash-traps).
  .text
  .code64
  .global arch_idle
arch_idle:
  sti                             // its one-instruction shadow covers the hlt
  hlt
  ret

  .section .note.GNU-stack, "", @progbits
