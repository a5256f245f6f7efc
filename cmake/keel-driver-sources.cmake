# Device drivers (src/drivers), included by keel-net-sources.cmake. They
# touch hardware, so they are in bootable images only.
list(APPEND KEEL_NET_KVM_SOURCES
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
