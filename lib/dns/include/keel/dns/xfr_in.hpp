// Zone transfers in, as a secondary: the queries a secondary sends (SOA,
// AXFR, IXFR; signed with TSIG when a key is set) and XfrIn, which reads the
// primary's answers message by message (AXFR, RFC 5936 §2.2; IXFR, RFC 1995
// §4, in either of its forms) into a new copy of the zone, with a bound on
// its size. Nothing here does I/O: examples/dns/secondary.cpp does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/dns/secondary.hpp"
#include "keel/dns/tsig.hpp"
#include "keel/dns/zone_data.hpp"

namespace keel::dns {

class TsigClient;

// Writes a query for `origin` of `qtype` (SOA, AXFR, or IXFR with `serial`
// as the version in its authority section, RFC 1995 §3) to `out`; signed
// when `signer` is given. Returns its size (0 if it does not fit).
std::size_t write_xfr_query(std::span<uint8_t> out, uint16_t id, std::string_view origin,
                            uint16_t qtype, std::optional<uint32_t> serial, TsigClient* signer,
                            uint64_t now);

// TSIG on the client's side (RFC 8945 §5.1, §5.3.1, §5.4): signs the request,
// then checks each answer: the first must be signed, later ones may go
// unsigned up to 99 in a row (their octets count in the next MAC), the
// last must be signed.
class TsigClient {
 public:
  explicit TsigClient(const TsigKey& key);
  ~TsigClient();
  TsigClient(const TsigClient&) = delete;
  TsigClient& operator=(const TsigClient&) = delete;

  // Appends the TSIG record to the request of `size` octets; the new size,
  // or 0 if it does not fit in `capacity`. Starts a new exchange.
  std::size_t sign_request(uint8_t* out, std::size_t size, std::size_t capacity, uint64_t now);
  // Checks one answer; an empty string, or why it does not check ("the
  // primary's TSIG error 17", "the MAC does not check (BADSIG)", ...).
  std::string verify(std::string_view message, uint64_t now);
  // Whether the last answer checked was signed: a transfer's last must be.
  bool last_signed() const { return last_signed_; }

 private:
  struct Chain;
  const TsigKey& key_;
  std::unique_ptr<Chain> chain_;
  bool last_signed_ = false;
};

// The largest zone transfer taken in by default (dns_xfr_in_max=): octets of
// messages, about the zone's size on the wire.
inline constexpr std::size_t default_xfr_in_limit = 16 * 1024 * 1024;

// Reads the answer to an AXFR or IXFR query, one message at a time; to an
// SOA query too (done after its one message, serial() the primary's).
class XfrIn {
 public:
  enum class Status : uint8_t {
    more,        // give it the next message
    done,        // a whole zone: zone() holds it
    up_to_date,  // IXFR: the primary's serial is ours (the SOA alone, RFC 1995 §2)
    failed,      // error() says why; the zone being served is kept
  };

  // `current`: the zone served now, which an incremental answer (IXFR,
  // RFC 1995 §4) is applied to; without it only whole zones are taken.
  XfrIn(std::string_view origin, uint16_t id, uint16_t qtype, std::size_t limit,
        const ZoneData* current = nullptr);

  Status feed(std::string_view message);
  const std::string& error() const { return error_; }
  // The new zone (after done); its records' owners keep the primary's case.
  ZoneData& zone() { return zone_; }
  uint32_t serial() const { return serial_; }
  std::size_t messages() const { return messages_; }
  std::size_t bytes() const { return bytes_; }
  bool incremental() const { return incremental_; }
  // Whether it failed on the size bound (`limit` octets).
  bool over_limit() const { return bytes_ > limit_; }

 private:
  Status fail(std::string why);
  Status take(std::string_view owner, uint16_t type, uint32_t ttl, std::string_view rdata);
  Status take_incremental(std::string_view owner, uint16_t type, uint32_t ttl,
                          std::string_view rdata, bool is_soa, uint32_t soa_serial);

  std::string origin_;  // lower case
  uint16_t id_;
  uint16_t qtype_;
  std::size_t limit_;
  const ZoneData* current_;
  ZoneData zone_;
  ZoneRecord first_soa_;  // IXFR: the new version's SOA, last in the zone
  std::string error_;
  uint32_t serial_ = 0;  // the first SOA's: the new version
  std::size_t messages_ = 0, bytes_ = 0, records_ = 0;
  bool incremental_ = false;
  bool deleting_ = false;  // IXFR: in a sequence's deletions (after its old SOA)
  uint32_t version_ = 0;   // IXFR: the version the current sequence is at
  bool finished_ = false;
};

}  // namespace keel::dns
