// A Keel service as a Linux process: the command line arguments play the
// kernel command line.
#include <csignal>
#include <cstdio>
#include <exception>
#include <ext/stdio_sync_filebuf.h>
#include <iostream>
#include <string>

#include "kernel/console.hpp"
#include "kernel/kernel.hpp"

namespace {

void on_fatal_signal(int signal) {
  keel::kernel::panic(signal == SIGSEGV  ? "SIGSEGV (invalid memory access)"
                      : signal == SIGBUS ? "SIGBUS"
                      : signal == SIGFPE ? "SIGFPE (arithmetic error)"
                                         : "SIGILL (illegal instruction)");
}

ssize_t write_to_console(void*, const char* data, size_t size) {
  keel::console::write(data, size);
  return ssize_t(size);
}

FILE* console_stream() {
  cookie_io_functions_t io{};
  io.write = write_to_console;
  FILE* f = fopencookie(nullptr, "w", io);
  std::setvbuf(f, nullptr, _IOLBF, BUFSIZ);  // a line is one console write
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate(keel::kernel::on_uncaught_exception);
  // Console output goes through the same ring as on the VM (drops, the
  // syslog tap): stdout and stderr become streams that write into it.
  stdout = console_stream();
  stderr = console_stream();
  static __gnu_cxx::stdio_sync_filebuf<char> out(stdout), err(stderr);
  std::cout.rdbuf(&out);  // iostreams were bound to the old streams
  std::cerr.rdbuf(&err);
  // The handler runs on its own stack, so a stack overflow still panics.
  static char signal_stack[64 * 1024];
  stack_t alternate{};
  alternate.ss_sp = signal_stack;
  alternate.ss_size = sizeof signal_stack;
  sigaltstack(&alternate, nullptr);
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_ONSTACK;
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(s, &action, nullptr);
  std::string cmdline;
  for (int i = 1; i < argc; ++i) {
    if (i > 1) cmdline += ' ';
    cmdline += argv[i];
  }
  static std::string kept = cmdline;  // os::cmdline() views it for the whole run
  return keel::kernel::run_service(kept);
}
