// DNS protocol numbers and limits, named after the RFC that defines them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel::dns {

// RFC 1035 §4.1.1: the fixed header.
inline constexpr std::size_t header_size = 12;
// RFC 1035 §2.3.4: size limits.
inline constexpr std::size_t max_label_length = 63;
inline constexpr std::size_t max_name_length = 255;  // wire octets, root label included
inline constexpr std::size_t max_labels = 128;       // 127 one-octet labels + the root
inline constexpr std::size_t max_character_string = 255;
// RFC 1035 §4.2.1: a UDP message without EDNS carries at most 512 octets.
inline constexpr std::size_t udp_plain_payload = 512;
// RFC 6891 §6.2.5 leaves the size to the server; 1232 is the DNS flag day 2020
// value that NSD and Knot both default to (fits the IPv6 minimum MTU).
inline constexpr uint16_t default_edns_payload = 1232;
// RFC 1035 §4.1.4: a compression pointer has 14 offset bits.
inline constexpr std::size_t max_compression_offset = 0x3fff;
inline constexpr std::size_t max_message_size = 65535;

// RFC 1035 §4.1.1 header flag bits (in the 16-bit flags word).
namespace flag {
inline constexpr uint16_t qr = 0x8000;
inline constexpr uint16_t aa = 0x0400;
inline constexpr uint16_t tc = 0x0200;
inline constexpr uint16_t rd = 0x0100;
inline constexpr uint16_t ra = 0x0080;
inline constexpr uint16_t ad = 0x0020;  // RFC 4035 §3.2.3
inline constexpr uint16_t cd = 0x0010;  // RFC 4035 §3.2.2
inline constexpr uint16_t opcode_mask = 0x7800;
inline constexpr int opcode_shift = 11;
inline constexpr uint16_t rcode_mask = 0x000f;
}  // namespace flag

namespace opcode {
inline constexpr uint8_t query = 0;   // RFC 1035
inline constexpr uint8_t notify = 4;  // RFC 1996
inline constexpr uint8_t update = 5;  // RFC 2136
}  // namespace opcode

// RFC 1035 §4.1.1 and RFC 6891 §6.1.3 (12-bit extended codes).
namespace rcode {
inline constexpr uint16_t noerror = 0;
inline constexpr uint16_t formerr = 1;
inline constexpr uint16_t servfail = 2;
inline constexpr uint16_t nxdomain = 3;
inline constexpr uint16_t notimp = 4;
inline constexpr uint16_t refused = 5;
inline constexpr uint16_t yxdomain = 6;   // RFC 6672 §2.2: DNAME result too long
inline constexpr uint16_t notauth = 9;    // RFC 2136
inline constexpr uint16_t badvers = 16;   // RFC 6891 §7
inline constexpr std::size_t count = 24;  // counters keep 0..23
}  // namespace rcode

namespace rr_class {
inline constexpr uint16_t in = 1;
inline constexpr uint16_t ch = 3;
inline constexpr uint16_t hs = 4;
inline constexpr uint16_t none = 254;  // RFC 2136
inline constexpr uint16_t any = 255;
}  // namespace rr_class

namespace rr_type {
inline constexpr uint16_t a = 1;
inline constexpr uint16_t ns = 2;
inline constexpr uint16_t cname = 5;
inline constexpr uint16_t soa = 6;
inline constexpr uint16_t ptr = 12;
inline constexpr uint16_t hinfo = 13;
inline constexpr uint16_t minfo = 14;
inline constexpr uint16_t mx = 15;
inline constexpr uint16_t txt = 16;
inline constexpr uint16_t rp = 17;      // RFC 1183
inline constexpr uint16_t afsdb = 18;   // RFC 1183
inline constexpr uint16_t aaaa = 28;    // RFC 3596
inline constexpr uint16_t srv = 33;     // RFC 2782
inline constexpr uint16_t naptr = 35;   // RFC 3403
inline constexpr uint16_t kx = 36;      // RFC 2230
inline constexpr uint16_t dname = 39;   // RFC 6672
inline constexpr uint16_t opt = 41;     // RFC 6891
inline constexpr uint16_t ds = 43;      // RFC 4034
inline constexpr uint16_t sshfp = 44;   // RFC 4255
inline constexpr uint16_t rrsig = 46;   // RFC 4034
inline constexpr uint16_t nsec = 47;    // RFC 4034
inline constexpr uint16_t dnskey = 48;  // RFC 4034
inline constexpr uint16_t tlsa = 52;    // RFC 6698
inline constexpr uint16_t smimea = 53;  // RFC 8162
inline constexpr uint16_t cds = 59;     // RFC 7344
inline constexpr uint16_t spf = 99;     // RFC 7208
inline constexpr uint16_t tkey = 249;   // RFC 2930
inline constexpr uint16_t tsig = 250;   // RFC 8945
inline constexpr uint16_t ixfr = 251;   // RFC 1995
inline constexpr uint16_t axfr = 252;   // RFC 5936
inline constexpr uint16_t any = 255;    // RFC 8482
inline constexpr uint16_t uri = 256;    // RFC 7553
inline constexpr uint16_t caa = 257;    // RFC 8659

// DNSSEC types beside those above (RFC 5155, RFC 7344).
inline constexpr uint16_t nsec3 = 50;
inline constexpr uint16_t nsec3param = 51;
inline constexpr uint16_t cdnskey = 60;
}  // namespace rr_type

// RFC 6891 §6.1.2: the OPT record's fixed part (root owner, type, class, TTL, RDLENGTH).
inline constexpr std::size_t opt_record_size = 11;
inline constexpr uint16_t edns_do_bit = 0x8000;  // RFC 3225

}  // namespace keel::dns
