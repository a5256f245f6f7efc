// tls::ServerContext: it starts only with a seeded generator and a certificate whose key it
// is given, from PEM or DER (test/tls/CMakeLists.txt makes the pairs).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "keel/tls/server_context.hpp"

namespace tls = keel::tls;

namespace {

std::vector<uint8_t> file(const std::string& name) {
  std::ifstream f(std::string(KEEL_TLS_TEST_DIR) + "/" + name, std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  EXPECT_FALSE(bytes.empty()) << name;
  return bytes;
}

tls::ServerContext::Made make(const std::string& cert, const std::string& key,
                              tls::RandomSource random = tls::RandomSource::seeded) {
  const std::vector<uint8_t> c = file(cert), k = file(key);
  return tls::ServerContext::create({c, k}, {}, random);
}

}  // namespace

TEST(ServerContext, StartsWithAnEcdsaPairInPem) {
  auto made = make("ec_cert.pem", "ec_key.pem");
  ASSERT_NE(made.context, nullptr) << made.error;
  EXPECT_EQ(made.context->counters().sessions, 0u);
}

TEST(ServerContext, StartsWithAnRsaKeyInDer) {
  auto made = make("rsa_cert.pem", "rsa_key.der");
  ASSERT_NE(made.context, nullptr) << made.error;
}

TEST(ServerContext, RefusesWhenTheGeneratorIsNotSeeded) {
  auto made = make("ec_cert.pem", "ec_key.pem", tls::RandomSource::not_seeded);
  EXPECT_EQ(made.context, nullptr);
  EXPECT_NE(made.error.find("not seeded"), std::string::npos) << made.error;
}

TEST(ServerContext, RefusesAKeyThatIsNotTheCertificates) {
  auto made = make("ec_cert.pem", "other_key.pem");
  EXPECT_EQ(made.context, nullptr);
  EXPECT_NE(made.error.find("not the certificate's"), std::string::npos) << made.error;
}

TEST(ServerContext, RefusesWhatDoesNotParse) {
  const std::vector<uint8_t> key = file("ec_key.pem");
  const std::string junk = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
  const std::vector<uint8_t> cert(junk.begin(), junk.end());
  auto made = tls::ServerContext::create({cert, key}, {}, tls::RandomSource::seeded);
  EXPECT_EQ(made.context, nullptr);
  EXPECT_NE(made.error.find("certificate chain does not parse"), std::string::npos) << made.error;

  auto no_key =
      tls::ServerContext::create({file("ec_cert.pem"), {}}, {}, tls::RandomSource::seeded);
  EXPECT_EQ(no_key.context, nullptr);
  EXPECT_NE(no_key.error.find("private key does not parse"), std::string::npos) << no_key.error;
}

TEST(ServerContext, RefusesAnEmptyVersionRange) {
  const std::vector<uint8_t> c = file("ec_cert.pem"), k = file("ec_key.pem");
  tls::ServerOptions o;
  o.min_version = tls::Version::tls1_3;
  o.max_version = tls::Version::tls1_2;
  EXPECT_EQ(tls::ServerContext::create({c, k}, o, tls::RandomSource::seeded).context, nullptr);
}
