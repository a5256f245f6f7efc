// Names the frames of a Linux-process panic: function, offset and file:line,
// read from the executable's symbol table and DWARF by GCC's libbacktrace
// (libgcc-12-dev ships backtrace.h and libbacktrace.a). The image has a
// table of its own (src/platform/kvm/symbols.cpp); a process has its ELF.
#include <backtrace.h>
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernel/platform.hpp"

namespace keel::platform {
namespace {

constexpr std::size_t max_name = 480;

struct Lookup {
  const char* symbol = nullptr;  // the ELF symbol holding the address
  uintptr_t start = 0;
  const char* file = nullptr;  // the innermost (inlined) frame's source line
  int line = 0;
};

void ignore_error(void*, const char*, int) {}  // no DWARF: the frame shows "?"

backtrace_state* state() {
  // Made at the first panic, not at start: a process that never panics
  // never reads its debug information. Not threaded: the service runs on
  // one thread, as on the VM. libbacktrace allocates with mmap, not malloc.
  static backtrace_state* made =
      backtrace_create_state(nullptr, /*threaded=*/0, ignore_error, nullptr);
  return made;
}

// A file name without the build's leading "../" steps, which say nothing.
const char* trimmed(const char* file) {
  while (std::strncmp(file, "../", 3) == 0) file += 3;
  return file;
}

Lookup look_up(uintptr_t pc) {
  Lookup found;
  backtrace_syminfo(
      state(), pc,
      [](void* data, uintptr_t pc, const char* symbol, uintptr_t start, uintptr_t size) {
        auto* f = static_cast<Lookup*>(data);
        if (symbol != nullptr && pc - start < size) {  // not just the nearest one below
          f->symbol = symbol;
          f->start = start;
        }
      },
      ignore_error, &found);
  if (found.symbol == nullptr) return found;
  backtrace_pcinfo(
      state(), pc,
      [](void* data, uintptr_t, const char* file, int line, const char*) {
        auto* f = static_cast<Lookup*>(data);
        if (f->file == nullptr && file != nullptr) {  // the first call is the innermost
          f->file = file;
          f->line = line;
        }
        return 0;
      },
      ignore_error, &found);
  return found;
}

}  // namespace

Symbol symbolize(uint64_t address) {
  static char name[max_name];
  if (address == 0 || state() == nullptr) return {nullptr, 0};
  // Return addresses follow their call: look up the call's last byte, so a
  // call at the end of a function (to a noreturn one) is not named after
  // the next function, and the line is the call's. The frame a signal
  // interrupted holds the faulting instruction itself, which may be its
  // function's first: when the byte before lies in no function, take the
  // address as it is.
  Lookup found = look_up(uintptr_t(address) - 1);
  if (found.symbol == nullptr) found = look_up(uintptr_t(address));
  if (found.symbol == nullptr) return {nullptr, 0};
  // Demangling allocates; a panic on a broken heap that faults here ends
  // the panic quietly (see kernel/panic.cpp), the frames above printed.
  int status = 0;
  char* demangled = abi::__cxa_demangle(found.symbol, nullptr, nullptr, &status);
  const char* shown = status == 0 && demangled ? demangled : found.symbol;
  if (found.file) {
    std::snprintf(name, sizeof name, "%s at %s:%d", shown, trimmed(found.file), found.line);
  } else {
    std::snprintf(name, sizeof name, "%s", shown);
  }
  std::free(demangled);
  return {name, address - found.start};
}

const char* type_name(const char* mangled) {
  static char name[max_name];
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || !demangled) return nullptr;
  std::snprintf(name, sizeof name, "%s", demangled);
  std::free(demangled);
  return name;
}

}  // namespace keel::platform
