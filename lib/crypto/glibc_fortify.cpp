// Debian builds libmbedcrypto.a against glibc with _FORTIFY_SOURCE=2, so its self-tests (never
// run by Keel) call glibc's checked printf, which musl does not have. In an image this one
// symbol is all the archive needs beyond musl (docs/decisions/0052); the Linux-process build
// gets glibc's own.
#if KEEL_PLATFORM_KVM
#include <cstdarg>
#include <cstdio>

extern "C" int __printf_chk(int /*flag: %n checks; musl's printf has its own limits*/,
                            const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n = std::vprintf(format, args);
  va_end(args);
  return n;
}
#endif
