// One iperf3 test: its control connection, its data streams, and the
// protocol's steps (protocol.hpp) from the parameters to the results.
#pragma once
#include <cstdint>
#include <memory>
#include <net/tcp.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "protocol.hpp"

namespace iperf3 {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(net::TcpConnection control, std::string cookie);

  const std::string& cookie() const { return cookie_; }
  // The client may still open data streams.
  bool takes_streams() const { return phase_ == Phase::streams; }
  bool finished() const { return phase_ == Phase::finished; }

  // Starts the protocol; `rest`: what came after the cookie.
  void begin(std::span<const uint8_t> rest);
  // A data connection that sent this test's cookie.
  void add_stream(net::TcpConnection connection);

 private:
  enum class Phase { parameters, streams, running, results, display, finished };
  struct Stream {
    net::TcpConnection connection;
    int id = 0;
    uint64_t bytes = 0;
    uint64_t retransmits = 0;
  };

  void on_control(std::span<const uint8_t> data);
  bool next_json(nlohmann::json& out);
  void take_parameters(const nlohmann::json& parameters);
  void start();
  void pump(Stream& stream);
  void end();
  void send_results();
  void fail(const char* why);
  void finish();
  void send_state(State state);
  void send_json(const nlohmann::json& message);

  net::TcpConnection control_;
  std::string cookie_;
  Phase phase_ = Phase::parameters;
  std::string input_;  // control bytes not yet parsed
  std::vector<Stream> streams_;
  std::size_t parallel_ = 1;
  bool reverse_ = false;
  uint64_t started_ns_ = 0, ended_ns_ = 0;
};

}  // namespace iperf3
