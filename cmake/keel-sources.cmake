# Which sources make the OS libraries, per platform (built once per
# platform and build type by cmake/os/CMakeLists.txt), and which the host
# build's tests compile. Absolute paths under KEEL_ROOT.
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
# The network stack (src/net): the same on every platform.
set(KEEL_NET_SOURCES
  ${KEEL_ROOT}/src/net/address.cpp
  ${KEEL_ROOT}/src/net/config.cpp
  ${KEEL_ROOT}/src/net/config_json.cpp
  ${KEEL_ROOT}/src/net/config_values.cpp
  ${KEEL_ROOT}/src/net/counters.cpp
  ${KEEL_ROOT}/src/net/dhcp/dhcp.cpp
  ${KEEL_ROOT}/src/net/hooks.cpp
  ${KEEL_ROOT}/src/net/ip4/forward.cpp
  ${KEEL_ROOT}/src/net/ip4/icmp4.cpp
  ${KEEL_ROOT}/src/net/ip4/input.cpp
  ${KEEL_ROOT}/src/net/ip4/ip4.cpp
  ${KEEL_ROOT}/src/net/ip4/output.cpp
  ${KEEL_ROOT}/src/net/ip4/reassembly.cpp
  ${KEEL_ROOT}/src/net/ip4/routes.cpp
  ${KEEL_ROOT}/src/net/ip4_addr.cpp
  ${KEEL_ROOT}/src/net/link/arp.cpp
  ${KEEL_ROOT}/src/net/link/interface.cpp
  ${KEEL_ROOT}/src/net/link/link.cpp
  ${KEEL_ROOT}/src/net/packet.cpp
  ${KEEL_ROOT}/src/net/stack.cpp
  ${KEEL_ROOT}/src/net/udp/udp.cpp
  ${KEEL_ROOT}/src/net/udp/udp_layer.cpp
  ${KEEL_ROOT}/src/net/wire/checksum.cpp)
# The image's stack on the platform's NICs, with the OS's clock (net::stack()).
set(KEEL_NET_SYSTEM_SOURCES
  ${KEEL_ROOT}/src/net/system.cpp)
# The Linux process's NICs: a TAP device, and the in-memory link of tests.
set(KEEL_NET_LINUX_SOURCES
  ${KEEL_ROOT}/src/platform/linux/memory_nic.cpp
  ${KEEL_ROOT}/src/platform/linux/tap.cpp)
# Device drivers (src/drivers): they touch hardware, so images only.
set(KEEL_DRIVER_SOURCES
  ${KEEL_ROOT}/src/drivers/pci/msix.cpp
  ${KEEL_ROOT}/src/drivers/pci/pci.cpp
  ${KEEL_ROOT}/src/drivers/virtio/discovery.cpp
  ${KEEL_ROOT}/src/drivers/virtio/mmio_arguments.cpp
  ${KEEL_ROOT}/src/drivers/virtio/net.cpp
  ${KEEL_ROOT}/src/drivers/virtio/net_datapath.cpp
  ${KEEL_ROOT}/src/drivers/virtio/register.cpp
  ${KEEL_ROOT}/src/drivers/virtio/transport_mmio.cpp
  ${KEEL_ROOT}/src/drivers/virtio/transport_pci.cpp
  ${KEEL_ROOT}/src/drivers/virtio/virtqueue.cpp)
set(KEEL_INCLUDE_DIRS ${KEEL_ROOT}/api ${KEEL_ROOT}/src)
