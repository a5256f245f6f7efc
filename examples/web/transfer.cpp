#include "transfer.hpp"

#include <mbedtls/sha256.h>

#include <array>
#include <charconv>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "keel/http/json.hpp"

namespace web_app {
namespace {

namespace http = keel::http;

// The fixed block, made at the first download.
const std::vector<uint8_t>& base_block() {
  static const std::vector<uint8_t> block = [] {
    std::vector<uint8_t> b(transfer_block);
    uint64_t state = transfer_seed;
    for (std::size_t i = 0; i < b.size(); i += 8) {
      // splitmix64 (Steele, Lea, Flood 2014)
      uint64_t z = (state += 0x9e3779b97f4a7c15);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
      z ^= z >> 31;
      for (std::size_t j = 0; j < 8; ++j) b[i + j] = uint8_t(z >> (8 * j));
    }
    return b;
  }();
  return block;
}

// The stream's bytes [at, at + count) (within one block) into `out`.
void stream_piece(uint64_t at, std::size_t count, std::string& out) {
  const std::vector<uint8_t>& base = base_block();
  const uint64_t block = at / transfer_block;
  std::size_t offset = std::size_t(at % transfer_block);
  out.resize(count);
  std::size_t done = 0;
  for (; offset < 8 && done < count; ++offset, ++done)
    out[done] = char(uint8_t(block >> (8 * offset)));
  std::memcpy(out.data() + done, base.data() + offset, count - done);
}

// A piece per producer call: what one OutputBuffer holds.
constexpr std::size_t piece_bytes = 16 * 1024;

void bytes(http::Exchange ex) {
  const std::string_view text = ex.param("n");
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n > max_transfer)
    return (void)ex.respond(http::json_error(http::status::not_found, "no such size"));
  http::Response r;
  r.set("Content-Type", "application/octet-stream");
  r.content_length = n;
  auto at = std::make_shared<uint64_t>(0);
  ex.respond_stream(std::move(r), [at, n](std::string& next) {
    if (*at == n) return false;
    const uint64_t in_block = transfer_block - *at % transfer_block;
    const std::size_t count = std::size_t(std::min<uint64_t>({n - *at, in_block, piece_bytes}));
    stream_piece(*at, count, next);
    *at += count;
    return true;
  });
}

// An upload being hashed; the exchange that started it tells whether it is
// still going (a connection that ended mid-upload leaves a stale one).
struct Upload {
  http::Exchange exchange;
  mbedtls_sha256_context sha;
  uint64_t bytes = 0;
  Upload() { mbedtls_sha256_init(&sha); }
  ~Upload() { mbedtls_sha256_free(&sha); }
  Upload(const Upload&) = delete;
  Upload& operator=(const Upload&) = delete;
};
// By the request they belong to (one per connection at a time).
std::map<const http::Request*, std::unique_ptr<Upload>> uploads;

void upload_head(http::Exchange ex) {
  std::erase_if(uploads, [](const auto& u) { return !u.second->exchange.pending(); });
  auto up = std::make_unique<Upload>();
  up->exchange = ex;
  (void)mbedtls_sha256_starts(&up->sha, 0);
  Upload* u = up.get();
  uploads[&ex.request()] = std::move(up);
  ex.on_body([u](std::span<const uint8_t> piece) {
    (void)mbedtls_sha256_update(&u->sha, piece.data(), piece.size());
    u->bytes += piece.size();
  });
}

void upload_done(http::Exchange ex) {
  auto it = uploads.find(&ex.request());
  if (it == uploads.end()) return (void)ex.respond(http::status::internal_server_error);
  std::unique_ptr<Upload> up = std::move(it->second);
  uploads.erase(it);
  std::array<uint8_t, 32> digest{};
  (void)mbedtls_sha256_finish(&up->sha, digest.data());
  static constexpr char hex[] = "0123456789abcdef";
  std::string text;
  for (uint8_t b : digest) {
    text += hex[b >> 4];
    text += hex[b & 15];
  }
  ex.respond(http::json_reply(http::status::ok, {{"bytes", up->bytes}, {"sha256", text}}));
}

}  // namespace

void add_transfer_routes(http::Server& server) {
  server.route(http::Method::get, "/api/bytes/:n", bytes);
  server.route(http::Method::post, "/api/sha256", upload_head, upload_done);
}

}  // namespace web_app
