// The Multiboot2 boot information reader (src/platform/kvm/multiboot2.cpp) on
// arbitrary bytes. The loader's total_size is trusted to say how much there
// is, so the harness writes the input's own size there; everything else is
// the fuzzer's. What it checks: no read outside the block (ASan), the copied
// map within its bound, and a command line that ends inside the block.
#include <cstdint>
#include <cstring>
#include <vector>

#include "platform/kvm/multiboot2.hpp"

namespace mb2 = keel::multiboot2;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 8 || size > UINT32_MAX) return 0;
  std::vector<uint8_t> block(data, data + size);
  uint32_t total = uint32_t(size);
  std::memcpy(block.data(), &total, sizeof total);
  static mb2::Converted out;
  if (mb2::convert(block.data(), out) != mb2::Status::ok) return 0;
  if (out.info.memmap_entries == 0 || out.info.memmap_entries > mb2::max_memmap_entries)
    __builtin_trap();
  if (out.info.cmdline_paddr != 0) {
    auto* start = reinterpret_cast<const uint8_t*>(out.info.cmdline_paddr);
    if (start < block.data() || start >= block.data() + size) __builtin_trap();
    if (std::memchr(start, 0, block.data() + size - start) == nullptr) __builtin_trap();
  }
  return 0;
}
