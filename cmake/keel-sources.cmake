# Which sources make the OS library, per platform.
set(KEEL_KERNEL_SOURCES
  ${KEEL_ROOT}/src/kernel/cmdline.cpp
  ${KEEL_ROOT}/src/kernel/console.cpp
  ${KEEL_ROOT}/src/kernel/events.cpp
  ${KEEL_ROOT}/src/kernel/page_allocator.cpp
  ${KEEL_ROOT}/src/kernel/panic.cpp
  ${KEEL_ROOT}/src/kernel/service.cpp
  ${KEEL_ROOT}/src/kernel/timer_queue.cpp)
set(KEEL_KVM_SOURCES
  ${KEEL_ROOT}/src/arch/x86_64/apic.cpp
  ${KEEL_ROOT}/src/arch/x86_64/boot.S
  ${KEEL_ROOT}/src/arch/x86_64/clock.cpp
  ${KEEL_ROOT}/src/arch/x86_64/descriptors.cpp
  ${KEEL_ROOT}/src/arch/x86_64/idle.S
  ${KEEL_ROOT}/src/arch/x86_64/interrupt_entry.S
  ${KEEL_ROOT}/src/arch/x86_64/interrupts.cpp
  ${KEEL_ROOT}/src/arch/x86_64/paging.cpp
  ${KEEL_ROOT}/src/arch/x86_64/syscall_entry.S
  ${KEEL_ROOT}/src/platform/kvm/memory.cpp
  ${KEEL_ROOT}/src/platform/kvm/platform.cpp
  ${KEEL_ROOT}/src/platform/kvm/profiler.cpp
  ${KEEL_ROOT}/src/platform/kvm/runtime_support.cpp
  ${KEEL_ROOT}/src/platform/kvm/serial.cpp
  ${KEEL_ROOT}/src/platform/kvm/start.cpp
  ${KEEL_ROOT}/src/platform/kvm/symbols.cpp
  ${KEEL_ROOT}/src/platform/kvm/syscalls.cpp)
set(KEEL_LINUX_SOURCES
  ${KEEL_ROOT}/src/platform/linux/main.cpp
  ${KEEL_ROOT}/src/platform/linux/platform.cpp
  ${KEEL_ROOT}/src/platform/linux/watch.cpp)
# Optional parts (network stack, drivers) add themselves here.
include(${KEEL_ROOT}/cmake/keel-net-sources.cmake OPTIONAL)
set(KEEL_INCLUDE_DIRS ${KEEL_ROOT}/api ${KEEL_ROOT}/src)
