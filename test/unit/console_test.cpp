// The console ring (src/kernel/console.cpp) against a fake device that takes
// what the test allows: a full ring drops whole writes and counts them, the
// gap is reported by one line at the place it happened, and after
// wait_when_full() (panic, exit) nothing is dropped.
#include "kernel/console.hpp"

#include <gtest/gtest.h>

#include <string>

#include "kernel/platform.hpp"

namespace {
std::string device;           // what reached the device
std::size_t device_room = 0;  // what it takes without waiting
}  // namespace

namespace keel::platform {
std::size_t console_try_write(const char* data, std::size_t size) {
  std::size_t n = size < device_room ? size : device_room;
  device.append(data, n);
  device_room -= n;
  return n;
}
void console_write_all(const char* data, std::size_t size) { device.append(data, size); }
}  // namespace keel::platform

namespace {

namespace console = keel::console;
constexpr std::size_t ring = 64 * 1024;

std::string line(int i) {
  char text[64];
  std::snprintf(text, sizeof text, "line %05d of the console test\n", i);
  return text;
}

void print(int i) {
  std::string s = line(i);
  console::write(s.data(), s.size());
}

// One test: the console is a process-wide singleton, so the steps share it.
TEST(Console, FullRingDropsWholeWritesAndReportsTheGapInPlace) {
  std::string tapped;
  static std::string* tap_target = &tapped;
  console::set_tap([](const char* d, std::size_t n) { tap_target->append(d, n); });

  device_room = 100;       // the device takes a little, then nothing
  const int lines = 3000;  // 123 KB: twice the ring
  for (int i = 0; i < lines; ++i) print(i);
  const auto& c = console::counters();
  EXPECT_GT(c.dropped_writes, 0u);
  EXPECT_EQ(c.dropped_bytes, c.dropped_writes * line(0).size());
  EXPECT_EQ(c.written_bytes + c.dropped_bytes, lines * line(0).size());
  EXPECT_LE(c.written_bytes - device.size(), ring);  // the rest waits in the ring
  EXPECT_EQ(tapped.size(), lines * line(0).size());  // the tap sees every write
  const uint64_t dropped = c.dropped_bytes;

  // A short write does not pass the gap while the ring is still full.
  console::write("x\n", 2);
  EXPECT_EQ(c.dropped_bytes, dropped + 2);

  device_room = SIZE_MAX;  // the device catches up: the notice, then what follows
  EXPECT_TRUE(console::drain());
  console::write("after\n", 6);
  const std::string notice = "Keel: console dropped " + std::to_string(dropped + 2) + " bytes (" +
                             std::to_string(c.dropped_writes) + " writes)";
  auto at = device.find(notice);
  ASSERT_NE(at, std::string::npos) << device.substr(device.size() - 200);
  // Kept lines are whole and in order, the notice follows the last kept one.
  const std::size_t n = line(0).size();
  const std::size_t kept = c.written_bytes / n;
  for (std::size_t i = 0; i < kept; ++i) ASSERT_EQ(device.compare(i * n, n, line(int(i))), 0) << i;
  EXPECT_EQ(at, kept * n);
  EXPECT_EQ(device.substr(device.size() - 6), "after\n");

  // Panic or exit: a full ring waits, nothing is lost.
  device.clear();
  device_room = 0;
  console::wait_when_full();
  const uint64_t dropped_before = c.dropped_writes;
  for (int i = 0; i < lines; ++i) print(i);
  console::flush();
  EXPECT_EQ(c.dropped_writes, dropped_before);
  ASSERT_EQ(device.size(), lines * line(0).size());
  EXPECT_EQ(device.compare(0, line(0).size(), line(0)), 0);
  console::set_tap(nullptr);
}

}  // namespace
