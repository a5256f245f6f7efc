# The network stack's sources (src/net), included by keel-sources.cmake.
# Drivers (src/drivers, owned by the driver work) list theirs in
# cmake/keel-driver-sources.cmake, included at the end, so the two lists
# never conflict.
set(KEEL_NET_SOURCES
  ${KEEL_ROOT}/src/net/packet.cpp)
# Only in a Linux-process build (TAP device, in-memory link).
set(KEEL_NET_LINUX_SOURCES)
# Only in a bootable image.
set(KEEL_NET_KVM_SOURCES)

include(${KEEL_ROOT}/cmake/keel-driver-sources.cmake OPTIONAL)
