// A hlt the kernel does not own: in ring 0 it would wait for an interrupt
// and run on, so the build must refuse the image (tools/keel-symbols).
#include <os>

void Service::start() {
  asm volatile("hlt");
  os::shutdown(0);
}
