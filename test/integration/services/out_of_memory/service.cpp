// Allocates more than the VM has, without catching: a clear panic is expected.
#include <cstdio>
#include <os>
#include <vector>

void Service::start() {
  std::printf("about to allocate 1 GiB\n");
  std::vector<char> huge(1ull << 30, 'x');
  std::printf("allocated %zu bytes: the allocation should have failed\n", huge.size());
}
