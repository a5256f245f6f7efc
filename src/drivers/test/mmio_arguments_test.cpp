#include <gtest/gtest.h>

#include "drivers/virtio/discovery.hpp"

using keel::drivers::virtio::parse_mmio_arguments;

TEST(MmioArguments, QemuMicrovmForm) {
  auto found = parse_mmio_arguments("ip=10.0.0.2/24 virtio_mmio.device=512@0xfeb00e00:12");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].base, 0xfeb00e00u);
  EXPECT_EQ(found[0].size, 512u);
  EXPECT_EQ(found[0].gsi, 12u);
}

TEST(MmioArguments, SuffixesIdsAndSeveral) {
  auto found = parse_mmio_arguments(
      "virtio_mmio.device=4K@0xd0000000:5:3 console=ttyS0 virtio_mmio.device=1M@0xd0001000:6");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].size, 4096u);
  EXPECT_EQ(found[0].gsi, 5u);
  EXPECT_EQ(found[1].size, 1u << 20);
  EXPECT_EQ(found[1].base, 0xd0001000u);
}

TEST(MmioArguments, MalformedAreSkipped) {
  for (const char* bad :
       {"virtio_mmio.device=", "virtio_mmio.device=512", "virtio_mmio.device=512@",
        "virtio_mmio.device=512@0x1000", "virtio_mmio.device=512@0x1000:",
        "virtio_mmio.device=x@0x1000:5", "virtio_mmio.device=0@0x1000:5",
        "virtio_mmio.device=512@0x1000:5x", "virtio_mmio.device=-1@0x1000:5",
        "virtio_mmio.device=512@0x1000:99999999", "virtio_mmio.device=99999999999999999999@0:1",
        "virtio_mmio.device=16G@0xffffffffffffffff:1", "xvirtio_mmio.device=512@0x1000:5"}) {
    EXPECT_TRUE(parse_mmio_arguments(bad).empty()) << bad;
  }
}
