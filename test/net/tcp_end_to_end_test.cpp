// Two Keel stacks talking TCP over an in-memory link that loses, delays,
// reorders and duplicates frames (seeded, so every run is the same): a
// client sends 512 KiB, the server checks them and sends 512 KiB back,
// both close. Every combination of options and impairment must deliver
// every byte in order and end both connections cleanly; with TSO too (the
// NICs cut the stacks' 64 KiB segments as a device would, before the link
// loses or reorders them: docs/decisions/0092).
#include <deque>
#include <random>

#include "memory_nic.hpp"
#include "tcp_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

struct Impairment {
  double loss = 0, duplicate = 0, reorder = 0;
  std::chrono::milliseconds delay{2};
};

struct Case {
  const char* name;
  Impairment link;
  bool sack = true, timestamps = true;
  ::net::TcpCongestion congestion = ::net::TcpCongestion::cubic;
  bool tso = false;
};

class Side {
 public:
  Side(Mac mac, Ip address, bool tso) : nic(mac), stack(clock, test_stack_config()) {
    if (tso) nic.set_offloads({.tso4 = true});
    stack.add_interface(nic).configure(address, ::net::ip4::netmask_of(24), Ip{});
  }
  ManualClock clock;
  ::net::MemoryNic nic;
  ::net::Stack stack;
};

// Frames in flight one way, each due at a time.
class Wire {
 public:
  Wire(Impairment i, uint32_t seed) : impairment_(i), random_(seed) {}
  void carry(::net::MemoryNic& from, uint64_t now) {
    while (!from.transmitted.empty()) {
      Bytes f = from.pop();
      bool ip = f.size() > 14 && f[12] == 0x08 && f[13] == 0x00;
      if (ip && chance(impairment_.loss)) continue;
      uint64_t due = now + uint64_t(std::chrono::nanoseconds(impairment_.delay).count());
      if (ip && chance(impairment_.reorder)) due = now;  // overtakes the others
      if (ip && chance(impairment_.duplicate)) frames_.push_back({due, f});
      frames_.push_back({due, std::move(f)});
    }
  }
  void deliver(::net::MemoryNic& to, uint64_t now) {
    std::stable_sort(frames_.begin(), frames_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    while (!frames_.empty() && frames_.front().first <= now) {
      to.inject(frames_.front().second);
      frames_.pop_front();
    }
  }
  bool empty() const { return frames_.empty(); }

 private:
  bool chance(double p) { return p > 0 && std::uniform_real_distribution<>(0, 1)(random_) < p; }
  Impairment impairment_;
  std::mt19937 random_;
  std::deque<std::pair<uint64_t, Bytes>> frames_;
};

// Writes `data` as the send buffer takes it, then shuts down.
struct Sender {
  TcpConnection c;
  Bytes data;
  std::size_t sent = 0;
  void pump() {
    while (sent < data.size()) {
      auto n = c.write(std::span<const uint8_t>(data).subspan(sent));
      if (!n) return;
      sent += *n;
    }
    c.shutdown();
  }
};

class TcpEndToEnd : public ::testing::TestWithParam<Case> {};

TEST_P(TcpEndToEnd, EveryByteArrivesInOrderAndBothSidesClose) {
  const Case& k = GetParam();
  Side client(Mac{{2, 0, 0, 0, 0, 1}}, Ip{10, 0, 0, 1}, k.tso);
  Side server(Mac{{2, 0, 0, 0, 0, 2}}, Ip{10, 0, 0, 2}, k.tso);
  Wire to_server(k.link, 1), to_client(k.link, 2);
  TcpOptions o;
  o.sack = k.sack;
  o.timestamps = k.timestamps;
  o.congestion = k.congestion;
  o.send_buffer = o.receive_buffer = 128 * 1024;
  const Bytes upload = pattern(512 * 1024, 3), download = pattern(512 * 1024, 9);

  Bytes server_got, client_got;
  std::vector<TcpCloseReason> closes;
  Sender server_tx, client_tx{TcpConnection{}, upload};
  auto listener = *server.stack.tcp().listen(
      7,
      [&](TcpConnection c) {
        server_tx = Sender{c, download};
        c.on_read([&, c](std::span<const uint8_t> d) mutable {
          server_got.insert(server_got.end(), d.begin(), d.end());
          if (d.empty()) server_tx.pump();  // upload complete: answer
        });
        c.on_writable([&] { server_tx.pump(); });
        c.on_close([&](TcpCloseReason r) { closes.push_back(r); });
      },
      o);
  auto c = *client.stack.tcp().connect(
      {Ip{10, 0, 0, 2}, 7}, [&](TcpConnection) { client_tx.pump(); }, o);
  client_tx.c = c;
  c.on_read(
      [&](std::span<const uint8_t> d) { client_got.insert(client_got.end(), d.begin(), d.end()); });
  c.on_writable([&] { client_tx.pump(); });
  c.on_close([&](TcpCloseReason r) { closes.push_back(r); });

  for (int ms = 0; ms < 600'000 && closes.size() < 2; ++ms) {
    to_server.carry(client.nic, client.clock.now_ns());
    to_client.carry(server.nic, server.clock.now_ns());
    client.clock.advance(1ms);
    server.clock.advance(1ms);
    to_server.deliver(server.nic, server.clock.now_ns());
    to_client.deliver(client.nic, client.clock.now_ns());
  }
  ASSERT_EQ(server_got.size(), upload.size());
  EXPECT_TRUE(server_got == upload);
  ASSERT_EQ(client_got.size(), download.size());
  EXPECT_TRUE(client_got == download);
  EXPECT_EQ(closes, (std::vector<TcpCloseReason>{TcpCloseReason::closed, TcpCloseReason::closed}));
  if (k.link.loss > 0) EXPECT_GT(client.stack.counters().tcp.retransmits, 0u);
  for (const Side* side : {&client, &server}) {
    EXPECT_EQ(side->nic.segmented_frames > 0, k.tso);
    EXPECT_EQ(side->nic.largest_frame > 1514, k.tso);
    EXPECT_EQ(side->nic.stats().tx_dropped, 0u);
  }
  EXPECT_EQ(client.stack.tcp().memory_used(), 0u);
  EXPECT_EQ(server.stack.tcp().memory_used(), 0u);
  listener.close();
}

INSTANTIATE_TEST_SUITE_P(
    Links, TcpEndToEnd,
    ::testing::Values(
        Case{"clean", {}}, Case{"loss1", {.loss = 0.01}}, Case{"loss5", {.loss = 0.05}},
        Case{"loss5_newreno_nosack", {.loss = 0.05}, false, true, ::net::TcpCongestion::newreno},
        Case{"loss5_no_timestamps", {.loss = 0.05}, true, false},
        Case{"delay20_loss1", {.loss = 0.01, .delay = 20ms}},
        Case{"reorder", {.reorder = 0.05, .delay = 5ms}}, Case{"duplicate", {.duplicate = 0.05}},
        Case{"everything", {.loss = 0.02, .duplicate = 0.02, .reorder = 0.02, .delay = 10ms}},
        Case{"tso_clean", {}, true, true, ::net::TcpCongestion::cubic, true},
        Case{"tso_loss5", {.loss = 0.05}, true, true, ::net::TcpCongestion::cubic, true},
        Case{"tso_loss5_newreno_nosack",
             {.loss = 0.05},
             false,
             true,
             ::net::TcpCongestion::newreno,
             true},
        Case{"tso_everything",
             {.loss = 0.02, .duplicate = 0.02, .reorder = 0.02, .delay = 10ms},
             true,
             true,
             ::net::TcpCongestion::cubic,
             true}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace keel::test
