#include "tap.hpp"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
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

std::unique_ptr<TapNic> TapNic::open(const std::string& name) {
  int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "tap %s: /dev/net/tun: %s\n", name.c_str(), std::strerror(errno));
    return nullptr;
  }
  ifreq ifr{};
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  std::snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name.c_str());
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    std::fprintf(stderr, "tap %s: TUNSETIFF: %s\n", name.c_str(), std::strerror(errno));
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<TapNic>(new TapNic(fd, ifr.ifr_name));
}

TapNic::TapNic(int fd, std::string name) : fd_(fd), name_(std::move(name)), pool_(buffers) {
  // A locally administered unicast MAC derived from the device name (stable
  // across runs, distinct per device): 02:6b:6c:xx:xx:xx.
  uint32_t h = 2166136261u;
  for (char c : name_) h = (h ^ uint8_t(c)) * 16777619u;
  mac_ = ethernet::Addr{{0x02, 0x6b, 0x6c, uint8_t(h >> 16), uint8_t(h >> 8), uint8_t(h)}};
  int event = os::Events::allocate([this] { on_readable(); });
  if (event < 0 || !keel::linux_platform::watch_fd(fd_, event))
    std::fprintf(stderr, "tap %s: cannot watch the device\n", name_.c_str());
}

TapNic::~TapNic() {
  keel::linux_platform::unwatch_fd(fd_);
  ::close(fd_);
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
    ssize_t n = ::read(fd_, packet->data(), packet->tailroom());
    if (n <= 0) return;  // EAGAIN: drained
    packet->append(uint32_t(n));
    ++stats_.rx_packets;
    stats_.rx_bytes += uint64_t(n);
    if (receive_) receive_(std::move(packet));
  }
}

std::size_t TapNic::transmit(std::span<PacketPtr> frames) {
  std::size_t sent = 0;
  for (PacketPtr& frame : frames) {
    complete_partial_checksum(*frame);  // no virtio-net header on this TAP: no offload
    ssize_t n = ::write(fd_, frame->data(), frame->size());
    if (n == ssize_t(frame->size())) {
      ++sent;
      ++stats_.tx_packets;
      stats_.tx_bytes += uint64_t(n);
    } else {
      ++stats_.tx_dropped;
    }
    frame.reset();
  }
  return sent;
}

namespace {

// tap=NAME, tap0=NAME, tap1=NAME ... or KEEL_TAP=NAME[,NAME...].
void probe_taps() {
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
    if (auto nic = TapNic::open(name)) register_nic(std::move(nic));
  }
}

}  // namespace

void probe_platform_nics(const StackConfig&) { probe_taps(); }

}  // namespace net
