// What the server fuzz targets (http_server_fuzz, https_server_fuzz) share: the input read as
// a TCP client's script. A record is an opcode and its bytes:
//   0x00 n [n bytes]   the client writes n bytes (what its send buffer takes)
//   0x01 t             t × 20 ms pass
//   0x02               the client shuts down (half-close)
//   0x04               the client starts reading (consumes all it holds and what comes)
// Other opcodes are the target's own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <net/tcp.hpp>

namespace keel::fuzz {

struct ClientScript {
  const uint8_t* in;
  const uint8_t* end;
  bool reading = false;  // 0x04 came: the client consumes what it receives

  bool done() const { return in >= end; }
  uint8_t next() { return in < end ? *in++ : 0; }

  // Plays one record on `client`, `step(ms)` moving time; returns -1 when the record was one
  // of the above, else its opcode for the target to play.
  template <class Step>
  int play(net::TcpConnection& client, Step&& step) {
    const uint8_t op = next();
    switch (op) {
      case 0x00: {
        const std::size_t n = std::min<std::size_t>(next(), std::size_t(end - in));
        (void)client.write(in, n);
        in += n;
        return -1;
      }
      case 0x01:
        step(20 * next());
        return -1;
      case 0x02:
        client.shutdown();
        return -1;
      case 0x04:
        reading = true;
        client.consumed(client.unconsumed());
        return -1;
      default:
        return op;
    }
  }
};

}  // namespace keel::fuzz
