// PVH entry (Xen/x86 PVH boot ABI, "HVM direct boot"): the loader enters
// pvh_start in 32-bit protected mode, paging off, %ebx = hvm_start_info.
// We identity-map the first 4 GiB with 2 MiB pages, switch to long mode,
// enable SSE/AVX (compiled C++ may use them from its first instruction)
// and call kernel_entry(start_info, 0). paging.cpp refines the map later.
// Multiboot2 entry (GRUB 2 from a disk, decision 0113): multiboot2_start,
// in the same machine state with %eax = MULTIBOOT2_BOOT_MAGIC and %ebx = the
// boot information; it joins the PVH path and kernel_entry converts.
#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define CR0_PE (1 << 0)
#define CR0_MP (1 << 1)
#define CR0_NE (1 << 5)
#define CR0_EM (1 << 2)
#define CR0_WP (1 << 16)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define CR4_OSFXSR (1 << 9)
#define CR4_OSXMMEXCPT (1 << 10)
#define CR4_OSXSAVE (1 << 18)
#define MSR_EFER 0xC0000080
#define EFER_LME (1 << 8)
#define EFER_NXE (1 << 11)
#define PTE_PRESENT_RW 0x3
#define CPUID1_ECX_XSAVE 26
#define CPUID1_ECX_AVX 28
#define XCR0_X87_SSE 0x3
#define XCR0_AVX 0x4
#define PTE_LARGE 0x80
#define BOOT_STACK_SIZE (256 * 1024)
// hvm_start_info (xen/include/public/arch-x86/hvm/start_info.h), version 1.
#define START_INFO_VERSION 4
#define START_INFO_MEMMAP 0x28
#define START_INFO_MEMMAP_ENTRIES 0x30
#define MEMMAP_ENTRY_SIZE 24
#define MEMMAP_TYPE_RAM 1
#define COM1 0x3f8
#define DEBUG_EXIT_PORT 0xf4
#define PANIC_EXIT_CODE 70
#define BOOT_STACK_GUARD_SIZE (64 * 1024)
// Multiboot2 specification 2.0, 3.1 (header) and 3.3 (machine state).
#define MULTIBOOT2_HEADER_MAGIC 0xe85250d6
#define MULTIBOOT2_ARCH_I386 0        // entered in 32-bit protected mode
#define MULTIBOOT2_TAG_END 0
#define MULTIBOOT2_TAG_ENTRY_ADDRESS 3
#define MULTIBOOT2_BOOT_MAGIC 0x36d76289
#define MULTIBOOT2_HEADER_LENGTH (multiboot2_header_end - multiboot2_header)

  .section .note.Xen, "a", @note
  .balign 4
  .long 4, 4, XEN_ELFNOTE_PHYS32_ENTRY
  .asciz "Xen"
  .balign 4
  .long pvh_start

  // In the image's first 32 KiB (linker.ld puts it first), 8-byte aligned.
  // The entry address tag: the ELF entry is pvh_start, which wants PVH.
  .section .multiboot2, "a", @progbits
  .balign 8
multiboot2_header:
  .long MULTIBOOT2_HEADER_MAGIC, MULTIBOOT2_ARCH_I386, MULTIBOOT2_HEADER_LENGTH
  .long 0x100000000 - (MULTIBOOT2_HEADER_MAGIC + MULTIBOOT2_ARCH_I386 + MULTIBOOT2_HEADER_LENGTH)
  .short MULTIBOOT2_TAG_ENTRY_ADDRESS, 0
  .long 12
  .long multiboot2_start
  .balign 8
  .short MULTIBOOT2_TAG_END, 0
  .long 8
multiboot2_header_end:

  .section .boot.text, "ax", @progbits
  .code32
  .global pvh_start
pvh_start:
  cli
  cld
  mov %ebx, %esi                  // keep start_info across the setup
  xor %ebp, %ebp                  // boot magic for kernel_entry: 0 is PVH

  // Before writing anything (.bss, page tables, the stack): the image must
  // lie in RAM, or those writes go nowhere and the VM dies without a word.
  cmpl $1, START_INFO_VERSION(%esi)
  jb boot_common                  // no memory map in version 0: trust it
  mov START_INFO_MEMMAP(%esi), %edi
  mov START_INFO_MEMMAP_ENTRIES(%esi), %ecx
6:test %ecx, %ecx
  jz no_room
  cmpl $MEMMAP_TYPE_RAM, 16(%edi)
  jne 8f
  cmpl $0, 4(%edi)                // RAM starting at or above 4 GiB: not ours
  jne 8f
  mov (%edi), %eax
  cmp $__image_start, %eax
  ja 8f
  cmpl $0, 12(%edi)               // 4 GiB or more of RAM: it fits
  jne boot_common
  add 8(%edi), %eax               // end of this RAM range
  jc boot_common
  cmp $__keel_min_ram, %eax       // the image and what it needs to start
  jae boot_common
8:add $MEMMAP_ENTRY_SIZE, %edi
  dec %ecx
  jmp 6b
boot_common:                      // both protocols: the image is in RAM
  // Zero .bss: loaders differ in whether they do.
  mov $__bss_start, %edi
  mov $__bss_end, %ecx
  sub %edi, %ecx
  shr $2, %ecx
  xor %eax, %eax
  rep stosl

  // PML4[0] -> PDPT; PDPT[0..3] -> four PDs of 512 x 2 MiB pages.
  mov $boot_pdpt, %eax
  or $PTE_PRESENT_RW, %eax
  mov %eax, boot_pml4
  mov $boot_pd, %eax
  or $PTE_PRESENT_RW, %eax
  mov $boot_pdpt, %edi
  mov $4, %ecx
1:mov %eax, (%edi)
  add $4096, %eax
  add $8, %edi
  loop 1b
  mov $boot_pd, %edi
  mov $(PTE_PRESENT_RW | PTE_LARGE), %eax
  xor %edx, %edx                  // high half of the physical address
  mov $2048, %ecx
2:mov %eax, (%edi)
  mov %edx, 4(%edi)
  add $0x200000, %eax
  adc $0, %edx
  add $8, %edi
  loop 2b

  mov $boot_pml4, %eax
  mov %eax, %cr3
  mov %cr4, %eax
  or $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
  mov %eax, %cr4
  mov $MSR_EFER, %ecx
  rdmsr
  or $(EFER_LME | EFER_NXE), %eax
  wrmsr
  mov %cr0, %eax
  and $~CR0_EM, %eax
  or $(CR0_PE | CR0_MP | CR0_NE | CR0_WP | CR0_PG), %eax
  mov %eax, %cr0
  lgdt boot_gdt_descriptor
  ljmp $0x08, $long_mode

  .code64
long_mode:
  mov $0x10, %eax
  mov %eax, %ds
  mov %eax, %es
  mov %eax, %ss
  xor %eax, %eax
  mov %eax, %fs
  mov %eax, %gs
  mov $boot_stack_top, %rsp
  mov %ebp, %r9d                  // the boot magic, past cpuid below
  xor %ebp, %ebp                  // ends frame-pointer backtraces

  // AVX: enable XSAVE and the x87/SSE/AVX state components if present.
  mov $1, %eax
  cpuid
  bt $CPUID1_ECX_XSAVE, %ecx
  jnc 3f
  mov %cr4, %rax
  or $CR4_OSXSAVE, %rax
  mov %rax, %cr4
  mov %ecx, %r8d
  xor %ecx, %ecx
  xor %edx, %edx
  mov $XCR0_X87_SSE, %eax
  bt $CPUID1_ECX_AVX, %r8d
  jnc 4f
  or $XCR0_AVX, %eax
4:xsetbv
3:
  mov %esi, %edi                  // hvm_start_info * or Multiboot2 information
  mov %r9d, %esi                  // 0 or MULTIBOOT2_BOOT_MAGIC
  call kernel_entry
5:cli                             // kernel_entry never returns; stop for good
  hlt
  jmp 5b

// Writes a NUL-terminated string to the serial port (no stack yet: no call).
.macro serial_print message
  mov $\message, %esi
  mov $COM1, %dx
.Lprint\@:
  lodsb
  test %al, %al
  jz .Lprinted\@
  outb %al, %dx
  jmp .Lprint\@
.Lprinted\@:
.endm

// Says so on the serial port, naming the least memory the image starts in
// (linker.ld: __keel_min_ram_mib, at most four digits), and ends the VM
// with the panic status. Registers only: there is no stack yet.
no_room:
  serial_print no_room_message
  mov $__keel_min_ram_mib, %ebx   // what is left to print
  mov $1000, %ecx                 // the decimal place being printed
  xor %edi, %edi                  // nonzero once a digit was printed
1:mov %ebx, %eax
  xor %edx, %edx
  div %ecx                        // %eax: this place's digit; %edx: the rest
  mov %edx, %ebx
  or %eax, %edi
  jnz 2f                          // no leading zeros,
  cmp $1, %ecx                    // but the units always
  jne 3f
2:add $'0', %al
  mov $COM1, %dx
  outb %al, %dx
3:mov %ecx, %eax
  xor %edx, %edx
  mov $10, %ecx
  div %ecx
  mov %eax, %ecx
  test %ecx, %ecx
  jnz 1b
  serial_print no_room_unit
  mov $(PANIC_EXIT_CODE + 1), %eax  // as platform::exit writes it
  mov $DEBUG_EXIT_PORT, %dx
  outl %eax, %dx
4:cli
  hlt
  jmp 4b

// Multiboot2 entry. GRUB has loaded every segment into RAM (it refuses an
// image that does not fit), so the memory map check of pvh_start is skipped;
// a VM with RAM for the image but not for its heap panics out of memory.
  .global multiboot2_start
multiboot2_start:
  cli
  cld
  cmp $MULTIBOOT2_BOOT_MAGIC, %eax
  jne 1f
  mov %ebx, %esi                  // the boot information
  mov %eax, %ebp                  // the magic: kernel_entry converts
  jmp boot_common
1:serial_print not_multiboot2_message
  mov $(PANIC_EXIT_CODE + 1), %eax
  mov $DEBUG_EXIT_PORT, %dx
  outl %eax, %dx
2:cli
  hlt
  jmp 2b

  .section .boot.data, "a", @progbits
not_multiboot2_message:
  .asciz "Keel: entered at multiboot2_start without the Multiboot2 magic\n"
no_room_message:
  .asciz "Keel: too little RAM for this image: give the VM at least "
no_room_unit:
  .asciz " MiB\n"
  .balign 16
boot_gdt:
  .quad 0
  .quad 0x00af9a000000ffff        // 0x08: 64-bit code, DPL 0
  .quad 0x00cf92000000ffff        // 0x10: data, DPL 0
boot_gdt_end:
boot_gdt_descriptor:
  .word boot_gdt_end - boot_gdt - 1
  .long boot_gdt

  .section .bss
  .balign 4096
  // Unmapped by paging.cpp. Services are built with stack-clash protection
  // (a probe every page), so even a frame larger than the guard hits it.
  .global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard: .skip BOOT_STACK_GUARD_SIZE
boot_stack_bottom: .skip BOOT_STACK_SIZE
boot_stack_top:
  // The page tables sit above the stack, never where an overflow goes.
  .global boot_pml4, boot_pdpt, boot_pd
boot_pml4: .skip 4096
boot_pdpt: .skip 4096
boot_pd:   .skip 4 * 4096

  .section .note.GNU-stack, "", @progbits
