// Panic: say why, show the registers and a symbolized backtrace, end the VM
// with a non-zero status. Uses neither the heap nor libc: either may be what
// broke.
#include <unwind.h>

#include <string_view>

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
int print_backtrace(uint64_t rbp, int first) {
  int i = first;
  for (; i < max_frames && rbp % 8 == 0 && platform::stack_contains(rbp); ++i) {
    auto* frame = reinterpret_cast<const uint64_t*>(rbp);
    uint64_t next = frame[0], ret = frame[1];
    if (!platform::code_contains(ret)) break;  // a smashed frame: no guessing from it
    print_frame(i, ret);
    if (next <= rbp) break;  // stacks grow down, so callers sit higher
    rbp = next;
  }
  return i;
}

// Whether `address` follows a call instruction in the image's text: a
// direct call (e8 rel32) or an indirect one through a register or memory
// (ff /2, 2 to 7 bytes long).
bool is_return_address(uint64_t address) {
  constexpr uint64_t longest_call = 7;
  if (!platform::code_contains(address - longest_call) || !platform::code_contains(address)) {
    return false;
  }
  auto* code = reinterpret_cast<const uint8_t*>(address);
  if (code[-5] == 0xe8) return true;
  for (int length = 2; length <= 7; ++length) {
    if (code[-length] == 0xff && ((code[-length + 1] >> 3) & 7) == 2) return true;
  }
  return false;
}

void print_likely_callers(uint64_t stack) {
  constexpr int max_scanned_words = 1024;
  constexpr int max_guesses = 12;
  if (stack == 0 || stack % 8 != 0) return;
  auto* word = reinterpret_cast<const uint64_t*>(stack);
  int guesses = 0;
  for (int i = 0; i < max_scanned_words && guesses < max_guesses; ++i) {
    if (!platform::stack_contains(reinterpret_cast<uint64_t>(word + i))) break;
    if (!is_return_address(word[i])) continue;
    if (guesses++ == 0) emit("Likely callers (found on the stack):\n");
    char line[256];
    FixedWriter w(line, sizeof line - 1);
    w.text("  ? ").hex(word[i]).text(" ");
    platform::Symbol symbol = platform::symbolize(word[i]);
    w.text(symbol.name ? symbol.name : "?").text("\n");
    emit(w.view());
  }
}

// Whether the function holding `address` begins by setting up a frame
// pointer (push %rbp; mov %rsp,%rbp, after an endbr64 if any), as Keel's
// code does: then its rbp leads to its caller's frame. musl's functions
// (built without frame pointers) do not, and their rbp is someone else's.
bool sets_up_frame_pointer(uint64_t address) {
  constexpr uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  constexpr uint8_t prologue[] = {0x55, 0x48, 0x89, 0xe5};
  platform::Symbol symbol = platform::symbolize(address);
  if (!symbol.name || symbol.offset > address) return false;
  uint64_t start = address - symbol.offset;
  auto begins_with = [](uint64_t at, const uint8_t(&bytes)[4]) {
    if (!platform::code_contains(at) || !platform::code_contains(at + sizeof bytes - 1))
      return false;
    auto* code = reinterpret_cast<const uint8_t*>(at);
    for (std::size_t i = 0; i < sizeof bytes; ++i) {
      if (code[i] != bytes[i]) return false;
    }
    return true;
  };
  if (begins_with(start, endbr64)) start += sizeof endbr64;
  return begins_with(start, prologue);
}

// Outside an interrupt, unwind by the .eh_frame tables instead: they cover
// the C++ runtime, which has no frame pointers (a throw that ends in
// std::terminate passes through it). Where the tables end, the walk goes on:
// - through code built without them (lib/dns and examples/dns in images,
//   decision 0150), by its frame pointers, from the last frame's rbp;
// - through musl, which has neither tables nor frame pointers (inside
//   abort(), say), by scanning the stack for return addresses: likely
//   callers, marked "?".
void print_unwound_backtrace() {
  constexpr int rbp_register = 6;  // DWARF's number for rbp on x86-64 (psABI, figure 3.36)
  constexpr int few_frames = 4;
  struct Walk {
    int index = 0;
    uint64_t last_cfa = 0;
    uint64_t last_ip = 0;
    uint64_t last_rbp = 0;
  } walk;
  _Unwind_Backtrace(
      [](_Unwind_Context* context, void* arg) -> _Unwind_Reason_Code {
        auto* w = static_cast<Walk*>(arg);
        uint64_t ip = _Unwind_GetIP(context);
        if (ip == 0 || w->index >= max_frames) return _URC_END_OF_STACK;
        print_frame(w->index++, ip);
        w->last_ip = ip;
        w->last_cfa = _Unwind_GetCFA(context);
        w->last_rbp = _Unwind_GetGR(context, rbp_register);
        return _URC_NO_REASON;
      },
      &walk);
  // The last frame printed is the first the tables do not describe (or the
  // outermost one): its rbp leads on if its function keeps a frame pointer.
  int frames = walk.index;
  if (frames > 0 && frames < max_frames && sets_up_frame_pointer(walk.last_ip)) {
    frames = print_backtrace(walk.last_rbp, frames);
  }
  if (frames - walk.index < few_frames) print_likely_callers(walk.last_cfa);
}

}  // namespace

void panic(std::string_view why, const CpuState* state) {
  console::wait_when_full();  // the last words arrive whole
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
    // Code without frame pointers (musl) ends the walk early: guess on.
    constexpr int few_frames = 4;
    if (print_backtrace(frame_pointer_of(*state), 1) < few_frames) {
      print_likely_callers(stack_pointer_of(*state));
    }
  } else {
    emit("Backtrace:\n");
    print_unwound_backtrace();
  }
  emit("*** Keel halted\n");
  console::flush();
  platform::exit(panic_exit_code);
}

void stop_unconfigured(std::string_view why) {
  console::wait_when_full();
  emit("\nKeel: ");
  emit(why);
  emit("\n");
  console::flush();
  platform::exit(unconfigured_exit_code);
}

}  // namespace keel::kernel
