/* Ends the Linux guest the way a Keel image ends: writes code + 1 to QEMU's
 * isa-debug-exit port (0xf4, on the QEMU line of every Keel and Linux guest),
 * so QEMU exits with ((code + 1) << 1) | 1 and `keelpy.qemu.status_of` reads
 * the same status from both. Debian's kernel has no /dev/port (CONFIG_DEVPORT
 * is off), hence this program. Usage: debug_exit CODE */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

enum { debug_exit_port = 0xf4 };

int main(int argc, char** argv) {
  int code = argc > 1 ? atoi(argv[1]) : 0;
  if (ioperm(debug_exit_port, 1, 1) != 0) {
    perror("debug_exit: ioperm");
    return 1;
  }
  outb((unsigned char)(code + 1), debug_exit_port);
  fprintf(stderr, "debug_exit: no isa-debug-exit device at port 0x%x\n", debug_exit_port);
  return 1;
}
