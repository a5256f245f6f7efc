// From the PVH entry to Service::start(): arch set-up, memory, clocks, then
// musl's own start-up (TLS, stdio, global constructors) runs the service.
#include <cstring>

#include "arch/x86_64/apic.hpp"
#include "arch/x86_64/clock.hpp"
#include "arch/x86_64/cpu.hpp"
#include "arch/x86_64/descriptors.hpp"
#include "arch/x86_64/paging.hpp"
#include "entropy.hpp"
#include "kernel/kernel.hpp"
#include "kernel/platform.hpp"
#include "memory.hpp"
#include "multiboot2.hpp"
#include "pvh.hpp"
#include "serial.hpp"

extern "C" int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv,
                                 void (*init)(), void (*fini)(), void (*ldso)());
extern "C" char __ehdr_start[];

namespace {

constexpr std::size_t max_cmdline = 4096;
char cmdline[max_cmdline];

// ELF auxiliary vector keys musl reads at start-up.
constexpr uint64_t at_null = 0, at_phdr = 3, at_phent = 4, at_phnum = 5, at_pagesz = 6,
                   at_random = 25;

struct ElfHeader {
  unsigned char ident[16];
  uint16_t type, machine;
  uint32_t version;
  uint64_t entry, phoff, shoff;
  uint32_t flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

[[noreturn]] void early_panic(const char* why) {
  keel::kvm::serial::write_all(why, std::strlen(why));
  keel::platform::exit(keel::kernel::panic_exit_code);
}

void copy_cmdline(const keel::pvh::StartInfo& info) {
  if (info.cmdline_paddr == 0) return;
  const char* source = reinterpret_cast<const char*>(info.cmdline_paddr);
  std::size_t n = strnlen(source, max_cmdline - 1);
  std::memcpy(cmdline, source, n);
  cmdline[n] = '\0';
}

int keel_main(int, char**, char**) { return keel::kernel::run_service(cmdline); }

// The start info of a Multiboot2 boot (GRUB from a disk, decision 0113), built
// from the loader's boot information. In .bss: no heap yet.
keel::multiboot2::Converted multiboot2_converted;

// The PVH start info, from the loader's or converted from Multiboot2's.
const keel::pvh::StartInfo& start_info(uint32_t boot_info, uint32_t boot_magic) {
  using namespace keel;
  if (boot_magic == multiboot2::boot_magic) {
    auto status = multiboot2::convert(reinterpret_cast<const uint8_t*>(uint64_t(boot_info)),
                                      multiboot2_converted);
    if (status == multiboot2::Status::no_memory_map)
      early_panic("Keel: no RAM in the Multiboot2 loader's memory map\n");
    if (status != multiboot2::Status::ok)
      early_panic("Keel: malformed Multiboot2 boot information\n");
    return multiboot2_converted.info;
  }
  auto& info = *reinterpret_cast<const pvh::StartInfo*>(uint64_t(boot_info));
  if (info.magic != pvh::start_info_magic) early_panic("Keel: not booted through PVH\n");
  return info;
}

}  // namespace

// boot.S: `boot_info` is %ebx at the entry, the PVH start info or the Multiboot2
// boot information; `boot_magic` is multiboot2::boot_magic for the latter, else 0.
extern "C" [[noreturn]] void kernel_entry(uint32_t boot_info, uint32_t boot_magic) {
  using namespace keel;
  kvm::serial::init();
  // Read the start info while page 0 is still mapped: loaders put it low.
  auto& info = start_info(boot_info, boot_magic);
  copy_cmdline(info);
  if (!kvm::init_memory(info)) early_panic("Keel: no usable memory in the boot memory map\n");
  arch::init_descriptors();  // first, so a fault from here on panics with a message
  arch::paging::init(kvm::ram_end_below_4g());
  arch::init_syscalls();
  arch::clock::init();
  arch::apic::init();
  arch::enable_interrupts();
  kvm::entropy::seed_early(cmdline);

  // argv, envp and auxv as a Linux kernel would lay them out for musl.
  auto& elf = *reinterpret_cast<const ElfHeader*>(__ehdr_start);
  // Locals: kernel_entry's frame lives on, since __libc_start_main never returns.
  char program_name[] = "service";
  // AT_RANDOM: musl's stack canary and malloc's secret.
  uint64_t random_bytes[2];
  kvm::entropy::fill_early(random_bytes, sizeof random_bytes);
  uint64_t start_block[] = {
      1,  // argc
      reinterpret_cast<uint64_t>(program_name),
      0,  // argv
      0,  // envp
      at_phdr,
      reinterpret_cast<uint64_t>(__ehdr_start) + elf.phoff,
      at_phent,
      elf.phentsize,
      at_phnum,
      elf.phnum,
      at_pagesz,
      4096,
      at_random,
      reinterpret_cast<uint64_t>(random_bytes),
      at_null,
      0,
  };
  __libc_start_main(keel_main, 1, reinterpret_cast<char**>(&start_block[1]), nullptr, nullptr,
                    nullptr);
  early_panic("Keel: __libc_start_main returned\n");
}
