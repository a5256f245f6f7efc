#include "platform/kvm/multiboot2.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace mb2 = keel::multiboot2;
using keel::pvh::MemmapEntry;
using keel::pvh::MemoryType;

namespace {

// Builds a boot information block as the Multiboot2 specification (3.6) lays it out:
// total_size, reserved, then 8-byte aligned tags ending with an end tag.
class BootInfo {
 public:
  BootInfo() { bytes_.resize(8); }
  BootInfo& cmdline(const std::string& text) {
    std::vector<uint8_t> body(text.begin(), text.end());
    body.push_back(0);
    return tag(1, body);
  }
  BootInfo& memory_map(const std::vector<MemmapEntry>& entries, uint32_t entry_size = 24) {
    std::vector<uint8_t> body(8 + entries.size() * entry_size, 0);
    std::memcpy(body.data(), &entry_size, 4);  // entry_version stays 0
    for (std::size_t i = 0; i < entries.size(); ++i)
      std::memcpy(
          body.data() + 8 + i * entry_size, &entries[i],
          std::min<std::size_t>(entry_size, sizeof(MemmapEntry)));  // a short entry: its head
    return tag(6, body);
  }
  BootInfo& tag(uint32_t type, const std::vector<uint8_t>& body) {
    uint32_t size = uint32_t(8 + body.size());
    append(&type, 4);
    append(&size, 4);
    bytes_.insert(bytes_.end(), body.begin(), body.end());
    while (bytes_.size() % 8) bytes_.push_back(0);
    return *this;
  }
  const uint8_t* finish() {
    tag(0, {});
    uint32_t total = uint32_t(bytes_.size());
    std::memcpy(bytes_.data(), &total, 4);
    return bytes_.data();
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  void append(const void* p, std::size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::vector<uint8_t> bytes_;
};

const std::vector<MemmapEntry> qemu_map = {
    {0, 0x9fc00, MemoryType::ram, 0},
    {0x9fc00, 0x400, MemoryType::reserved, 0},
    {0x100000, 0x3ee0000, MemoryType::ram, 0},
    {0xfffc0000, 0x40000, MemoryType::reserved, 0},
};

}  // namespace

TEST(Multiboot2, GivesTheCommandLineAndACopyOfTheRam) {
  BootInfo info;
  const uint8_t* bytes = info.tag(5, {0, 0, 0, 0})
                             .cmdline("ip=10.0.0.2/24 'a b'")
                             .memory_map(qemu_map)
                             .finish();  // tag 5 (BIOS boot device): skipped
  mb2::Converted out;
  ASSERT_EQ(mb2::convert(bytes, out), mb2::Status::ok);
  EXPECT_EQ(out.info.magic, keel::pvh::start_info_magic);
  EXPECT_GE(out.info.version, 1u);
  EXPECT_STREQ(reinterpret_cast<const char*>(out.info.cmdline_paddr), "ip=10.0.0.2/24 'a b'");
  EXPECT_EQ(out.info.memmap_paddr, reinterpret_cast<uint64_t>(out.memmap));  // a copy
  ASSERT_EQ(out.info.memmap_entries, 2u);                                    // the RAM ranges only
  EXPECT_EQ(out.memmap[0].addr, 0u);
  EXPECT_EQ(out.memmap[0].size, 0x9fc00u);
  EXPECT_EQ(out.memmap[1].addr, 0x100000u);
  EXPECT_EQ(out.memmap[1].size, 0x3ee0000u);
  EXPECT_EQ(out.memmap[1].type, MemoryType::ram);
}

TEST(Multiboot2, MergesAdjacentRamAsUefiSplitsIt) {
  // OVMF's map after boot services: RAM cut by what the firmware used it for.
  std::vector<MemmapEntry> uefi = {
      {0x100000, 0x700000, MemoryType::ram, 0}, {0x800000, 0x8000, MemoryType::ram, 0},
      {0x808000, 0x8000, MemoryType::acpi, 0},  {0x810000, 0xf0000, MemoryType::ram, 0},
      {0x900000, 0x100000, MemoryType::ram, 0}, {0xa00000, 0, MemoryType::ram, 0},
      {0xa00000, 0x100000, MemoryType::nvs, 0},
  };
  BootInfo info;
  mb2::Converted out;
  ASSERT_EQ(mb2::convert(info.memory_map(uefi).finish(), out), mb2::Status::ok);
  ASSERT_EQ(out.info.memmap_entries, 2u);
  EXPECT_EQ(out.memmap[0].addr, 0x100000u);
  EXPECT_EQ(out.memmap[0].size, 0x708000u);
  EXPECT_EQ(out.memmap[1].addr, 0x810000u);
  EXPECT_EQ(out.memmap[1].size, 0x1f0000u);
}

TEST(Multiboot2, StepsOverLargerMapEntries) {
  BootInfo info;
  mb2::Converted out;
  ASSERT_EQ(mb2::convert(info.memory_map(qemu_map, 32).finish(), out), mb2::Status::ok);
  ASSERT_EQ(out.info.memmap_entries, 2u);
  EXPECT_EQ(out.memmap[1].addr, 0x100000u);
  EXPECT_EQ(out.info.cmdline_paddr, 0u);  // none given
}

TEST(Multiboot2, KeepsTheFirstRangesOfAHugeMap) {
  std::vector<MemmapEntry> many;
  for (uint64_t i = 0; i < mb2::max_memmap_entries + 10; ++i)
    many.push_back({0x100000 + i * 0x200000, 0x100000, MemoryType::ram, 0});  // gaps between
  BootInfo info;
  mb2::Converted out;
  ASSERT_EQ(mb2::convert(info.memory_map(many).finish(), out), mb2::Status::ok);
  ASSERT_EQ(out.info.memmap_entries, mb2::max_memmap_entries);
  EXPECT_EQ(out.memmap[mb2::max_memmap_entries - 1].addr, many[mb2::max_memmap_entries - 1].addr);
}

TEST(Multiboot2, RefusesMalformedInformation) {
  mb2::Converted out;
  {  // no memory map
    BootInfo info;
    EXPECT_EQ(mb2::convert(info.cmdline("x").finish(), out), mb2::Status::no_memory_map);
  }
  {  // a tag running past the end
    BootInfo info;
    info.memory_map(qemu_map).finish();
    uint32_t huge = 4096;
    std::memcpy(info.bytes().data() + 12, &huge, 4);
    EXPECT_EQ(mb2::convert(info.bytes().data(), out), mb2::Status::bad_tag);
  }
  {  // a command line without its NUL
    BootInfo info;
    info.tag(1, {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}).memory_map(qemu_map).finish();
    EXPECT_EQ(mb2::convert(info.bytes().data(), out), mb2::Status::bad_tag);
  }
  {  // entries smaller than the specification's
    BootInfo info;
    EXPECT_EQ(mb2::convert(info.memory_map(qemu_map, 16).finish(), out), mb2::Status::bad_tag);
  }
  {  // a tag smaller than its own header
    BootInfo info;
    info.memory_map(qemu_map).finish();
    uint32_t tiny = 4;
    std::memcpy(info.bytes().data() + 12, &tiny, 4);
    EXPECT_EQ(mb2::convert(info.bytes().data(), out), mb2::Status::bad_tag);
  }
  {  // shorter than its header and an end tag
    uint32_t words[2] = {8, 0};
    EXPECT_EQ(mb2::convert(reinterpret_cast<const uint8_t*>(words), out), mb2::Status::too_short);
  }
}
