// A NIC on a Linux TAP device (/dev/net/tun, IFF_TAP | IFF_NO_PI): the Linux
// platform's stand-in for virtio-net. The fd is watched by the event loop
// (watch.hpp): readable means "interrupt"; the handler reads a batch of
// frames into pool buffers and hands them to the stack without copying.
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

namespace net {

class TapNic final : public Nic {
 public:
  // Opens the device; nullptr (and a message on stderr) on failure.
  static std::unique_ptr<TapNic> open(const std::string& name);
  ~TapNic() override;

  ethernet::Addr mac() const override { return mac_; }
  uint16_t mtu() const override { return 1500; }
  std::string name() const override { return "tap:" + name_; }
  Stats stats() const override { return stats_; }
  void set_receive(ReceiveDelegate receive) override { receive_ = std::move(receive); }
  std::size_t transmit(std::span<PacketPtr> frames) override;
  PacketPtr allocate_packet() override { return pool_.allocate(); }

 private:
  TapNic(int fd, std::string name);
  void on_readable();

  static constexpr std::size_t buffers = 1024;
  static constexpr int read_batch = 64;

  int fd_;
  std::string name_;
  ethernet::Addr mac_;
  Stats stats_;
  PacketPool pool_;
  ReceiveDelegate receive_;
};

}  // namespace net
