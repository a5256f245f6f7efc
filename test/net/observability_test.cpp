// RFC 5424 messages and the syslog= setting (src/net/syslog/message.cpp), and
// the Prometheus text format writer (src/net/metrics/exposition.cpp).
#include <gtest/gtest.h>

#include <net/metrics.hpp>
#include <net/syslog.hpp>

#include "stack_fixture.hpp"

namespace {

namespace syslog = net::syslog;
namespace metrics = net::metrics;

TEST(Syslog, FormatsTheRfc5424Header) {
  syslog::Message m;
  m.unix_ns = 1'795'773'600'123'456'789ull;
  m.hostname = "10.0.0.2";
  m.text = "hello\n";
  EXPECT_EQ(syslog::format(m), "<30>1 2026-11-27T10:00:00.123456Z 10.0.0.2 keel - - - hello");
  // No clock, no host: NILVALUE; user.err is PRI 11; no text: no MSG.
  syslog::Message bare;
  bare.facility = syslog::Facility::user;
  bare.severity = syslog::Severity::err;
  bare.app_name = "a b\x7f";  // only PRINTUSASCII in header fields
  EXPECT_EQ(syslog::format(bare), "<11>1 - - a_b_ - - -");
}

TEST(Syslog, CutsLongLinesToOneMessage) {
  syslog::Message m;
  std::string line(5000, 'x');
  m.text = line;
  EXPECT_EQ(syslog::format(m).size(), syslog::max_message);
}

TEST(Syslog, ParsesTheCollector) {
  auto e = syslog::parse_collector("10.0.0.1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->to_string(), "10.0.0.1:514");
  EXPECT_EQ(syslog::parse_collector("10.0.0.1:5514")->to_string(), "10.0.0.1:5514");
  EXPECT_EQ(syslog::parse_collector("fd00::1")->to_string(), "[fd00::1]:514");
  EXPECT_EQ(syslog::parse_collector("[fd00::1]:5514")->to_string(), "[fd00::1]:5514");
  for (const char* bad : {"", "host", "10.0.0.1:", "10.0.0.1:0", "10.0.0.1:65536", "0.0.0.0",
                          "[fd00::1]", "10.0.0.1:514x", "::"})
    EXPECT_FALSE(syslog::parse_collector(bad)) << bad;
}

TEST(Metrics, WritesTheTextFormat) {
  std::string out;
  metrics::Writer w(out);
  w.family("a_total", "line\\one\ntwo", metrics::Type::counter);
  w.sample(1);
  w.sample(2, "k", "say \"hi\"\\\n");
  w.family("9bad", "skipped", metrics::Type::gauge);
  w.sample(3);
  w.family("g", "a gauge", metrics::Type::gauge);
  w.sample(4, "bad-label", "x");  // an invalid label name: the sample goes without it
  EXPECT_EQ(out,
            "# HELP a_total line\\\\one\\ntwo\n# TYPE a_total counter\na_total 1\n"
            "a_total{k=\"say \\\"hi\\\"\\\\\\n\"} 2\n"
            "# HELP g a gauge\n# TYPE g gauge\ng 4\n");
  EXPECT_EQ(metrics::metric_name("keel_net", "ip4.drop_bad-x"), "keel_net_ip4_drop_bad_x");
}

class MetricsStack : public keel::test::StackTest {};

TEST_F(MetricsStack, RendersTheStackCountersOncePerFamily) {
  std::string out;
  metrics::render(stack, out);
  EXPECT_NE(out.find("# TYPE keel_net_udp_rx_total counter\nkeel_net_udp_rx_total 0\n"),
            std::string::npos);
  EXPECT_NE(out.find("keel_net_link_arp_rx_requests_total{interface=\"0\"} 1\n"),
            std::string::npos);
  std::size_t types = 0;
  for (std::size_t at = 0; (at = out.find("# TYPE ", at)) != std::string::npos; ++at) ++types;
  net::StackCounters s;
  std::size_t stack_counters = 0;
  s.for_each([&](std::string_view, uint64_t) { ++stack_counters; });
  net::InterfaceCounters i;
  i.for_each([&](std::string_view, uint64_t) { ++stack_counters; });
  EXPECT_EQ(types, stack_counters);
}

}  // namespace
