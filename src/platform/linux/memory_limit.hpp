// The memory a Linux process may use: the machine's, or less where its cgroup says so (a
// container's `podman run --memory`, a Kubernetes pod's limit). The stack sizes its tables by
// os::total_memory() (a TCP connection slot per 4 KiB, up to a million), so sized to a 24 GiB
// host a UDP echo held 86 MB and a 64 MiB container killed it.
#pragma once
#include <cstdint>
#include <string_view>

namespace keel::linux_platform {

// The smallest memory limit of this process's cgroup and its ancestors (cgroup v2's
// memory.max, v1's memory.limit_in_bytes); UINT64_MAX when there is none or none is readable.
uint64_t cgroup_memory_limit();

// For tests: the same from /proc/self/cgroup's text, reading files below `root`.
uint64_t cgroup_memory_limit(std::string_view proc_self_cgroup, std::string_view root);

}  // namespace keel::linux_platform
