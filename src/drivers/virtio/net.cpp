// virtio-net: device set-up and feature negotiation (virtio 1.1, 3.1, 5.1.5).
// The data path is in net_datapath.cpp.
#include "net.hpp"

#include <algorithm>
#include <cstdio>
#include <kernel/events.hpp>
#include <kernel/timers.hpp>
#include <os>

#include "net_header.hpp"
#include "net_receive.hpp"

namespace keel::drivers::virtio {
namespace {

// Queue sizes we ask for: QEMU offers 256, and a larger ring only holds
// more buffers hostage. Legacy PCI devices fix the size themselves.
constexpr uint16_t wanted_queue_size = 256;
// Buffers beyond the rings: what the stack holds (its transmit queue, the
// ARP queue, replies in flight). Small images get fewer: the pool takes at
// most a sixteenth of memory (and at least enough for a small ring).
constexpr std::size_t extra_buffers = 384;
constexpr std::size_t pool_share_of_memory = 16;
constexpr std::size_t min_pool_buffers = 128;
// The receive ring holds at most half the pool: the rest is for what the
// stack sends from fresh buffers (ARP replies and requests, UDP answers,
// ICMP errors) and holds (the ARP queue). A ring that took every buffer left
// none to answer with, and a small guest went deaf (docs/decisions/0090).
constexpr std::size_t rx_share_of_pool = 2;
// Without a usable interrupt, look at the rings this often.
constexpr auto poll_period = std::chrono::milliseconds(1);

constexpr uint64_t wanted_features =
    net_feature::csum | net_feature::guest_csum | net_feature::host_tso4 | net_feature::host_tso6 |
    net_feature::mac | feature::ring_event_idx | feature::version_1 | feature::any_layout;
// 5.1.3.1: TSO only with CSUM (the device completes each segment's checksum).
constexpr uint64_t needs_csum = net_feature::host_tso4 | net_feature::host_tso6;
// Coalesced segments in: GUEST_TSO4/6 need GUEST_CSUM (5.1.3.1), and we take
// them only with mergeable buffers (without, every receive buffer would have
// to hold 64 KiB, 5.1.6.3.1); MRG_RXBUF only for them.
constexpr uint64_t receive_segmentation =
    net_feature::guest_tso4 | net_feature::guest_tso6 | net_feature::mrg_rxbuf;
constexpr uint64_t guest_tso = net_feature::guest_tso4 | net_feature::guest_tso6;

}  // namespace

Net::Net(std::unique_ptr<Transport> transport, int number, Options options)
    : transport_(std::move(transport)), number_(number), options_(options) {}

Net::~Net() {
  transport_->reset();  // the device lets go of every buffer
  if (event_ >= 0) os::Events::subscribe(event_, {});
  if (refill_timer_) os::Timers::stop(refill_timer_);
  if (reap_timer_) os::Timers::stop(reap_timer_);
}

std::unique_ptr<Net> Net::create(std::unique_ptr<Transport> transport, int number,
                                 Options options) {
  std::unique_ptr<Net> nic(new Net(std::move(transport), number, options));
  if (!nic->init()) {
    nic->transport_->set_status(status::failed);
    return nullptr;
  }
  return nic;
}

bool Net::negotiate() {
  Transport& t = *transport_;
  t.reset();
  t.set_status(status::acknowledge);
  t.set_status(status::acknowledge | status::driver);
  uint64_t offered = t.device_features();
  if (!t.legacy() && !(offered & feature::version_1)) {
    std::printf("%s: %s offers no VIRTIO_F_VERSION_1\n", name().c_str(), t.describe().c_str());
    return false;
  }
  uint64_t wanted = wanted_features | (options_.receive_segmentation ? receive_segmentation : 0);
  features_ = offered & wanted;
  if (!(features_ & net_feature::csum)) features_ &= ~needs_csum;
  if (!(features_ & net_feature::guest_csum) || !(features_ & net_feature::mrg_rxbuf))
    features_ &= ~guest_tso;
  if (!(features_ & guest_tso)) features_ &= ~net_feature::mrg_rxbuf;
  if (!t.legacy()) features_ &= ~feature::any_layout;  // implied by VERSION_1
  t.set_driver_features(features_);
  if (!t.legacy()) {
    t.set_status(status::acknowledge | status::driver | status::features_ok);
    if (!(t.status() & status::features_ok)) {
      std::printf("%s: device refused features %#llx\n", name().c_str(),
                  static_cast<unsigned long long>(features_));
      return false;
    }
  }
  // 5.1.6: the header has num_buffers only with VERSION_1 or MRG_RXBUF.
  header_size_ = (features_ & (feature::version_1 | net_feature::mrg_rxbuf)) ? sizeof(NetHeader)
                                                                             : legacy_header_size;
  return true;
}

bool Net::init() {
  if (!negotiate()) return false;
  Transport& t = *transport_;
  if (features_ & net_feature::mac) {
    for (uint32_t i = 0; i < 6; ++i) mac_.bytes[i] = t.config8(net_config_mac + i);
  } else {
    // No MAC from the device: a locally administered unicast one (IEEE 802 U/L bit).
    mac_ = {{0x02, 0x4b, 0x45, 0x45, 0x4c, uint8_t(number_)}};
  }

  event_ = os::Events::allocate([this] { handle_event(); });
  if (event_ < 0) {
    std::printf("%s: no free event\n", name().c_str());
    return false;
  }
  bool interrupt = t.setup_interrupt(event_);

  bool event_idx = features_ & feature::ring_event_idx;
  uint16_t sizes[2];
  for (uint16_t q = 0; q < 2; ++q) {
    uint16_t max = t.queue_max_size(q);
    sizes[q] = t.queue_size_fixed() || max < wanted_queue_size ? max : wanted_queue_size;
    // A size that is not a power of two (allowed for modern devices):
    // round down, Virtqueue wants one.
    while (sizes[q] & (sizes[q] - 1)) sizes[q] &= uint16_t(sizes[q] - 1);
    auto queue = Virtqueue::create(q, sizes[q], event_idx);
    if (!queue || !t.setup_queue(*queue)) {
      std::printf("%s: cannot set up queue %u (size %u of %u)\n", name().c_str(), q, sizes[q], max);
      return false;
    }
    (q == receive_queue ? rx_ : tx_) = std::move(queue);
  }
  std::size_t wanted = std::size_t(rx_->size()) + tx_->size() + extra_buffers;
  std::size_t affordable =
      os::total_memory() / pool_share_of_memory / net::Packet::default_buffer_size;
  std::size_t buffers = std::clamp(affordable, min_pool_buffers, wanted);
  pool_ = std::make_unique<net::PacketPool>(buffers);
  rx_fill_ = uint16_t(std::min<std::size_t>(rx_->size(), buffers / rx_share_of_pool));
  rx_buffer_length_ = pool_->buffer_size() - (rx_frame_offset - header_size_);
  if (features_ & net_feature::mrg_rxbuf) {
    // 5.1.6.4: a frame takes as many buffers as it needs; more than the
    // largest frame needs is a lying device.
    uint32_t most = (header_size_ + max_received_frame + rx_buffer_length_ - 1) / rx_buffer_length_;
    rx_max_buffers_ = uint16_t(most);
    rx_pieces_.reserve(most);
    // QEMU waits until the ring holds a whole frame: a ring that cannot
    // would stop receiving for good.
    if (rx_fill_ < most && rx_->size() >= most) {
      rx_fill_ = uint16_t(most);
    } else if (rx_fill_ < most) {
      std::printf("%s: a %u-entry receive ring cannot hold a 64 KiB segment (%u buffers)\n",
                  name().c_str(), rx_->size(), most);
    }
  }
  rx_slots_.resize(rx_->size());
  tx_slots_.resize(tx_->size());
  for (uint32_t i = rx_->size(); i-- > 0;) rx_free_.push_back(i);
  for (uint32_t i = tx_->size(); i-- > 0;) tx_free_.push_back(i);

  t.set_status(t.status() | status::driver_ok);
  if (t.status() & status::needs_reset) {
    std::printf("%s: device needs reset after set-up\n", name().c_str());
    return false;
  }
  tx_->suppress_interrupts();  // only while the ring is full (transmit_room)
  reap_timer_ = os::Timers::create([this](os::Timers::id_t) { on_reap_timer(); });
  refill_rx();
  if (!interrupt) {
    std::printf("%s: no interrupt, polling every %lld ms\n", name().c_str(),
                static_cast<long long>(poll_period.count()));
    os::Timers::periodic(poll_period,
                         [event = event_](os::Timers::id_t) { os::Events::trigger(event); });
  }
  std::printf("%s: %s, mac %s, features %#llx, queues %u/%u\n", name().c_str(),
              t.describe().c_str(), mac_.to_string().c_str(),
              static_cast<unsigned long long>(features_), rx_->size(), tx_->size());
  // A line interrupt raised before it was routed left no edge: look once.
  os::Events::trigger(event_);
  return true;
}

net::Nic::Offloads Net::offloads() const {
  return {.tx_checksum = bool(features_ & net_feature::csum),
          .rx_checksum = bool(features_ & net_feature::guest_csum),
          .tso4 = bool(features_ & net_feature::host_tso4),
          .tso6 = bool(features_ & net_feature::host_tso6),
          .rx_segmentation = bool(features_ & guest_tso)};
}

std::string Net::name() const { return "virtio-net" + std::to_string(number_); }

Net::DriverStats Net::driver_stats() const {
  DriverStats s = driver_;
  if (rx_) s.rx_queue = rx_->stats();
  if (tx_) s.tx_queue = tx_->stats();
  return s;
}

}  // namespace keel::drivers::virtio
