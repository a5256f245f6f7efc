// TSIG as a client (RFC 8945): a secondary signs its SOA, AXFR and IXFR
// queries and checks the primary's answers, the MAC of each signed one
// chained over the one before and any unsigned messages between (§5.3.1).
#include "answer/tsig.hpp"
#include "answer/tsig_hmac.hpp"
#include "keel/crypto/hmac_sha256.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/xfr_in.hpp"
#include "secondary/records.hpp"

namespace keel::dns {

using namespace tsig_detail;

namespace {
// RFC 8945 §5.3.1: at most 99 unsigned messages between two signed ones.
constexpr uint32_t max_unsigned_run = 99;
}  // namespace

struct TsigClient::Chain {
  std::unique_ptr<Hmac> hmac;  // the running MAC: prior MAC, then unsigned messages
  std::array<uint8_t, max_tsig_mac> prior{};
  std::size_t prior_size = 0;
  bool first = true;
  uint32_t unsigned_run = 0;

  void restart(const TsigKey& key, const uint8_t* mac, std::size_t size) {
    std::memcpy(prior.data(), mac, size);
    prior_size = size;
    hmac = std::make_unique<Hmac>(key);
    hmac->add16(uint16_t(size));  // §4.3.1: the prior MAC with its length
    hmac->add(mac, size);
    unsigned_run = 0;
  }
};

TsigClient::TsigClient(const TsigKey& key) : key_(key), chain_(std::make_unique<Chain>()) {}
TsigClient::~TsigClient() = default;

std::size_t TsigClient::sign_request(uint8_t* out, std::size_t size, std::size_t capacity,
                                     uint64_t now) {
  const Algorithm& a = algorithm_of(key_.algorithm);
  Hmac h(key_);
  h.add(out, size);  // §4.3.3: the request, then all the variables
  add_variables(h, key_.name, a.wire, now, tsig_fudge, 0, {}, false);
  uint8_t mac[max_tsig_mac];
  h.finish(mac);
  const std::size_t signed_size = put_tsig(out, size, capacity, key_.name, a.wire, now,
                                           std::span(mac, a.mac_size), load16(out), 0, {});
  chain_ = std::make_unique<Chain>();
  chain_->restart(key_, mac, a.mac_size);
  return signed_size;
}

std::string TsigClient::verify(std::string_view m, uint64_t now) {
  if (!chain_->hmac) return "no signed request";
  const std::size_t at = last_record_offset(m);
  TsigRecord tsig;
  Header header;
  const bool has_tsig =
      at != 0 && read_header(m, header) && header.arcount != 0 && read_tsig(m, at, tsig) != 0;
  if (!has_tsig) {
    if (chain_->first) return "the answer is not signed";
    if (++chain_->unsigned_run > max_unsigned_run) return "over 99 unsigned messages in a row";
    chain_->hmac->add(m);
    last_signed_ = false;
    return {};
  }
  const Algorithm& a = algorithm_of(key_.algorithm);
  if (tsig.key_name != key_.name || tsig.algorithm != a.wire) return "signed with another key";
  if (tsig.error != 0) return "the primary's TSIG error " + std::to_string(tsig.error);
  if (tsig.mac.size() != a.mac_size) return "a MAC of another size";
  Hmac& h = *chain_->hmac;
  add_message(h, reinterpret_cast<const uint8_t*>(m.data()), tsig.start, tsig.original_id,
              uint16_t(header.arcount - 1));
  add_variables(h, tsig.key_name, tsig.algorithm, tsig.time_signed, tsig.fudge, tsig.error,
                tsig.other, !chain_->first);
  uint8_t mac[max_tsig_mac];
  h.finish(mac);
  if (!crypto::equal_in_constant_time(
          std::span(mac, a.mac_size),
          std::span(reinterpret_cast<const uint8_t*>(tsig.mac.data()), tsig.mac.size()))) {
    chain_->hmac.reset();
    return "the MAC does not check (BADSIG)";
  }
  const uint64_t distance =
      now > tsig.time_signed ? now - tsig.time_signed : tsig.time_signed - now;
  if (distance > tsig.fudge) {
    chain_->hmac.reset();
    return "signed too far from our clock (BADTIME)";
  }
  chain_->first = false;
  chain_->restart(key_, mac, a.mac_size);
  last_signed_ = true;
  return {};
}

}  // namespace keel::dns
