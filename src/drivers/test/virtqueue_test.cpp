// The test plays the device: it reads the available ring and writes the
// used ring the way a device would, and also the ways a broken one would.
#include "drivers/virtio/virtqueue.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "drivers/test/fake_device.hpp"

using keel::drivers::virtio::Virtqueue;
using keel::drivers::virtio::fake::Desc;
using keel::drivers::virtio::fake::DeviceQueue;

TEST(Virtqueue, LayoutIsLegacyCompatible) {
  auto q = Virtqueue::create(0, 256, false);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->descriptor_address() % 4096, 0u);
  EXPECT_EQ(q->available_address(), q->descriptor_address() + 16 * 256);
  EXPECT_EQ(q->used_address() % 4096, 0u);
  EXPECT_GE(q->used_address(), q->available_address() + 6 + 2 * 256);
  EXPECT_FALSE(Virtqueue::create(0, 3, false));
  EXPECT_FALSE(Virtqueue::create(0, 0, false));
}

TEST(Virtqueue, ChainRoundTrip) {
  auto q = Virtqueue::create(1, 8, false);
  DeviceQueue dev{q.get()};
  Virtqueue::Segment segs[] = {{0x1000, 12, false}, {0x2000, 100, true}, {0x3000, 50, true}};
  ASSERT_TRUE(q->add(segs, 77));
  EXPECT_EQ(q->free_descriptors(), 5);
  EXPECT_TRUE(q->publish());
  EXPECT_FALSE(q->publish());  // nothing new
  ASSERT_EQ(dev.avail()[1], 1);
  uint16_t head = dev.take();
  Desc* d = dev.desc();
  EXPECT_EQ(d[head].address, 0x1000u);
  EXPECT_EQ(d[head].flags, Virtqueue::desc_f_next);
  uint16_t second = d[head].next;
  EXPECT_EQ(d[second].flags, Virtqueue::desc_f_next | Virtqueue::desc_f_write);
  EXPECT_EQ(d[d[second].next].flags, Virtqueue::desc_f_write);
  EXPECT_FALSE(q->take_used());
  dev.complete(head, 150);
  auto c = q->take_used();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->token, 77u);
  EXPECT_EQ(c->length, 150u);
  EXPECT_TRUE(c->length_ok);
  EXPECT_EQ(q->free_descriptors(), 8);
  EXPECT_EQ(q->in_flight(), 0);
}

TEST(Virtqueue, FullQueueRefusesAndWrapsAround) {
  auto q = Virtqueue::create(0, 4, false);
  DeviceQueue dev{q.get()};
  Virtqueue::Segment seg{0x1000, 64, true};
  for (int round = 0; round < 40000; ++round) {  // past the 16-bit index wrap
    for (uint32_t t = 0; t < 4; ++t) ASSERT_TRUE(q->add({&seg, 1}, t));
    ASSERT_FALSE(q->add({&seg, 1}, 9));
    q->publish();
    for (int i = 0; i < 4; ++i) dev.complete(dev.take(), 10);
    for (uint32_t t = 0; t < 4; ++t) {
      auto c = q->take_used();
      ASSERT_TRUE(c);
      EXPECT_EQ(c->token, t);
    }
    ASSERT_FALSE(q->take_used());
  }
}

TEST(Virtqueue, BogusIdsAndLengthsAreCountedNotTrusted) {
  auto q = Virtqueue::create(0, 8, false);
  DeviceQueue dev{q.get()};
  Virtqueue::Segment seg{0x1000, 64, true};
  ASSERT_TRUE(q->add({&seg, 1}, 5));
  q->publish();
  uint16_t head = dev.take();
  dev.complete(1000, 10);      // out of range
  dev.complete(head ^ 1, 10);  // in range, not in flight
  dev.complete(head, 65);      // longer than the buffer
  auto c = q->take_used();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->token, 5u);
  EXPECT_FALSE(c->length_ok);
  EXPECT_EQ(c->length, 0u);
  EXPECT_EQ(q->stats().bad_id, 2u);
  EXPECT_EQ(q->stats().bad_length, 1u);
  // The same head completed twice: the second is not in flight any more.
  dev.complete(head, 10);
  EXPECT_FALSE(q->take_used());
  EXPECT_EQ(q->free_descriptors(), 8);
}

TEST(Virtqueue, UsedIndexRunningAheadIsIgnored) {
  auto q = Virtqueue::create(0, 8, false);
  DeviceQueue dev{q.get()};
  Virtqueue::Segment seg{0x1000, 64, true};
  ASSERT_TRUE(q->add({&seg, 1}, 1));
  q->publish();
  dev.used()[1] = 200;  // claims 200 completions in a ring of 8
  EXPECT_FALSE(q->take_used());
  EXPECT_EQ(q->stats().bad_index, 1u);
}

TEST(Virtqueue, NotificationSuppressionByFlags) {
  auto q = Virtqueue::create(0, 8, false);
  DeviceQueue dev{q.get()};
  Virtqueue::Segment seg{0x1000, 64, true};
  dev.used()[0] = Virtqueue::used_f_no_notify;
  ASSERT_TRUE(q->add({&seg, 1}, 1));
  EXPECT_FALSE(q->publish());
  dev.used()[0] = 0;
  ASSERT_TRUE(q->add({&seg, 1}, 2));
  EXPECT_TRUE(q->publish());
  q->suppress_interrupts();
  EXPECT_EQ(dev.avail()[0], Virtqueue::avail_f_no_interrupt);
  dev.complete(dev.take(), 1);
  EXPECT_TRUE(q->enable_interrupts());  // a completion slipped in
  EXPECT_EQ(dev.avail()[0], 0);
}

TEST(Virtqueue, EventIndex) {
  auto q = Virtqueue::create(0, 8, true);
  DeviceQueue dev{q.get()};
  Virtqueue::Segment seg{0x1000, 64, true};
  uint16_t* avail_event = reinterpret_cast<uint16_t*>(q->used_address() + 4 + 8 * 8);
  uint16_t* used_event = &dev.avail()[2 + 8];
  *avail_event = 1;  // device: notify me when avail idx passes 1
  ASSERT_TRUE(q->add({&seg, 1}, 1));
  EXPECT_FALSE(q->publish());  // idx 0 -> 1: event 1 not crossed
  ASSERT_TRUE(q->add({&seg, 1}, 2));
  EXPECT_TRUE(q->publish());  // 1 -> 2 crosses it
  dev.complete(dev.take(), 1);
  EXPECT_EQ(*used_event, 0);
  ASSERT_TRUE(q->take_used());
  EXPECT_EQ(*used_event, 1);  // interrupt me at the next completion
  q->suppress_interrupts();
  EXPECT_EQ(*used_event, 0);  // one behind: no interrupt until a wrap
}
