// A NIC on a TAP device, with the virtio-net header and offloads where the
// kernel takes them (tap.hpp, decision 0094).
#include "tap.hpp"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <net/nics.hpp>
#include <os>

#include "net/platform_nics.hpp"
#include "watch.hpp"

namespace net {
namespace {

// A new fd of /dev/net/tun attached to `name` with `flags`; -1 on failure,
// errno and `step` say why. `name` becomes the device's (the kernel may
// have picked one).
int attach(std::string& name, short flags, const char*& step) {
  step = "/dev/net/tun";
  int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  ifreq ifr{};
  ifr.ifr_flags = flags;
  std::snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name.c_str());
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    int error = errno;
    ::close(fd);
    errno = error;
    step = "TUNSETIFF";
    return -1;
  }
  name = ifr.ifr_name;
  return fd;
}

// The virtio-net header's size on `fd` (opened with IFF_VNET_HDR): 12
// bytes, as virtio 1.0 has it, else the kernel's default of 10
// (linux/virtio_net.h: virtio_net_hdr_mrg_rxbuf, virtio_net_hdr).
uint32_t set_header_size(int fd) {
  int size = int(sizeof(virtio_net::Header));
  if (ioctl(fd, TUNSETVNETHDRSZ, &size) == 0) return uint32_t(size);
  return virtio_net::legacy_header_size;
}

// Asks the kernel to hand over partial checksums and, with `segments`,
// coalesced TCP segments; steps down to what it takes (TSO needs CSUM),
// saying so. Returns what was taken.
virtio_net::Offloads set_offloads(int fd, const std::string& name, bool segments) {
  constexpr unsigned long checksum = TUN_F_CSUM, all = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
  if (segments) {
    if (ioctl(fd, TUNSETOFFLOAD, all) == 0) return {.checksum = true, .tso4 = true, .tso6 = true};
    std::fprintf(stderr,
                 "tap %s: TUNSETOFFLOAD csum,tso4,tso6 refused (%s): no coalesced segments\n",
                 name.c_str(), std::strerror(errno));
  }
  if (ioctl(fd, TUNSETOFFLOAD, checksum) == 0)
    return {.checksum = true, .tso4 = false, .tso6 = false};
  std::fprintf(stderr,
               "tap %s: TUNSETOFFLOAD csum refused (%s): whole checksums received, "
               "every one checked\n",
               name.c_str(), std::strerror(errno));
  (void)ioctl(fd, TUNSETOFFLOAD, 0ul);
  return {};
}

}  // namespace

std::unique_ptr<TapNic> TapNic::open(const std::string& requested, TapOptions options) {
  std::string name = requested;
  const char* step = nullptr;
  int fd = attach(name, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, step);
  uint32_t header_size = 0;
  virtio_net::Offloads received{};
  if (fd >= 0) {
    header_size = set_header_size(fd);
    received = set_offloads(fd, name, options.receive_segmentation);
  } else if (std::strcmp(step, "TUNSETIFF") == 0) {
    // Without the header: MTU frames and whole checksums, as before it.
    int error = errno;
    name = requested;
    fd = attach(name, IFF_TAP | IFF_NO_PI, step);
    if (fd >= 0)
      std::fprintf(stderr, "tap %s: IFF_VNET_HDR refused (%s): no offloads, MTU frames\n",
                   name.c_str(), std::strerror(error));
  }
  if (fd < 0) {
    std::fprintf(stderr, "tap %s: %s: %s\n", requested.c_str(), step, std::strerror(errno));
    return nullptr;
  }
  return std::unique_ptr<TapNic>(new TapNic(fd, name, header_size, received));
}

TapNic::TapNic(int fd, std::string name, uint32_t header_size, virtio_net::Offloads received)
    : fd_(fd),
      name_(std::move(name)),
      header_size_(header_size),
      received_(received),
      pool_(buffers) {
  // A locally administered unicast MAC derived from the device name (stable
  // across runs, distinct per device): 02:6b:6c:xx:xx:xx.
  uint32_t h = 2166136261u;
  for (char c : name_) h = (h ^ uint8_t(c)) * 16777619u;
  mac_ = ethernet::Addr{{0x02, 0x6b, 0x6c, uint8_t(h >> 16), uint8_t(h >> 8), uint8_t(h)}};
  // Coalesced segments are up to 64 KiB: what a pool buffer cannot hold
  // lands here (the pool's buffers stay MTU-sized, decision 0094).
  if (received_.tso4 || received_.tso6)
    spill_ = std::make_unique<uint8_t[]>(virtio_net::max_received_frame);
  int event = os::Events::allocate([this] { on_readable(); });
  if (event < 0 || !keel::linux_platform::watch_fd(fd_, event))
    std::fprintf(stderr, "tap %s: cannot watch the device\n", name_.c_str());
  if (header_size_)
    std::printf(
        "%s: virtio-net header (%u bytes), offloads: send checksum, tso4, tso6; "
        "receive %s\n",
        this->name().c_str(), header_size_,
        spill_               ? "checksum, tso4, tso6"
        : received_.checksum ? "checksum (tso=off)"
                             : "none");
}

TapNic::~TapNic() {
  keel::linux_platform::unwatch_fd(fd_);
  ::close(fd_);
}

Nic::Offloads TapNic::offloads() const {
  // With the header the kernel takes partial checksums and GSO frames from
  // us whatever TUNSETOFFLOAD said (that is the direction towards us).
  bool header = header_size_ != 0;
  return {.tx_checksum = header,
          .rx_checksum = received_.checksum,
          .tso4 = header,
          .tso6 = header,
          .rx_segmentation = received_.tso4 || received_.tso6};
}

void TapNic::on_readable() {
  // A bounded batch per wake-up: the fd is level-triggered, so what is left
  // wakes the loop again after timers and other devices had their turn.
  for (int i = 0; i < read_batch; ++i) {
    PacketPtr packet = pool_.allocate(Packet::nic_headroom);
    if (!packet) {
      ++stats_.rx_dropped;  // stack holds every buffer: leave the frame queued
      return;
    }
    // One system call per frame: the header, the pool buffer, and for a
    // coalesced segment the spill buffer after it.
    virtio_net::Header header{};
    iovec parts[3];
    int count = 0;
    if (header_size_) parts[count++] = {&header, header_size_};
    parts[count++] = {packet->data(), packet->tailroom()};
    if (spill_) parts[count++] = {spill_.get(), virtio_net::max_received_frame};
    ssize_t n = ::readv(fd_, parts, count);
    if (n <= 0) return;  // EAGAIN: drained
    if (uint32_t(n) < header_size_) {
      ++stats_.rx_dropped;
      continue;
    }
    uint32_t length = uint32_t(n) - header_size_;
    if (length <= packet->tailroom()) {
      packet->append(length);
    } else if (!(packet = gather(std::move(packet), length))) {
      ++stats_.rx_dropped;  // no heap for it
      continue;
    }
    if (header_size_ && virtio_net::apply_received_header(header, received_, *packet) !=
                            virtio_net::ReceivedHeader::ok) {
      ++stats_.rx_dropped;  // the kernel said something we did not ask for
      continue;
    }
    ++stats_.rx_packets;
    stats_.rx_bytes += length;
    if (receive_) receive_(std::move(packet));
  }
}

// A frame longer than its pool buffer: the head in the buffer, the rest in
// spill_, copied together into one heap packet (as virtio-net gathers a
// merged frame, decision 0093: the stack parses a frame as one run of bytes).
PacketPtr TapNic::gather(PacketPtr head, uint32_t length) {
  uint32_t first = head->tailroom();
  PacketPtr whole = allocate_heap_packet(length, Packet::nic_headroom);
  if (!whole) return nullptr;
  std::memcpy(whole->append(first), head->data(), first);
  std::memcpy(whole->append(length - first), spill_.get(), length - first);
  return whole;
}

std::size_t TapNic::transmit(std::span<PacketPtr> frames) {
  // With the header the kernel takes every offload: it completes partial
  // checksums and cuts TSO segments where the frame goes on to a device
  // or a socket that needs it.
  constexpr virtio_net::Offloads kernel{.checksum = true, .tso4 = true, .tso6 = true};
  std::size_t sent = 0;
  for (PacketPtr& frame : frames) {
    if (!frame) continue;
    PacketPtr packet = std::move(frame);
    uint32_t size = packet->size();
    ssize_t n = -1, expected = 0;
    if (header_size_) {
      virtio_net::Header header{};
      if (virtio_net::transmit_header(*packet, kernel, header) !=
          virtio_net::TransmitHeader::bad_segmentation) {
        iovec parts[2] = {{&header, header_size_}, {packet->data(), size}};
        expected = ssize_t(header_size_ + size);
        n = ::writev(fd_, parts, 2);
      }
    } else {
      complete_partial_checksum(*packet);  // no header: no offload
      expected = ssize_t(size);
      n = ::write(fd_, packet->data(), size);
    }
    if (n == expected) {
      ++sent;
      ++stats_.tx_packets;
      stats_.tx_bytes += size;
    } else {
      ++stats_.tx_dropped;
    }
  }
  return sent;
}

namespace {

// tap=NAME, tap0=NAME, tap1=NAME ... or KEEL_TAP=NAME[,NAME...].
void probe_taps(TapOptions options) {
  std::vector<std::string> names;
  for (const std::string& arg : os::args()) {
    if (arg.rfind("tap", 0) != 0) continue;
    auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    std::string digits = arg.substr(3, eq - 3);
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    std::size_t index = digits.empty() ? 0 : std::size_t(std::atoi(digits.c_str()));
    if (index > 63) continue;
    if (names.size() <= index) names.resize(index + 1);
    names[index] = arg.substr(eq + 1);
  }
  if (names.empty()) {
    if (const char* env = std::getenv("KEEL_TAP")) {
      std::string list = env;
      for (std::size_t start = 0; start <= list.size();) {
        std::size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) names.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    }
  }
  for (const std::string& name : names) {
    if (name.empty()) continue;
    if (auto nic = TapNic::open(name, options)) register_nic(std::move(nic));
  }
}

}  // namespace

void probe_platform_nics(const StackConfig& config) {
  probe_taps({.receive_segmentation = config.segmentation_offload});
}

}  // namespace net
