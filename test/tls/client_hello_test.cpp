// client_hello_offers (lib/tls/server/client_hello.hpp) on ClientHellos that openssl s_client
// sent (the https_server fuzz seeds), whole and cut at every length, and on what is not one.
#include "../../lib/tls/server/client_hello.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tls = keel::tls;

namespace {

constexpr uint16_t kAes128Gcm13 = 0x1301, kChaCha13 = 0x1303;
constexpr uint16_t kEcdsaChaCha12 = 0xCCA9, kNeverOffered = 0x1305;  // TLS_AES_128_CCM_8_SHA256

// The bytes a seed's client writes (client_script.hpp: opcode 0x00, a length, the bytes;
// 0x01 and a count moves time).
std::vector<uint8_t> written(const std::string& seed) {
  std::ifstream f(std::string(KEEL_TLS_SEED_DIR) + "/" + seed, std::ios::binary);
  const std::vector<uint8_t> script{std::istreambuf_iterator<char>(f),
                                    std::istreambuf_iterator<char>()};
  EXPECT_FALSE(script.empty()) << seed;
  std::vector<uint8_t> out;
  for (std::size_t i = 0; i + 1 < script.size();) {
    const uint8_t op = script[i++], n = script[i++];
    if (op != 0x00) continue;
    out.insert(out.end(), script.begin() + i, script.begin() + std::min(script.size(), i + n));
    i += n;
  }
  return out;
}

}  // namespace

TEST(ClientHello, OpensslsTls13HelloOffersItsSuites) {
  const std::vector<uint8_t> hello = written("client_hello_tls13");
  EXPECT_TRUE(tls::client_hello_offers(hello, kChaCha13));
  EXPECT_TRUE(tls::client_hello_offers(hello, kAes128Gcm13));
  EXPECT_FALSE(tls::client_hello_offers(hello, kNeverOffered));
  EXPECT_FALSE(tls::client_hello_offers(hello, kEcdsaChaCha12));  // `s_client -tls1_3`
}

TEST(ClientHello, ATls12OnlyHelloDoesNotOfferTls13ChaCha) {
  const std::vector<uint8_t> hello = written("client_hello_tls12");
  EXPECT_FALSE(tls::client_hello_offers(hello, kChaCha13));
  EXPECT_TRUE(tls::client_hello_offers(hello, kEcdsaChaCha12));
}

// A hello cut before the end of its suite list says no, and from there on yes: never more
// than the bytes at hand are read (ASan in the sanitized build).
TEST(ClientHello, ACutHelloIsReadOnlyAsFarAsItGoes) {
  const std::vector<uint8_t> hello = written("client_hello_tls13");
  std::size_t first_yes = 0;
  for (std::size_t n = 0; n <= hello.size(); ++n) {
    std::vector<uint8_t> cut(hello.begin(), hello.begin() + n);  // its own allocation
    const bool yes = tls::client_hello_offers(cut, kChaCha13);
    if (yes && first_yes == 0) first_yes = n;
    EXPECT_EQ(yes, first_yes != 0) << n;
  }
  // Record and handshake headers, version, random, session id, list length: at least 46.
  EXPECT_GT(first_yes, 46u);
}

TEST(ClientHello, WhatIsNotAClientHelloSaysNo) {
  std::vector<uint8_t> hello = written("client_hello_tls13");
  const std::string http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_FALSE(tls::client_hello_offers(std::vector<uint8_t>(http.begin(), http.end()), kChaCha13));
  std::vector<uint8_t> wrong = hello;
  wrong[0] = 23;  // application data
  EXPECT_FALSE(tls::client_hello_offers(wrong, kChaCha13));
  wrong = hello;
  wrong[5] = 2;  // a ServerHello
  EXPECT_FALSE(tls::client_hello_offers(wrong, kChaCha13));
  wrong = hello;
  wrong[3] = 0, wrong[4] = 40;  // a record too short to reach the suites
  EXPECT_FALSE(tls::client_hello_offers(wrong, kChaCha13));
  wrong = hello;
  wrong[43] = 33;  // a session id longer than 32 bytes (RFC 8446 §4.1.2)
  EXPECT_FALSE(tls::client_hello_offers(wrong, kChaCha13));
}
