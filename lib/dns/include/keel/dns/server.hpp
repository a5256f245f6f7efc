// The authoritative server core: answer(query, client, buffer) -> response
// size, with no I/O of its own, so any front end (Keel's UDP sockets, a Linux
// socket, a test) is a thin adapter. Answers follow RFC 1034 §4.3.2 and the
// choices NSD 4 makes where the RFCs leave room (docs/dns.md lists them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "keel/dns/catalog.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/rate_limiter.hpp"
#include "keel/dns/transfer.hpp"
#include "keel/dns/tsig.hpp"

namespace keel::dns {

class AnswerCache;
class TsigSigner;
struct CachedAnswer;
struct Query;
enum class Verdict : uint8_t;

// How the query came: over UDP a response is fitted to the client's payload
// size (TC when it does not fit) and rate limited; over TCP (RFC 7766) it may
// take up to 65,535 octets, is never truncated short of that, is computed
// (the pre-rendered answers are fitted to UDP sizes) and is not rate limited
// (the handshake proved the source address).
enum class Transport : uint8_t { udp, tcp };

struct ServerOptions {
  // The largest UDP response with EDNS, and the size we advertise (RFC 6891 §6.2.5).
  uint16_t edns_payload = default_edns_payload;
  // Render the answer of every (name, type) in the zones at load time and
  // copy it at query time (docs/dns.md, "Pre-rendered answers").
  bool prerender = true;
  RateLimitOptions rate_limit;
  // Who may transfer the zones (AXFR, and IXFR answered in full); nobody by default.
  TransferAcl transfer;
  // TSIG keys (RFC 8945): a request signed with one is checked and answered
  // signed; one signed with any other key gets NOTAUTH/BADKEY.
  std::vector<TsigKey> tsig_keys;
  // Seconds since 1970 (the wall clock), for TSIG's time check (RFC 8945 §5.2.3).
  uint64_t (*clock_unix_s)() = nullptr;
  // The front end's TCP idle timeout, sent in edns-tcp-keepalive (RFC 7828)
  // to a TCP query that asks for it; unset: the option is never sent.
  std::optional<uint32_t> tcp_idle_ms;
  // Milliseconds from a monotonic clock; needed by the rate limiter.
  uint64_t (*clock_ms)() = nullptr;
};

struct ServerStats {
  static constexpr std::size_t type_slots = 256;  // QTYPE 0..255; the rest share one slot

  uint64_t queries = 0;  // datagrams given to answer()
  uint64_t dropped = 0;  // no response: shorter than a header or not a query
  uint64_t by_rcode[rcode::count] = {};
  uint64_t by_qtype[type_slots + 1] = {};
  uint64_t truncated = 0;    // TC set because the answer did not fit
  uint64_t prerendered = 0;  // answered from the pre-rendered answers
  uint64_t edns = 0;
  uint64_t rate_limited_dropped = 0;
  uint64_t rate_limited_slipped = 0;
  uint64_t transfers = 0;          // AXFR/IXFR started (their first message is in by_rcode)
  uint64_t transfers_refused = 0;  // from a client the access list does not allow
  uint64_t tsig_signed = 0;        // requests with a TSIG that checked
  uint64_t tsig_refused = 0;       // NOTAUTH: BADKEY, BADSIG, BADTIME, BADTRUNC

  uint64_t qtype_count(uint16_t type) const {
    return by_qtype[type < type_slots ? type : type_slots];
  }
};

// What answer() did, for a query log.
struct QueryEvent {
  const ClientAddress& client;
  std::string_view qname;  // wire, as sent; empty if the query had none
  uint16_t qtype;
  uint16_t rcode;             // 0..4095 (extended)
  std::size_t response_size;  // 0: dropped
};
using QueryObserver = void (*)(void* context, const QueryEvent& event);

class Server {
 public:
  explicit Server(std::unique_ptr<Catalog> catalog, const ServerOptions& options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Answers one query. Writes the response to `out` (at least 512 octets;
  // over TCP, 65,535 for every answer to fit) and returns its size, or 0
  // when nothing is to be sent. Over TCP, with `transfer`: an AXFR or IXFR
  // the access list allows starts *transfer, the response is its first
  // message, and the caller sends the rest (transfer->next()) until done().
  std::size_t answer(std::span<const uint8_t> query, const ClientAddress& client,
                     std::span<uint8_t> out, Transport transport = Transport::udp,
                     Transfer* transfer = nullptr);

  const ServerStats& stats() const { return stats_; }
  const Catalog& catalog() const { return *catalog_; }
  // Serves `catalog` from the next query on (a secondary's new zone copy,
  // zone_swap.hpp), pre-rendering its answers first. Transfers out in
  // progress keep the catalog they started on until they end.
  void replace_catalog(std::unique_ptr<Catalog> catalog);
  // Bytes the pre-rendered answers take (0 when off).
  std::size_t prerendered_bytes() const;
  std::size_t prerendered_answers() const;
  void set_observer(QueryObserver observer, void* context) {
    observer_ = observer;
    observer_context_ = context;
  }

 private:
  friend class AnswerCache;
  struct Outcome {
    std::size_t size = 0;
    uint16_t rcode = 0;
    bool truncated = false;
    bool prerendered = false;
    bool extended_error = false;
  };
  bool is_apex(const Query& query) const;
  // An IXFR whose version (its SOA's serial) is the zone's or newer.
  bool ixfr_up_to_date(const Query& query, uint16_t zone) const;
  // The pre-rendered answer for `query`, or nullptr; `shift` is set to the
  // question's octets beyond the name it was rendered for (a referral that
  // also serves names below it).
  const CachedAnswer* find_prerendered(const Query& query, uint16_t& shift) const;
  // The response to a parsed query; `use_cache` off while the cache is built.
  Outcome respond(const Query& query, Verdict verdict, const ClientAddress& client, uint8_t* out,
                  std::size_t size, bool use_cache, Transport transport = Transport::udp,
                  Transfer* transfer = nullptr, const TsigSigner* signer = nullptr);
  // The edns-tcp-keepalive TIMEOUT for the response, or no_keepalive.
  int32_t keepalive_for(const Query& query, Transport transport) const;

  std::shared_ptr<const Catalog> catalog_;
  ServerOptions options_;
  std::unique_ptr<AnswerCache> cache_;
  RateLimiter limiter_;
  ServerStats stats_;
  QueryObserver observer_ = nullptr;
  void* observer_context_ = nullptr;
};

}  // namespace keel::dns
