#include "rng.hpp"

#include <algorithm>
#include <cstring>

namespace keel::drivers::virtio {
namespace {

constexpr uint16_t request_queue = 0;  // 5.4.2: "requestq"
// One buffer is ever in flight; QEMU's queue has 8 entries (legacy PCI
// fixes the size at the device's).
constexpr uint16_t wanted_queue_size = 8;

void relax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

std::unique_ptr<Rng> Rng::create(std::unique_ptr<Transport> transport) {
  std::unique_ptr<Rng> rng(new Rng(std::move(transport)));
  if (!rng->init()) {
    rng->transport_->set_status(status::failed);
    return nullptr;
  }
  return rng;
}

Rng::~Rng() {
  // 5.4: after reset the device writes no more; the buffer may then go.
  if (transport_) transport_->reset();
}

bool Rng::init() {
  Transport& t = *transport_;
  t.reset();
  t.set_status(status::acknowledge);
  t.set_status(status::acknowledge | status::driver);
  // 5.4.3: the device has no feature bits of its own.
  uint64_t features = t.device_features() & feature::version_1;
  if (!t.legacy() && !features) return false;
  t.set_driver_features(features);
  if (!t.legacy()) {
    t.set_status(status::acknowledge | status::driver | status::features_ok);
    if (!(t.status() & status::features_ok)) return false;
  }
  uint16_t max = t.queue_max_size(request_queue);
  uint16_t size = t.queue_size_fixed() || max < wanted_queue_size ? max : wanted_queue_size;
  while (size & (size - 1)) size &= uint16_t(size - 1);
  queue_ = Virtqueue::create(request_queue, size, false);
  if (!queue_ || !t.setup_queue(*queue_)) return false;
  // Polled: ask the device not to interrupt (2.6.7), so a line it shares
  // with another device is never left raised by us.
  queue_->suppress_interrupts();
  t.set_status(t.status() | status::driver_ok);
  return !(t.status() & status::needs_reset);
}

std::size_t Rng::read(std::span<uint8_t> out, uint64_t deadline_ns, Clock now) {
  std::size_t wanted = std::min(out.size(), max_request), got = 0;
  while (got < wanted && !broken_) {
    if (!posted_) {
      Virtqueue::Segment segment{reinterpret_cast<uint64_t>(buffer_), uint32_t(wanted - got), true};
      if (!queue_->add({&segment, 1}, 0)) break;
      posted_ = true;
      if (queue_->publish()) transport_->notify(request_queue);
    }
    if (auto used = queue_->take_used()) {
      posted_ = false;
      if (!used->length_ok) {
        broken_ = true;  // claimed bytes it was never given
        break;
      }
      std::memcpy(out.data() + got, buffer_, used->length);
      got += used->length;
      continue;
    }
    if (now() >= deadline_ns) break;
    relax();
  }
  std::memset(buffer_, 0, sizeof buffer_);  // the copy in `out` is the only one
  return got;
}

}  // namespace keel::drivers::virtio
