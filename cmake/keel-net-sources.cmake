# The network stack's sources (src/net), included by keel-sources.cmake.
# Drivers (src/drivers) list theirs in cmake/keel-driver-sources.cmake,
# included below, so the two lists never conflict.
set(KEEL_NET_STACK_SOURCES
  ${KEEL_ROOT}/src/net/arp.cpp
  ${KEEL_ROOT}/src/net/bytes.cpp
  ${KEEL_ROOT}/src/net/config.cpp
  ${KEEL_ROOT}/src/net/counters.cpp
  ${KEEL_ROOT}/src/net/dhcp.cpp
  ${KEEL_ROOT}/src/net/ethernet.cpp
  ${KEEL_ROOT}/src/net/icmp4.cpp
  ${KEEL_ROOT}/src/net/inet.cpp
  ${KEEL_ROOT}/src/net/interfaces.cpp
  ${KEEL_ROOT}/src/net/ip4.cpp
  ${KEEL_ROOT}/src/net/ip4_addr.cpp
  ${KEEL_ROOT}/src/net/ip4_reassembly.cpp
  ${KEEL_ROOT}/src/net/packet.cpp
  ${KEEL_ROOT}/src/net/udp.cpp)
set(KEEL_NET_SOURCES ${KEEL_NET_STACK_SOURCES})
# Only in a Linux-process build: the TAP device and the in-memory link.
set(KEEL_NET_LINUX_SOURCES
  ${KEEL_ROOT}/src/platform/linux/memory_nic.cpp
  ${KEEL_ROOT}/src/platform/linux/tap.cpp)
# Only in a bootable image.
set(KEEL_NET_KVM_SOURCES)

include(${KEEL_ROOT}/cmake/keel-driver-sources.cmake OPTIONAL)

# keel_net_config(TARGET FILE.json): embeds FILE.json as the target's network
# configuration (read at the first net::Interfaces::get(); see docs/net).
function(keel_net_config target json_file)
  get_filename_component(json_file "${json_file}" ABSOLUTE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_net_config.S)
  file(WRITE ${out}
    ".section .data.rel.ro,\"aw\"\n.global keel_net_config_json\n.p2align 3\nkeel_net_config_json:\n.quad 1f\n"
    "1:\n.incbin \"${json_file}\"\n.byte 0\n.section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS ${json_file})
  enable_language(ASM)
  target_sources(${target} PRIVATE ${out})
endfunction()
