// Prints 1.2 MB at once, far more than the 64 KiB console buffer: nothing
// may be lost, and the service still shuts down.
#include <cstdio>
#include <os>

void Service::start() {
  constexpr int lines = 20000;
  for (int i = 0; i < lines; ++i) {
    std::printf("line %05d of the console flood test, 60 bytes long.....\n", i);
  }
  std::printf("flood done\n");
  os::shutdown(0);
}
