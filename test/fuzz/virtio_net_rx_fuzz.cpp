// libFuzzer: virtio-net's receive path fed by a device that says anything
// (test/fuzz/run_virtio_rx.sh). The device is untrusted (decision 0093):
// num_buffers, used lengths, gso_type/gso_size and csum_start/offset come
// from the input. Every frame the driver hands on must lie within its
// packet, and a router's next steps on it (completing the partial checksum,
// cutting a coalesced segment in software) must stay in bounds.
//
// Input: the first byte picks the features offered; then frames, each a
// byte `pieces` (buffers the device fills, 1-8), a 12-byte header, then
// for each piece a 2-byte length and that many bytes (fewer at the end).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "drivers/test/fake_device.hpp"
#include "drivers/test/fake_os.hpp"
#include "drivers/virtio/net.hpp"
#include "drivers/virtio/net_header.hpp"
#include "drivers/virtio/net_receive.hpp"
#include "net/link/tcp_segmentation.hpp"

using namespace keel::drivers::virtio;
using namespace keel::drivers::virtio::fake;

namespace {

constexpr uint64_t optional_features[] = {net_feature::guest_csum, net_feature::guest_tso4,
                                          net_feature::guest_tso6, net_feature::mrg_rxbuf,
                                          feature::version_1};

void after_the_driver(net::Packet& p) {
  if (p.flags & net::Packet::segmentation_offload) {
    std::size_t bound = p.size();
    net::segment_tcp(p, [&](std::span<const uint8_t> s) {
      if (s.size() > bound) __builtin_trap();
    });
  }
  net::complete_partial_checksum(p);
}

}  // namespace

// The driver prints a line per device it sets up: not per input (libFuzzer
// reports on stderr).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::freopen("/dev/null", "w", stdout);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  auto t = std::make_unique<FakeTransport>();
  t->offered = net_feature::mac | net_feature::csum;
  for (std::size_t i = 0; i < std::size(optional_features); ++i)
    if (data[0] & (1u << i)) t->offered |= optional_features[i];
  t->is_legacy = !(t->offered & feature::version_1);
  t->max_queue_size = 64;
  FakeTransport* transport = t.get();
  auto nic = Net::create(std::move(t), 0, {.receive_segmentation = bool(data[0] & 0x80)});
  if (!nic) return 0;
  std::size_t delivered = 0;
  nic->set_receive([&](net::PacketPtr p) {
    ++delivered;
    after_the_driver(*p);
  });
  DeviceQueue dev{transport->queues[receive_queue]};
  std::size_t at = 1;
  while (at < size && dev.has_available()) {
    std::size_t pieces = 1 + data[at++] % 8;
    bool header_written = false;
    for (std::size_t i = 0; i < pieces && dev.has_available(); ++i) {
      uint16_t head = dev.take();
      Desc d = dev.desc()[head];
      auto* buffer = reinterpret_cast<uint8_t*>(d.address);
      uint32_t written = 0;
      if (!header_written) {
        std::size_t n = std::min<std::size_t>({sizeof(NetHeader), size - at, d.length});
        std::memcpy(buffer, data + at, n);
        at += n;
        written = uint32_t(n);
        header_written = true;
      }
      uint32_t length = 0;
      if (at + 2 <= size) {
        length = uint32_t(data[at] | data[at + 1] << 8);
        at += 2;
      }
      // Bytes the input has, then zeros; the used length may lie beyond
      // the buffer (the driver must refuse it).
      std::size_t copy = std::min<std::size_t>({length, size - at, d.length - written});
      std::memcpy(buffer + written, data + at, copy);
      at += copy;
      dev.complete(head, written + length);
    }
    event_handler();
  }
  if (delivered > nic->stats().rx_packets) __builtin_trap();
  return 0;
}
