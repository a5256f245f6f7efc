# Which sources make the OS libraries, per platform (built once per
# platform and build type by cmake/os/CMakeLists.txt), and which the host
# build's tests compile. Absolute paths under KEEL_ROOT.
set(KEEL_KERNEL_SOURCES
  ${KEEL_ROOT}/src/kernel/cmdline.cpp
  ${KEEL_ROOT}/src/kernel/console.cpp
  ${KEEL_ROOT}/src/kernel/events.cpp
  ${KEEL_ROOT}/src/kernel/page_allocator.cpp
  ${KEEL_ROOT}/src/kernel/panic.cpp
  ${KEEL_ROOT}/src/kernel/random/chacha20.cpp
  ${KEEL_ROOT}/src/kernel/random/generator.cpp
  ${KEEL_ROOT}/src/kernel/service.cpp
  ${KEEL_ROOT}/src/kernel/terminate.cpp
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
  ${KEEL_ROOT}/src/platform/kvm/cpu_random.cpp
  ${KEEL_ROOT}/src/platform/kvm/entropy.cpp
  ${KEEL_ROOT}/src/platform/kvm/memory.cpp
  ${KEEL_ROOT}/src/platform/kvm/multiboot2.cpp
  ${KEEL_ROOT}/src/platform/kvm/platform.cpp
  ${KEEL_ROOT}/src/platform/kvm/profiler.cpp
  ${KEEL_ROOT}/src/platform/kvm/runtime_support.cpp
  ${KEEL_ROOT}/src/platform/kvm/serial.cpp
  ${KEEL_ROOT}/src/platform/kvm/start.cpp
  ${KEEL_ROOT}/src/platform/kvm/symbols.cpp
  ${KEEL_ROOT}/src/platform/kvm/syscalls.cpp)
set(KEEL_LINUX_SOURCES
  ${KEEL_ROOT}/src/platform/linux/main.cpp
  ${KEEL_ROOT}/src/platform/linux/memory_limit.cpp
  ${KEEL_ROOT}/src/platform/linux/platform.cpp
  ${KEEL_ROOT}/src/platform/linux/symbols.cpp
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
  ${KEEL_ROOT}/src/net/fragments/reassembly.cpp
  ${KEEL_ROOT}/src/net/ip4_addr.cpp
  ${KEEL_ROOT}/src/net/ip6/destinations.cpp
  ${KEEL_ROOT}/src/net/ip6/extensions.cpp
  ${KEEL_ROOT}/src/net/ip6/fragments.cpp
  ${KEEL_ROOT}/src/net/ip6/icmp6.cpp
  ${KEEL_ROOT}/src/net/ip6/forward.cpp
  ${KEEL_ROOT}/src/net/ip6/hooks.cpp
  ${KEEL_ROOT}/src/net/ip6/input.cpp
  ${KEEL_ROOT}/src/net/ip6/output.cpp
  ${KEEL_ROOT}/src/net/ip6/redirect.cpp
  ${KEEL_ROOT}/src/net/link/arp.cpp
  ${KEEL_ROOT}/src/net/link/ndp.cpp
  ${KEEL_ROOT}/src/net/link/ndp_send.cpp
  ${KEEL_ROOT}/src/net/link/mld.cpp
  ${KEEL_ROOT}/src/net/link/ra.cpp
  ${KEEL_ROOT}/src/net/link/redirect.cpp
  ${KEEL_ROOT}/src/net/link/routers.cpp
  ${KEEL_ROOT}/src/net/link/slaac.cpp
  ${KEEL_ROOT}/src/net/link/link6.cpp
  ${KEEL_ROOT}/src/net/link/interface.cpp
  ${KEEL_ROOT}/src/net/link/link.cpp
  ${KEEL_ROOT}/src/net/link/tcp_segmentation.cpp
  ${KEEL_ROOT}/src/net/link/virtio_net_header.cpp
  ${KEEL_ROOT}/src/net/metrics/exposition.cpp
  ${KEEL_ROOT}/src/net/packet.cpp
  ${KEEL_ROOT}/src/net/routes.cpp
  ${KEEL_ROOT}/src/net/stack.cpp
  ${KEEL_ROOT}/src/net/syslog/message.cpp
  ${KEEL_ROOT}/src/net/tcp/ack.cpp
  ${KEEL_ROOT}/src/net/tcp/congestion.cpp
  ${KEEL_ROOT}/src/net/tcp/connection.cpp
  ${KEEL_ROOT}/src/net/tcp/connection_handle.cpp
  ${KEEL_ROOT}/src/net/tcp/dispatch.cpp
  ${KEEL_ROOT}/src/net/tcp/input.cpp
  ${KEEL_ROOT}/src/net/tcp/listen.cpp
  ${KEEL_ROOT}/src/net/tcp/output.cpp
  ${KEEL_ROOT}/src/net/tcp/receive_buffer.cpp
  ${KEEL_ROOT}/src/net/tcp/scoreboard.cpp
  ${KEEL_ROOT}/src/net/tcp/secrets.cpp
  ${KEEL_ROOT}/src/net/tcp/send_buffer.cpp
  ${KEEL_ROOT}/src/net/tcp/syn_cookies.cpp
  ${KEEL_ROOT}/src/net/tcp/tcp_api.cpp
  ${KEEL_ROOT}/src/net/tcp/tcp_ip6.cpp
  ${KEEL_ROOT}/src/net/tcp/tcp_layer.cpp
  ${KEEL_ROOT}/src/net/tcp/tcp_path.cpp
  ${KEEL_ROOT}/src/net/tcp/tcp_receive.cpp
  ${KEEL_ROOT}/src/net/tcp/time_wait.cpp
  ${KEEL_ROOT}/src/net/tcp/time_wait_input.cpp
  ${KEEL_ROOT}/src/net/tcp/timers.cpp
  ${KEEL_ROOT}/src/net/tcp_stream/read.cpp
  ${KEEL_ROOT}/src/net/tcp_stream/stream.cpp
  ${KEEL_ROOT}/src/net/tcp_stream/write.cpp
  ${KEEL_ROOT}/src/net/udp/udp.cpp
  ${KEEL_ROOT}/src/net/udp/udp_layer.cpp
  ${KEEL_ROOT}/src/net/udp/udp6.cpp
  ${KEEL_ROOT}/src/net/wire/checksum.cpp)
# The image's stack on the platform's NICs, with the OS's clock (net::stack()).
set(KEEL_NET_SYSTEM_SOURCES
  ${KEEL_ROOT}/src/net/system.cpp)
# What uses the kernel's console (metrics of its drops, the syslog sender's
# tap): images, the Linux process, and net_system_tests on a fake console.
set(KEEL_NET_KERNEL_SOURCES
  ${KEEL_ROOT}/src/net/metrics/system_metrics.cpp
  ${KEEL_ROOT}/src/net/syslog/sender.cpp)
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
  ${KEEL_ROOT}/src/drivers/virtio/net_rx.cpp
  ${KEEL_ROOT}/src/drivers/virtio/register.cpp
  ${KEEL_ROOT}/src/drivers/virtio/rng.cpp
  ${KEEL_ROOT}/src/drivers/virtio/rng_discovery.cpp
  ${KEEL_ROOT}/src/drivers/virtio/transport_mmio.cpp
  ${KEEL_ROOT}/src/drivers/virtio/transport_pci.cpp
  ${KEEL_ROOT}/src/drivers/virtio/virtqueue.cpp)
set(KEEL_INCLUDE_DIRS ${KEEL_ROOT}/api ${KEEL_ROOT}/src)
# Of those, code that runs at boot or now and then, never per packet:
# settings, device discovery, DHCP, metrics and syslog formatting; IPv6's
# control plane (MLD, router discovery, SLAAC, neighbour messages sent) and
# fragments (per fragment only: no benchmark's path, as answers and
# segments fit the MTU). The OS build compiles it for size (decisions 0089,
# 0142); the host build keeps -O2.
set(KEEL_OS_COLD_SOURCES
  ${KEEL_ROOT}/src/kernel/cmdline.cpp
  ${KEEL_ROOT}/src/arch/x86_64/descriptors.cpp
  ${KEEL_ROOT}/src/platform/kvm/entropy.cpp
  ${KEEL_ROOT}/src/net/config.cpp
  ${KEEL_ROOT}/src/net/config_json.cpp
  ${KEEL_ROOT}/src/net/config_values.cpp
  ${KEEL_ROOT}/src/net/dhcp/dhcp.cpp
  ${KEEL_ROOT}/src/net/fragments/reassembly.cpp
  ${KEEL_ROOT}/src/net/ip6/fragments.cpp
  ${KEEL_ROOT}/src/net/link/mld.cpp
  ${KEEL_ROOT}/src/net/link/ndp_send.cpp
  ${KEEL_ROOT}/src/net/link/ra.cpp
  ${KEEL_ROOT}/src/net/link/routers.cpp
  ${KEEL_ROOT}/src/net/link/slaac.cpp
  ${KEEL_ROOT}/src/net/metrics/exposition.cpp
  ${KEEL_ROOT}/src/net/metrics/system_metrics.cpp
  ${KEEL_ROOT}/src/net/syslog/message.cpp
  ${KEEL_ROOT}/src/net/syslog/sender.cpp
  ${KEEL_ROOT}/src/drivers/virtio/discovery.cpp
  ${KEEL_ROOT}/src/drivers/virtio/mmio_arguments.cpp
  ${KEEL_ROOT}/src/drivers/virtio/rng_discovery.cpp)
