// A NIC on a Linux TAP device (/dev/net/tun): the Linux platform's stand-in
// for virtio-net. The fd is watched by the event loop (watch.hpp): readable
// means "interrupt"; the handler reads a batch of frames into pool buffers
// and hands them to the stack without copying.
//
// Offloads, as QEMU's virtio-net has them from the same kernel (decision
// 0094): the device is opened with IFF_VNET_HDR, so a virtio-net header
// (src/net/link/virtio_net_header.hpp) precedes every frame both ways.
// Sending, the kernel takes partial checksums and TCP segments of up to
// 64 KiB, which it cuts itself where it must (Nic::Offloads tx_checksum,
// tso4, tso6). Receiving, TUNSETOFFLOAD asks it for partial or validated
// checksums and, unless tso=off, TCP segments it coalesced (up to 64 KiB):
// a frame that outgrows its pool buffer spills into a per-device buffer and
// is copied into one heap packet, the only frames copied. A kernel that
// refuses the header or the offloads gets plain MTU frames with software
// checksums, and a line on stderr says so.
//
// Which device: the command-line argument `tap=NAME` (interface 0), and
// `tap1=NAME`, `tap2=NAME`... for more; or the environment variable
// KEEL_TAP=NAME[,NAME...]. The device is created if it does not exist
// (needs CAP_NET_ADMIN); a test usually creates it first
// (`ip tuntap add dev keel0 mode tap`) so it can configure the host side.
#pragma once
#include <memory>
#include <net/nic.hpp>
#include <string>

#include "net/link/virtio_net_header.hpp"

namespace net {

struct TapOptions {
  // Ask the kernel for coalesced TCP segments (TUN_F_TSO4/6); tso=off: not.
  bool receive_segmentation = true;
};

class TapNic final : public Nic {
 public:
  // Opens the device; nullptr (and a message on stderr) on failure.
  static std::unique_ptr<TapNic> open(const std::string& name, TapOptions options = {});
  ~TapNic() override;

  ethernet::Addr mac() const override { return mac_; }
  uint16_t mtu() const override { return 1500; }
  Offloads offloads() const override;
  std::string name() const override { return "tap:" + name_; }
  Stats stats() const override { return stats_; }
  void set_receive(ReceiveDelegate receive) override { receive_ = std::move(receive); }
  std::size_t transmit(std::span<PacketPtr> frames) override;
  PacketPtr allocate_packet() override { return pool_.allocate(); }

 private:
  // header_size 0: no virtio-net header (the kernel refused it).
  TapNic(int fd, std::string name, uint32_t header_size, virtio_net::Offloads received);
  void on_readable();
  PacketPtr gather(PacketPtr head, uint32_t length);

  static constexpr std::size_t buffers = 1024;
  static constexpr int read_batch = 64;

  int fd_;
  std::string name_;
  uint32_t header_size_;              // 12, 10 or 0 bytes in front of every frame
  virtio_net::Offloads received_;     // what the kernel may hand us (TUNSETOFFLOAD)
  std::unique_ptr<uint8_t[]> spill_;  // the rest of a frame longer than a pool buffer
  ethernet::Addr mac_;
  Stats stats_;
  PacketPool pool_;
  ReceiveDelegate receive_;
};

}  // namespace net
