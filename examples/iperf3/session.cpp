#include "session.hpp"

#include <chrono>
#include <cstdio>
#include <net/stack.hpp>
#include <os>

namespace iperf3 {
namespace {

// The bytes -R streams send: one block shared by every stream and handed
// to the stack without a copy (TcpConnection::write(TcpBuffer)).
constexpr std::size_t block_size = 128 * 1024;
const std::shared_ptr<const std::vector<uint8_t>>& block() {
  static const auto data = [] {
    auto v = std::make_shared<std::vector<uint8_t>>(block_size);
    for (std::size_t i = 0; i < v->size(); ++i) (*v)[i] = uint8_t(i * 131 + 7);
    return std::shared_ptr<const std::vector<uint8_t>>(std::move(v));
  }();
  return data;
}

uint64_t now_ns() { return uint64_t(std::chrono::nanoseconds(os::uptime()).count()); }

}  // namespace

Session::Session(net::TcpConnection control, std::string cookie)
    : control_(control), cookie_(std::move(cookie)) {}

void Session::begin(std::span<const uint8_t> rest) {
  auto self = shared_from_this();
  control_.on_read([self](std::span<const uint8_t> data) { self->on_control(data); });
  control_.on_close([self](net::TcpCloseReason) { self->finish(); });
  send_state(param_exchange);
  if (!rest.empty()) on_control(rest);
}

void Session::send_state(State state) {
  auto byte = uint8_t(state);
  control_.write(&byte, 1);
}

void Session::send_json(const nlohmann::json& message) {
  std::string text = message.dump();
  uint8_t length[length_size] = {uint8_t(text.size() >> 24), uint8_t(text.size() >> 16),
                                 uint8_t(text.size() >> 8), uint8_t(text.size())};
  control_.write(length, sizeof length);
  control_.write(text.data(), text.size());
}

// One length-prefixed JSON message from the input, once all of it is there.
bool Session::next_json(nlohmann::json& out) {
  if (input_.size() < length_size) return false;
  auto* p = reinterpret_cast<const uint8_t*>(input_.data());
  std::size_t length =
      std::size_t(p[0]) << 24 | std::size_t(p[1]) << 16 | std::size_t(p[2]) << 8 | p[3];
  if (length > max_json) {
    fail("control message too long");
    return false;
  }
  if (input_.size() < length_size + length) return false;
  out =
      nlohmann::json::parse(input_.begin() + length_size,
                            input_.begin() + std::ptrdiff_t(length_size + length), nullptr, false);
  input_.erase(0, length_size + length);
  if (out.is_discarded() || !out.is_object()) {
    fail("control message is not a JSON object");
    return false;
  }
  return true;
}

void Session::on_control(std::span<const uint8_t> data) {
  if (data.empty()) {  // the client closed the control connection
    finish();
    return;
  }
  input_.append(reinterpret_cast<const char*>(data.data()), data.size());
  nlohmann::json message;
  while (!input_.empty() && phase_ != Phase::finished) {
    switch (phase_) {
      case Phase::parameters:
        if (!next_json(message)) return;
        take_parameters(message);
        break;
      case Phase::results:
        if (!next_json(message)) return;  // the client's results: not needed
        send_results();
        break;
      case Phase::streams:
      case Phase::running:
      case Phase::display: {
        auto state = int8_t(input_[0]);
        input_.erase(0, 1);
        if (state == test_end && phase_ == Phase::running)
          end();
        else if (state == iperf_done || state == client_terminate)
          finish();
        break;
      }
      case Phase::finished:
        return;
    }
  }
}

void Session::take_parameters(const nlohmann::json& p) {
  if (p.value("udp", false) || p.value("sctp", false) || p.value("bidirectional", false)) {
    fail("only TCP tests, forward or reverse (-R), are served");
    return;
  }
  parallel_ = std::clamp<std::size_t>(p.value("parallel", 1), 1, 128);
  reverse_ = p.value("reverse", false);
  phase_ = Phase::streams;
  send_state(create_streams);
}

void Session::add_stream(net::TcpConnection connection) {
  streams_.push_back(Stream{connection, stream_id(streams_.size()), 0});
  std::size_t index = streams_.size() - 1;
  auto self = shared_from_this();
  connection.on_read([self, index](std::span<const uint8_t> data) {
    if (self->phase_ == Phase::running) self->streams_[index].bytes += data.size();
  });
  connection.on_writable([self, index] { self->pump(self->streams_[index]); });
  if (streams_.size() == parallel_) start();
}

void Session::start() {
  phase_ = Phase::running;
  send_state(test_start);
  send_state(test_running);
  started_ns_ = now_ns();
  if (reverse_) {
    for (Stream& s : streams_) pump(s);
  }
}

void Session::pump(Stream& s) {
  if (!reverse_ || phase_ != Phase::running) return;
  while (s.connection.write(net::TcpBuffer::from(block())) == net::Status::ok)
    s.bytes += block_size;
}

void Session::end() {
  ended_ns_ = now_ns();
  phase_ = Phase::results;
  // As iperf3's own server: the data connections close first. A client
  // draining a -R stream reads until the end of it (a blocking read of a
  // whole block), so the FIN is what lets it go on to the results.
  for (Stream& s : streams_) {
    s.retransmits = reverse_ ? s.connection.stats().retransmits : 0;
    s.connection.close();
  }
  send_state(exchange_results);
}

void Session::send_results() {
  double seconds = double(ended_ns_ - started_ns_) / 1e9;
  nlohmann::json streams = nlohmann::json::array();
  uint64_t total = 0;
  for (const Stream& s : streams_) {
    total += s.bytes;
    streams.push_back({{"id", s.id},
                       {"bytes", s.bytes},
                       {"retransmits", s.retransmits},
                       {"jitter", 0},
                       {"errors", 0},
                       {"omitted_errors", 0},
                       {"packets", 0},
                       {"omitted_packets", 0},
                       {"start_time", 0},
                       {"end_time", seconds}});
  }
  send_json({{"cpu_util_total", 0},
             {"cpu_util_user", 0},
             {"cpu_util_system", 0},
             {"sender_has_retransmits", reverse_ ? 1 : 0},
             {"congestion_used", "cubic"},
             {"streams", streams}});
  send_state(display_results);
  phase_ = Phase::display;
  std::printf("iperf3: %s test, %zu stream%s, %.2f s, %llu bytes, %.1f Mbit/s\n",
              reverse_ ? "reverse" : "forward", streams_.size(), streams_.size() == 1 ? "" : "s",
              seconds, static_cast<unsigned long long>(total),
              seconds > 0 ? double(total) * 8 / seconds / 1e6 : 0.0);
}

void Session::fail(const char* why) {
  std::printf("iperf3: %s\n", why);
  // SERVER_ERROR, then iperf3's error number and errno (none of ours).
  send_state(server_error);
  const uint8_t codes[8] = {};
  control_.write(codes, sizeof codes);
  finish();
}

void Session::finish() {
  if (phase_ == Phase::finished) return;
  phase_ = Phase::finished;
  for (Stream& s : streams_) s.connection.close();
  control_.close();
}

}  // namespace iperf3
