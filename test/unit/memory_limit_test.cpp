// The Linux process's cgroup memory limit (src/platform/linux/memory_limit.hpp) on cgroup trees
// written by the test: v2, v1, hybrid, limits on ancestors, "max", a host path absent from a
// container's mount, and nothing readable.
#include "platform/linux/memory_limit.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using keel::linux_platform::cgroup_memory_limit;

namespace {

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("keel-cgroup-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& file, const std::string& text) {
    fs::create_directories((root_ / file).parent_path());
    std::ofstream(root_ / file) << text << "\n";
  }
  uint64_t limit(const std::string& proc_self_cgroup) {
    return cgroup_memory_limit(proc_self_cgroup, root_.string());
  }
  fs::path root_;
};

TEST_F(CgroupTree, V2LimitOfTheProcessGroup) {
  write("pod/app/memory.max", "67108864");
  EXPECT_EQ(limit("0::/pod/app\n"), 64u << 20);
}

TEST_F(CgroupTree, V2MaxIsNoLimitAndAnAncestorsLimitApplies) {
  write("pod/app/memory.max", "max");
  write("pod/memory.max", "33554432");
  EXPECT_EQ(limit("0::/pod/app\n"), 32u << 20);
}

TEST_F(CgroupTree, V1MemoryControllerAmongOthers) {
  write("memory/lxc/one/memory.limit_in_bytes", "50331648");
  write("memory/memory.limit_in_bytes", "9223372036854771712");  // v1's "no limit"
  EXPECT_EQ(limit("5:devices:/lxc/one\n4:cpuacct,memory:/lxc/one\n0::/\n"), 48u << 20);
}

TEST_F(CgroupTree, HybridV2UnderUnified) {
  write("unified/svc/memory.max", "16777216");
  EXPECT_EQ(limit("4:memory:/\n0::/svc\n"), 16u << 20);
}

TEST_F(CgroupTree, AHostPathMissingFromAContainersMountFallsBackToItsRoot) {
  write("memory.max", "25165824");  // the container's own cgroup, mounted at the root
  EXPECT_EQ(limit("0::/machine.slice/libpod-abc.scope\n"), 24u << 20);
}

TEST_F(CgroupTree, NothingReadableIsNoLimit) {
  EXPECT_EQ(limit("0::/gone\n"), UINT64_MAX);
  EXPECT_EQ(limit(""), UINT64_MAX);
  EXPECT_EQ(limit("garbage\n:\n"), UINT64_MAX);
  write("memory.max", "lots");
  EXPECT_EQ(limit("0::/\n"), UINT64_MAX);
}

}  // namespace
