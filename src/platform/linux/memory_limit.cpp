#include "memory_limit.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace keel::linux_platform {
namespace {

constexpr uint64_t none = UINT64_MAX;

// A limit file's number; "max" (v2) and unreadable files are no limit. v1 says "no limit" with
// a huge page-rounded number, which the min leaves alone.
uint64_t read_limit(const std::string& path) {
  std::ifstream f(path);
  std::string text;
  if (!(f >> text) || text == "max") return none;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  return end != text.c_str() && *end == '\0' ? uint64_t(v) : none;
}

// The min over `dir` (a cgroup path, "/..." or "/") and its ancestors of `file` below `mount`.
// Inside a container's cgroup namespace the path is "/" and the mount is the container's own;
// without one the host's path may not exist in the mount, and its root is what applies.
uint64_t min_up_the_tree(const std::string& mount, std::string dir, const char* file) {
  uint64_t limit = none;
  while (true) {
    limit = std::min(limit, read_limit(mount + dir + (dir.ends_with('/') ? "" : "/") + file));
    if (dir.empty() || dir == "/") break;
    const std::size_t slash = dir.find_last_of('/');
    dir = slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
  }
  return limit;
}

}  // namespace

uint64_t cgroup_memory_limit(std::string_view proc_self_cgroup, std::string_view root) {
  uint64_t limit = none;
  std::istringstream lines{std::string(proc_self_cgroup)};
  std::string line;
  while (std::getline(lines, line)) {
    // "ID:CONTROLLERS:PATH": v2's single hierarchy is "0::PATH"; v1 names its controllers.
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    const std::string base(root);
    if (controllers.empty()) {
      limit = std::min(limit, min_up_the_tree(base, path, "memory.max"));
      limit = std::min(limit, min_up_the_tree(base + "/unified", path, "memory.max"));
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      limit = std::min(limit, min_up_the_tree(base + "/memory", path, "memory.limit_in_bytes"));
    }
  }
  return limit;
}

uint64_t cgroup_memory_limit() {
  std::ifstream f("/proc/self/cgroup");
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  return cgroup_memory_limit(text, "/sys/fs/cgroup");
}

}  // namespace keel::linux_platform
