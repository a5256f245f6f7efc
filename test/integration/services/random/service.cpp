// Prints what the random generator gives (test_random.py): whether it is
// seeded, getrandom() bytes, GRND_NONBLOCK's answer, std::random_device.
#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <os>
#include <random>

void Service::start() {
  std::printf("seeded: %s\n", os::random_seeded() ? "yes" : "no");
  unsigned char bytes[16];
  ssize_t n = getrandom(bytes, sizeof bytes, 0);
  std::printf("getrandom: %zd ", n);
  for (unsigned char b : bytes) std::printf("%02x", b);
  std::printf("\n");
  errno = 0;
  n = getrandom(bytes, sizeof bytes, GRND_NONBLOCK);
  std::printf("nonblock: %zd errno %d\n", n, errno);
  std::random_device device;
  std::printf("random_device: %08x\n", device());
  os::shutdown(0);
}
