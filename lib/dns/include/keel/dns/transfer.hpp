// AXFR out (RFC 5936): a whole zone as a stream of DNS messages over TCP,
// built one message at a time so a front end writes each as the connection
// drains and never holds the zone rendered (docs/dns.md, "Zone transfers").
//
// Who may transfer is a list of address prefixes (TransferAcl); the default,
// an empty list, allows nobody, as NSD without `provide-xfr`.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "answer/tsig.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/rate_limiter.hpp"

namespace keel::dns {

struct AddressPrefix {
  ClientAddress::Family family = ClientAddress::Family::ipv4;
  std::array<uint8_t, 16> bytes{};  // network order; IPv4 in the first 4
  uint8_t length = 0;               // prefix bits

  bool contains(const ClientAddress& client) const;
};

// "10.0.0.0/8", "192.0.2.1" (a /32) or "2001:db8::/32"; false if malformed.
bool parse_prefix(std::string_view text, AddressPrefix& out);

// NSD's provide-xfr: an address prefix with NOKEY (`allow`) lets unsigned
// requests from it transfer; one with a key (`allow_keyed`) lets requests from
// it that are signed with that key (RFC 8945) and no others.
struct TransferAcl {
  struct Keyed {
    AddressPrefix prefix;
    std::string key;  // the key's name, wire form, lower case
  };
  std::vector<AddressPrefix> allow;  // empty (and no allow_keyed): nobody
  std::vector<Keyed> allow_keyed;
  // `key`: the name of the key the request was signed with, checked; empty if unsigned.
  bool allows(const ClientAddress& client, std::string_view key = {}) const;
};

// One zone transfer in progress. Server::answer starts it (an AXFR, or an
// IXFR answered in full as RFC 1995 §4 allows) and writes its first message;
// next() writes each further one. The catalog must outlive it.
class Transfer {
 public:
  // Messages are filled to this many octets (NSD's AXFR_MAX_MESSAGE_LEN):
  // compression pointers reach only the first 16 KiB of a message (RFC 1035
  // §4.1.4: 14-bit offsets), and smaller messages drain sooner. A record too
  // big for that gets a message of its own, up to max_message_size.
  static constexpr std::size_t fill_size = 16 * 1024;

  // An EDNS OPT for the first message (RFC 5936 §2.2.5 leaves it to the
  // first); keepalive < 0: no edns-tcp-keepalive option (RFC 7828).
  struct Opt {
    bool present = false;
    bool dnssec_ok = false;
    uint16_t payload = 0;
    int32_t keepalive = -1;  // in units of 100 ms
  };

  Transfer() = default;
  Transfer(const Catalog& catalog, uint16_t zone, uint16_t id, uint16_t flags,
           std::string_view question, const Opt& opt);

  bool done() const { return stage_ == Stage::done; }
  // Writes the next message to `out` (max_message_size octets) and returns
  // its size; 0 once done.
  std::size_t next(std::span<uint8_t> out);
  std::size_t messages() const { return messages_; }
  // Keeps the catalog alive until the transfer ends (Server::replace_catalog).
  void hold(std::shared_ptr<const Catalog> catalog) { held_ = std::move(catalog); }
  // Signs every message (RFC 8945 §5.3.1) with `signer`'s key, at the time
  // `clock` gives (seconds since 1970).
  void sign_with(const TsigSigner& signer, uint64_t (*clock)()) {
    signer_ = signer;
    clock_ = clock;
  }

 private:
  enum class Stage : uint8_t { first_soa, records, last_soa, done };
  // Moves to the next record of the zone, past the apex SOA; false at the end.
  bool advance_rrset();

  const Catalog* catalog_ = nullptr;
  std::shared_ptr<const Catalog> held_;
  uint16_t zone_ = 0;
  uint16_t id_ = 0;
  uint16_t flags_ = 0;
  std::array<uint8_t, max_name_length + 4> question_{};
  uint16_t question_size_ = 0;
  Opt opt_;
  Stage stage_ = Stage::done;
  uint32_t node_ = 0;       // the node being sent
  uint32_t rrset_ = 0;      // its RRset being sent (index within the node)
  uint32_t record_ = 0;     // that RRset's next record
  std::size_t offset_ = 0;  // where that record is in the RDATA arena
  std::size_t messages_ = 0;
  TsigSigner signer_;
  uint64_t (*clock_)() = nullptr;
};

}  // namespace keel::dns
