// iperf3's control protocol, as the standard `iperf3 -c` client speaks it
// (learned from esnet/iperf's documentation and sources; our own code):
//
//   every connection to port 5201 starts with the test's cookie: 36
//   characters and a NUL (37 bytes). The first of a test is the control
//   connection; the server drives it with one-byte states:
//     server: PARAM_EXCHANGE      client: parameters (4-byte big-endian length + JSON)
//     server: CREATE_STREAMS      client: opens -P data connections, each sends the cookie
//     server: TEST_START, TEST_RUNNING   data flows (client → server, or server → client with -R)
//     client: TEST_END            (its timer ran out)
//     server: EXCHANGE_RESULTS    client: its results JSON; server: its own
//     server: DISPLAY_RESULTS     client: IPERF_DONE, and closes
//   A second client while a test runs gets ACCESS_DENIED.
// Stream ids are 1, 3, 4, 5, ... (iperf3 numbers them so; results name them).
#pragma once
#include <cstddef>
#include <cstdint>

namespace iperf3 {

inline constexpr uint16_t port = 5201;
inline constexpr std::size_t cookie_size = 37;
inline constexpr std::size_t length_size = 4;  // of a JSON message
inline constexpr std::size_t max_json = 64 * 1024;

enum State : int8_t {
  test_start = 1,
  test_running = 2,
  test_end = 4,
  param_exchange = 9,
  create_streams = 10,
  server_terminate = 11,
  client_terminate = 12,
  exchange_results = 13,
  display_results = 14,
  iperf_done = 16,
  access_denied = -1,
  server_error = -2,
};

// The id iperf3 gives the n-th stream (from 0).
inline int stream_id(std::size_t n) { return n == 0 ? 1 : int(n) + 2; }

}  // namespace iperf3
