// A query as the answering code needs it, and what to do with it: which
// queries get an answer, which an error, which nothing. The rules are NSD's
// (query.c, query_process), checked against NSD 4.6 by test/dns.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "answer/tsig.hpp"
#include "keel/dns/constants.hpp"

namespace keel::dns {

struct Edns {
  bool present = false;
  uint16_t payload = 0;  // the requester's UDP payload size
  uint8_t version = 0;
  bool dnssec_ok = false;
  bool keepalive = false;  // RFC 7828: edns-tcp-keepalive asked for
};

struct Query {
  std::string_view message;
  uint16_t id = 0;
  uint16_t flags = 0;
  std::size_t question_end = 0;      // offset just past QTYPE and QCLASS
  uint8_t qname_size = 0;            // the question name, uncompressed, at offset 12
  uint8_t lowered[max_name_length];  // the question name in lower case
  uint32_t hash = 0;                 // name_hash(lowered)
  uint16_t qtype = 0;
  uint16_t qclass = 0;
  Edns edns;
  // An IXFR's version: the serial of the SOA first in its authority section
  // (RFC 1995 §3), if that record is one.
  bool has_ixfr_serial = false;
  uint32_t ixfr_serial = 0;
  // RFC 8945: a TSIG record, last in the additional section; checked by
  // Server::answer, which then sets the octets its signature needs.
  bool has_tsig = false;
  TsigRecord tsig;
  uint16_t tsig_reserve = 0;

  std::string_view qname() const { return message.substr(header_size, qname_size); }
  std::string_view lowered_name() const {
    return std::string_view(reinterpret_cast<const char*>(lowered), qname_size);
  }
};

enum class Verdict : uint8_t {
  answer,
  drop,              // shorter than a header, or a response (QR set): no reply
  formerr,           // header only, RD kept
  formerr_no_flags,  // header only, every flag cleared (QDCOUNT other than 1)
  notimp,            // header only, the query's flags kept (opcode not QUERY)
  notify,            // RFC 1996 NOTIFY: refused (header only), NXDOMAIN if no such zone
  empty_with_edns,   // QDCOUNT 0 with only an OPT: NOERROR + OPT (as NSD, for cookies)
  badvers,           // RFC 6891 §6.1.3: EDNS version other than 0
};

Verdict parse_query(std::string_view message, Query& query);

}  // namespace keel::dns
