// Shared by the secondary role's tests (secondary_test.cpp, xfr_in_test.cpp):
// a zone, the primary's address and another, a fixed clock, two TSIG keys.
#pragma once
#include <cstdint>

#include "keel/dns/tsig.hpp"
#include "test_support.hpp"

namespace keel::dns::test {

inline const char* v1 = R"(
$TTL 3600
@       SOA ns1 hostmaster 7 7200 3600 1209600 300
        NS  ns1
ns1     A   192.0.2.53
www     A   192.0.2.10
        TXT "version one"
)";

inline const ClientAddress primary = ClientAddress::ipv4(0x0a000001, 53);   // 10.0.0.1
inline const ClientAddress stranger = ClientAddress::ipv4(0x0a000009, 53);  // 10.0.0.9
inline constexpr uint64_t now_s = 1'800'000'000;
inline const TsigKey xfr_key = key_of("hmac-sha256:xfr-key:c2VjcmV0c2VjcmV0c2VjcmV0");
inline const TsigKey other_key = key_of("hmac-sha256:other-key:b3RoZXJvdGhlcm90aGVy");

}  // namespace keel::dns::test
