// EVENT_IDX (virtio 1.1, 2.6.7.2 and 2.6.10.2) against a device that follows
// the rule exactly, the way QEMU's split ring does: it moves avail_event as
// it pops, re-arms it and looks again before going idle, and interrupts only
// when used_event lies in [signalled, new). Driver and device take turns in
// a random order; whatever the order, no chain may be left waiting for a
// notification that never comes (issue 24: a transmit ring seen to stall
// under a flood with EVENT_IDX on).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "drivers/virtio/virtqueue.hpp"

using keel::drivers::virtio::Virtqueue;

namespace {

uint16_t load16(uint64_t address) { return *reinterpret_cast<volatile uint16_t*>(address); }
void store16(uint64_t address, uint16_t v) { *reinterpret_cast<volatile uint16_t*>(address) = v; }

bool need_event(uint16_t event, uint16_t new_index, uint16_t old_index) {
  return uint16_t(new_index - event - 1) < uint16_t(new_index - old_index);
}

// QEMU's virtio-net transmit side (hw/net/virtio-net.c, tx=bh), reduced to
// what the rings see: a kick schedules a flush of at most `burst` chains
// with notifications off; a short flush turns them on and looks again.
class ExactDevice {
 public:
  ExactDevice(Virtqueue& q, uint16_t burst) : q_(q), burst_(burst) {}

  uint16_t avail_idx() const { return load16(q_.available_address() + 2); }
  uint16_t used_event() const { return load16(q_.available_address() + 4 + 2 * q_.size()); }
  uint16_t used_idx() const { return load16(q_.used_address() + 2); }
  void set_avail_event(uint16_t v) { store16(q_.used_address() + 4 + 8 * q_.size(), v); }

  void kick() {
    ++kicks;
    if (scheduled_) return;  // the flush to come will see it
    scheduled_ = true;
    set_avail_event(avail_idx());  // notifications "off": QEMU moves it all the same
  }
  bool scheduled() const { return scheduled_; }
  // Runs the scheduled flush (QEMU's bottom half).
  void run() {
    if (!scheduled_) return;
    scheduled_ = false;
    if (flush() >= burst_) {
      scheduled_ = true;
      return;
    }
    set_avail_event(avail_idx());  // notifications on, then look again
    if (flush() > 0) scheduled_ = true;
  }
  // Completes at most `burst` chains.
  uint16_t flush() {
    uint16_t done = 0;
    while (done < burst_ && last_avail_ != avail_idx()) {
      uint16_t head = load16(q_.available_address() + 4 + 2 * (last_avail_ & (q_.size() - 1)));
      ++last_avail_;
      set_avail_event(last_avail_);  // as virtqueue_pop does with EVENT_IDX
      uint16_t u = used_idx();
      auto* ring = reinterpret_cast<volatile uint32_t*>(q_.used_address() + 4);
      ring[2 * (u & (q_.size() - 1))] = head;
      ring[2 * (u & (q_.size() - 1)) + 1] = 0;
      store16(q_.used_address() + 2, uint16_t(u + 1));
      // virtio_notify: the window since the last check, always advanced.
      uint16_t old = signalled_;
      signalled_ = uint16_t(u + 1);
      if (!signalled_valid_ || need_event(used_event(), signalled_, old)) ++interrupts;
      signalled_valid_ = true;
      ++done;
    }
    return done;
  }

  uint64_t kicks = 0, interrupts = 0;

 private:
  Virtqueue& q_;
  uint16_t burst_;
  uint16_t last_avail_ = 0, signalled_ = 0;
  bool signalled_valid_ = false;
  bool scheduled_ = false;
};

// The transmit side of the NIC driver (net_datapath.cpp) without timers:
// interrupts off except while the ring is full; a pending interrupt is
// handled by reaping. Returns false when stuck: a full ring, no interrupt
// coming and the device with nothing scheduled.
struct Sender {
  Virtqueue& q;
  ExactDevice& dev;
  uint64_t seen_interrupts = 0;
  bool waiting = false;
  uint64_t sent = 0;

  void reap() {
    while (q.take_used()) {
    }
  }
  void send(unsigned count) {
    reap();
    Virtqueue::Segment seg{0x1000, 64, false};
    unsigned queued = 0;
    while (queued < count && q.add({&seg, 1}, 0)) ++queued;
    sent += queued;
    if (queued < count && !waiting) {  // full: transmit_room() turned the interrupt on
      waiting = true;
      if (q.enable_interrupts()) interrupt();
    }
    if (queued && q.publish()) dev.kick();
  }
  void interrupt() {
    reap();
    if (waiting && q.free_descriptors() > 0) {
      waiting = false;
      q.suppress_interrupts();
    }
  }
  void poll_interrupt() {
    if (dev.interrupts != seen_interrupts) {
      seen_interrupts = dev.interrupts;
      interrupt();
    }
  }
};

void flood(uint16_t size, uint16_t burst, unsigned seed) {
  auto q = Virtqueue::create(1, size, true);
  ASSERT_TRUE(q);
  ExactDevice dev(*q, burst);
  Sender s{*q, dev};
  q->suppress_interrupts();  // as Net::init leaves the transmit queue
  std::mt19937 random(seed);
  for (int step = 0; step < 200000; ++step) {
    switch (random() % 3) {
      case 0:
        s.send(1 + random() % (size + 2));
        break;
      case 1:
        dev.run();
        break;
      case 2:
        s.poll_interrupt();
        break;
    }
    // Liveness: chains published, the device idle, and no kick owed it.
    if (!dev.scheduled() && dev.avail_idx() != dev.used_idx() && q->in_flight() > 0) {
      uint16_t pending = uint16_t(dev.avail_idx() - dev.used_idx());
      ASSERT_EQ(pending, 0) << "device idle with work published, seed " << seed << " step " << step
                            << " kicks " << dev.kicks;
    }
    // And a full ring waiting for an interrupt that will not come.
    if (s.waiting && !dev.scheduled() && dev.interrupts == s.seen_interrupts) {
      ASSERT_FALSE(q->has_used()) << "no interrupt for finished chains, seed " << seed << " step "
                                  << step;
    }
  }
  EXPECT_GT(s.sent, 100000u);
}

}  // namespace

TEST(VirtqueueEventIdx, FloodNeverLeavesTheDeviceIdleWithWork) {
  for (unsigned seed = 1; seed <= 20; ++seed) flood(8, 4, seed);
  for (unsigned seed = 1; seed <= 5; ++seed) flood(256, 256, seed);
}
