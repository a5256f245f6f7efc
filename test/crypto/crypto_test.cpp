// lib/crypto: the library is mbed TLS's, so these check the wiring (right hash, right key and
// text handed over, whole digest returned) against RFC 4231's and FIPS 180-4's vectors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "keel/crypto/hmac_sha256.hpp"

namespace keel::crypto {
namespace {

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

std::string hex(std::span<const uint8_t> b) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t x : b) out += digits[x >> 4], out += digits[x & 15];
  return out;
}

TEST(Crypto, HmacSha256Rfc4231Case1) {
  std::vector<uint8_t> key(20, 0x0b);
  EXPECT_EQ(hex(hmac_sha256(key, bytes("Hi There"))),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(Crypto, HmacSha256Rfc4231Case2) {
  EXPECT_EQ(hex(hmac_sha256(bytes("Jefe"), bytes("what do ya want for nothing?"))),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Crypto, HmacSha256Rfc4231Case6KeyLongerThanABlock) {
  std::vector<uint8_t> key(131, 0xaa);
  EXPECT_EQ(hex(hmac_sha256(key, bytes("Test Using Larger Than Block-Size Key - Hash Key First"))),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Crypto, OneKeysContextGivesEachMessageItsOwnMac) {
  HmacSha256 jefe(bytes("Jefe"));
  const std::string expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
  EXPECT_EQ(hex(jefe.mac(bytes("what do ya want for nothing?"))), expected);
  EXPECT_EQ(hex(jefe.mac(bytes("something else"))),
            hex(hmac_sha256(bytes("Jefe"), bytes("something else"))));
  EXPECT_EQ(hex(jefe.mac(bytes("what do ya want for nothing?"))), expected);
}

TEST(Crypto, Sha256Fips180Vectors) {
  EXPECT_EQ(hex(sha256(bytes("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256({})), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Crypto, ConstantTimeEquality) {
  std::vector<uint8_t> a = bytes("abcd"), b = bytes("abcd"), c = bytes("abce");
  EXPECT_TRUE(equal_in_constant_time(a, b));
  EXPECT_FALSE(equal_in_constant_time(a, c));
  EXPECT_FALSE(equal_in_constant_time(a, bytes("abc")));
}

}  // namespace
}  // namespace keel::crypto
