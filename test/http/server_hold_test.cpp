// A transport that holds the client's input for the server's own work (a TLS handshake waiting
// for its turn, decision 0107): that time does not count against the client's header deadline,
// and the deadline starts afresh when the hold ends.
#include <gtest/gtest.h>

#include <keel/http/transport.hpp>
#include <memory>

#include "server_harness.hpp"

namespace keel::http::test_harness {
namespace {

// The plain stream, with a hold the test starts and ends.
class HoldingTransport final : public Transport {
 public:
  explicit HoldingTransport(::net::TcpStream stream) : plain_(plain_transport(stream)) {}
  void hold(bool held) {
    if (on_hold_) on_hold_(held);
  }

  void on_data(DataHandler h) override { plain_->on_data(std::move(h)); }
  void on_drain(EventHandler h) override { plain_->on_drain(std::move(h)); }
  void on_end(EventHandler h) override { plain_->on_end(std::move(h)); }
  // The hold handler holds the server's connection, as the others do: it goes when they go.
  void on_close(EventHandler h) override {
    plain_->on_close([this, h = std::move(h)] {
      on_hold_ = nullptr;
      h();
    });
  }
  void on_hold(HoldHandler h) override { on_hold_ = std::move(h); }
  void start() override { plain_->start(); }
  ::net::Status write(std::span<const uint8_t> d) override { return plain_->write(d); }
  ::net::Status write_static(std::span<const uint8_t> d) override {
    return plain_->write_static(d);
  }
  bool writable() const override { return plain_->writable(); }
  std::size_t send_space() const override { return plain_->send_space(); }
  ::net::Endpoint remote() const override { return plain_->remote(); }
  ::net::Status resume() override { return plain_->resume(); }
  ::net::Status shutdown() override { return plain_->shutdown(); }
  ::net::Status close() override {
    on_hold_ = nullptr;
    return plain_->close();
  }
  ::net::Status abort() override {
    on_hold_ = nullptr;
    return plain_->abort();
  }

 private:
  std::shared_ptr<Transport> plain_;
  HoldHandler on_hold_;
};

struct HoldHarness {
  HoldHarness()
      : h(test_options(), [this](::net::TcpStream s) {
          last = std::make_shared<HoldingTransport>(s);
          return last;
        }) {}
  Harness h;
  std::shared_ptr<HoldingTransport> last;
};

TEST(HttpServerHold, TimeHeldByTheServerDoesNotCountAgainstTheClient) {
  HoldHarness t;
  Client c(t.h);
  ASSERT_TRUE(t.h.run_until([&] { return t.last != nullptr; }));
  t.h.run_for(500ms);
  t.last->hold(true);
  t.h.run_for(10s);  // five header timeouts (2 s) while the server holds it
  EXPECT_FALSE(c.ended || c.closed.has_value());
  t.last->hold(false);
  t.h.run_for(1900ms);  // a whole header timeout from here, not what was left
  EXPECT_FALSE(c.ended || c.closed.has_value());
  c.send(get_home);
  ASSERT_TRUE(c.has(1));
  EXPECT_EQ(c.statuses(), std::vector<int>{200});
  EXPECT_EQ(t.h.server.counters().idle_timeouts, 0u);
}

TEST(HttpServerHold, AfterTheHoldTheClientHasOneHeaderTimeout) {
  HoldHarness t;
  Client c(t.h);
  ASSERT_TRUE(t.h.run_until([&] { return t.last != nullptr; }));
  t.last->hold(true);
  t.h.run_for(3s);
  t.last->hold(false);
  t.h.run_for(1900ms);
  EXPECT_FALSE(c.ended || c.closed.has_value());
  ASSERT_TRUE(t.h.run_until([&] { return c.ended || c.closed.has_value(); }, 200ms));  // silent
  EXPECT_TRUE(c.got.empty());
  EXPECT_EQ(t.h.server.counters().idle_timeouts, 1u);
}

}  // namespace
}  // namespace keel::http::test_harness
