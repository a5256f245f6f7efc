// The std::terminate handler: an exception nobody caught is a bug in the
// service, so say which and panic with a backtrace instead of a bare
// abort(). The type is named by the platform (kvm: the image's symbol
// table), so the image links no demangler (decision 0088).
#include <cxxabi.h>

#include <cstdio>
#include <exception>
#include <typeinfo>

#include "kernel.hpp"
#include "platform.hpp"

namespace keel::kernel {

void on_uncaught_exception() {
  static char message[256];
  std::snprintf(message, sizeof message, "std::terminate: uncaught exception");
  if (std::type_info* type = abi::__cxa_current_exception_type()) {
    const char* what = platform::type_name(type->name());
    if (!what) what = type->name();  // mangled; `c++filt -t` reads it
    try {
      std::rethrow_exception(std::current_exception());
    } catch (const std::exception& e) {
      std::snprintf(message, sizeof message, "std::terminate: uncaught %s: %s", what, e.what());
    } catch (...) {
      std::snprintf(message, sizeof message, "std::terminate: uncaught %s", what);
    }
  }
  panic(message);
}

}  // namespace keel::kernel
