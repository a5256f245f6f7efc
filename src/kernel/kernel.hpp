// The portable kernel's internal interface, shared by the platforms.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::kernel {

// Exit status of an image that panicked (EX_SOFTWARE).
inline constexpr int panic_exit_code = 70;
// Exit status of an image that cannot run as it was started: a network
// service booted without a NIC (EX_CONFIG, sysexits.h). A mistake in how it
// was run, not a bug, so no backtrace.
inline constexpr int unconfigured_exit_code = 78;

struct CpuState;  // saved registers of an interrupted context, arch-defined

// Prints `why`, the registers if known, and a backtrace, then ends the VM.
[[noreturn]] void panic(std::string_view why, const CpuState* state = nullptr);
// Prints `why` (one line, for the person who started the image) and ends it
// with unconfigured_exit_code.
[[noreturn]] void stop_unconfigured(std::string_view why);
// Registers of an interrupted context; implemented by the arch
// (src/arch/x86_64/interrupts.cpp).
void print_registers(const CpuState& state);
uint64_t frame_pointer_of(const CpuState& state);
uint64_t instruction_pointer_of(const CpuState& state);
uint64_t stack_pointer_of(const CpuState& state);

bool events_pending();
std::size_t run_pending_events();

// The std::terminate handler: names the uncaught exception and panics. The
// platform installs it before any constructor runs.
[[noreturn]] void on_uncaught_exception();

// Runs Service::start() and then the event loop; returns the shutdown code.
int run_service(std::string_view cmdline);

}  // namespace keel::kernel
