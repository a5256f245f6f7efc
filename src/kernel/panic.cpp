// Panic: say why, show the registers and a symbolized backtrace, end the VM
// with a non-zero status. Uses neither the heap nor libc: either may be what
// broke.
#include <string_view>
#include <unwind.h>

#include "console.hpp"
#include "format.hpp"
#include "kernel.hpp"
#include "platform.hpp"

namespace keel::kernel {
namespace {

constexpr int max_frames = 32;
bool panicking = false;

void emit(std::string_view s) { console::write(s.data(), s.size()); }

void print_frame(int index, uint64_t address) {
  char line[256];
  FixedWriter w(line, sizeof line - 1);
  w.text("  #").udec(index).text(" ").hex(address).text(" ");
  platform::Symbol symbol = platform::symbolize(address);
  if (symbol.name) {
    w.text(symbol.name).text(" + ").hex(symbol.offset, 1);
  } else {
    w.text("?");
  }
  w.text("\n");
  emit(w.view());
}

// Walks saved frame pointers (every Keel object is built with them). Each
// frame is [saved rbp][return address]; stop on anything implausible.
void print_backtrace(uint64_t rbp, int first) {
  for (int i = first; i < max_frames && rbp != 0; ++i) {
    if (rbp % 8 != 0 || rbp < 0x1000 || rbp > (1ull << 47)) break;
    auto* frame = reinterpret_cast<const uint64_t*>(rbp);
    uint64_t next = frame[0], ret = frame[1];
    if (ret == 0) break;
    print_frame(i, ret);
    if (next <= rbp) break;  // stacks grow down, so callers sit higher
    rbp = next;
  }
}

// Outside an interrupt, unwind by the .eh_frame tables instead: they also
// cover the C and C++ runtime, which has no frame pointers (a throw that
// ends in std::terminate passes through it).
void print_unwound_backtrace() {
  struct Walk {
    int index = 0;
  } walk;
  _Unwind_Backtrace(
      [](_Unwind_Context* context, void* arg) -> _Unwind_Reason_Code {
        auto* w = static_cast<Walk*>(arg);
        uint64_t ip = _Unwind_GetIP(context);
        if (ip == 0 || w->index >= max_frames) return _URC_END_OF_STACK;
        print_frame(w->index++, ip);
        return _URC_NO_REASON;
      },
      &walk);
}

}  // namespace

void panic(std::string_view why, const CpuState* state) {
  if (panicking) {
    // A fault while panicking: report nothing more, just end.
    console::flush();
    platform::exit(panic_exit_code);
  }
  panicking = true;
  emit("\n*** Keel panic: ");
  emit(why);
  emit("\n");
  if (state) {
    print_registers(*state);
    emit("Backtrace:\n");
    print_frame(0, instruction_pointer_of(*state));
    print_backtrace(frame_pointer_of(*state), 1);
  } else {
    emit("Backtrace:\n");
    print_unwound_backtrace();
  }
  emit("*** Keel halted\n");
  console::flush();
  platform::exit(panic_exit_code);
}

}  // namespace keel::kernel
