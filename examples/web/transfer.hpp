// Large transfers for tests and measurements (test/http/test_web_scale.py),
// off unless web_transfer=1: neither route keeps more than a piece of the
// content in memory, however large it is.
//
//   GET  /api/bytes/:n   200, n bytes of a deterministic stream (below), as
//                        the client takes them (the response's back-pressure)
//   POST /api/sha256     200 {"bytes": n, "sha256": "<hex>"} of the request's
//                        content, hashed as it arrives (never buffered)
//
// The stream: 64 KiB blocks; block k is the 8 bytes of k (little-endian)
// followed by bytes 8.. of a fixed block of splitmix64 words (seed
// transfer_seed, each word little-endian). A client computes the expected
// SHA-256 itself; a byte lost, repeated or moved changes it.
#pragma once
#include <cstdint>

#include "keel/http/server.hpp"

namespace web_app {

inline constexpr uint64_t transfer_seed = 0x6b65656c'77656221;  // "keelweb!"
inline constexpr uint64_t transfer_block = 64 * 1024;
inline constexpr uint64_t max_transfer = uint64_t(1) << 40;  // 1 TiB

void add_transfer_routes(keel::http::Server& server);

}  // namespace web_app
