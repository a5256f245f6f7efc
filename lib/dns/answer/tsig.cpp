// TSIG (RFC 8945): reading a request's record, checking and signing (keys: tsig_key.cpp).
#include "answer/tsig.hpp"

#include <cstring>

#include "answer/tsig_algorithms.hpp"
#include "answer/tsig_hmac.hpp"
#include "keel/crypto/hmac_sha256.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/name.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

using namespace tsig_detail;

uint64_t load48(std::string_view m, std::size_t pos) {
  uint64_t t = 0;
  for (std::size_t i = 0; i < time_octets; ++i) t = t << 8 | octet(m, pos + i);
  return t;
}

}  // namespace

std::size_t read_tsig(std::string_view m, std::size_t pos, TsigRecord& out) {
  out = TsigRecord{};
  out.start = pos;
  const NameRead owner = read_name(m, pos, &out.key_name);
  if (owner.error != WireError::none || m.size() - owner.end < rr_fixed) return 0;
  pos = owner.end;
  if (load16(m, pos) != rr_type::tsig || load16(m, pos + 2) != class_any || load32(m, pos + 4) != 0)
    return 0;
  const std::size_t length = load16(m, pos + 8);
  pos += rr_fixed;
  if (m.size() - pos < length) return 0;
  const std::string_view rdata = m.substr(0, pos + length);
  // The algorithm name is never compressed (§4.2); read_name takes it as it is.
  const NameRead algorithm = read_name(rdata, pos, &out.algorithm);
  if (algorithm.error != WireError::none) return 0;
  pos = algorithm.end;
  if (rdata.size() - pos < time_octets + 4) return 0;
  out.time_signed = load48(rdata, pos);
  out.fudge = load16(rdata, pos + time_octets);
  const std::size_t mac_size = load16(rdata, pos + time_octets + 2);
  pos += time_octets + 4;
  if (rdata.size() - pos < mac_size + 6) return 0;
  out.mac = rdata.substr(pos, mac_size);
  pos += mac_size;
  out.original_id = load16(rdata, pos);
  out.error = load16(rdata, pos + 2);
  const std::size_t other_size = load16(rdata, pos + 4);
  pos += 6;
  if (rdata.size() - pos != other_size) return 0;
  out.other = rdata.substr(pos);
  for (char& c : out.key_name) c = char(ascii_lower(uint8_t(c)));
  for (char& c : out.algorithm) c = char(ascii_lower(uint8_t(c)));
  return pos + other_size;
}

TsigCheck check_tsig(std::string_view m, const TsigRecord& tsig, const std::vector<TsigKey>& keys,
                     uint64_t now) {
  TsigCheck check;
  // §5.2.1: a key we hold, under the algorithm it was given with.
  for (const TsigKey& key : keys) {
    if (key.name == tsig.key_name && algorithm_of(key.algorithm).wire == tsig.algorithm)
      check.key = &key;
  }
  if (check.key == nullptr) return {TsigCheck::refused, tsig_error::badkey, nullptr};
  const std::size_t full = algorithm_of(check.key->algorithm).mac_size;
  // §5.2.2.1: longer than the hash's output is malformed; shorter is
  // truncation, which Keel's policy refuses (§5.2.4's BADTRUNC). RFC 8945
  // lets a server do that; NSD does not truncate either.
  if (tsig.mac.size() > full) return {TsigCheck::formerr, 0, nullptr};
  if (tsig.mac.size() < full) return {TsigCheck::refused, tsig_error::badtrunc, nullptr};
  // §5.2.2: the MAC of the request as it was before the TSIG was added.
  const auto* bytes = reinterpret_cast<const uint8_t*>(m.data());
  Hmac h(*check.key);
  add_message(h, bytes, tsig.start, tsig.original_id, uint16_t(load16(m, 10) - 1));
  add_variables(h, tsig.key_name, tsig.algorithm, tsig.time_signed, tsig.fudge, tsig.error,
                tsig.other, false);
  uint8_t mac[max_tsig_mac];
  h.finish(mac);
  if (!crypto::equal_in_constant_time(
          std::span(mac, full),
          std::span(reinterpret_cast<const uint8_t*>(tsig.mac.data()), tsig.mac.size()))) {
    return {TsigCheck::refused, tsig_error::badsig, nullptr};
  }
  // §5.2.3: within the fudge of our clock, either way.
  const uint64_t distance =
      now > tsig.time_signed ? now - tsig.time_signed : tsig.time_signed - now;
  if (distance > tsig.fudge) return {TsigCheck::refused, tsig_error::badtime, check.key};
  return check;
}

TsigSigner::TsigSigner(const TsigKey& key, const TsigRecord& request)
    : key_(&key), original_id_(request.original_id), request_time_(request.time_signed) {
  prior_size_ = uint8_t(std::min(request.mac.size(), max_tsig_mac));
  std::memcpy(prior_.data(), request.mac.data(), prior_size_);
}

std::size_t TsigSigner::record_size(uint16_t error) const {
  const Algorithm& a = algorithm_of(key_->algorithm);
  return tsig_record_size(key_->name, a.wire, a.mac_size,
                          error == tsig_error::badtime ? time_octets : 0);
}

std::size_t TsigSigner::sign(uint8_t* out, std::size_t size, std::size_t capacity, uint64_t now,
                             uint16_t error) {
  const Algorithm& a = algorithm_of(key_->algorithm);
  // §5.2.3: a BADTIME answer carries the request's time, and ours in Other Data.
  const uint64_t time = error == tsig_error::badtime ? request_time_ : now;
  uint8_t other[time_octets];
  std::size_t other_size = 0;
  if (error == tsig_error::badtime) {
    for (std::size_t i = 0; i < time_octets; ++i)
      other[i] = uint8_t(now >> (8 * (time_octets - 1 - i)));
    other_size = time_octets;
  }
  Hmac h(*key_);
  h.add16(prior_size_);  // §4.3.1: the prior MAC with its length
  h.add(prior_.data(), prior_size_);
  add_message(h, out, size, original_id_, load16(out + 10));
  add_variables(h, key_->name, a.wire, time, tsig_fudge, error,
                std::string_view(reinterpret_cast<const char*>(other), other_size), !first_);
  uint8_t mac[max_tsig_mac];
  h.finish(mac);
  const std::size_t signed_size =
      put_tsig(out, size, capacity, key_->name, a.wire, time, std::span(mac, a.mac_size),
               original_id_, error, std::span(other, other_size));
  if (signed_size == 0) return 0;
  std::memcpy(prior_.data(), mac, a.mac_size);
  prior_size_ = uint8_t(a.mac_size);
  first_ = false;
  return signed_size;
}

std::size_t append_unsigned_tsig(uint8_t* out, std::size_t size, std::size_t capacity,
                                 const TsigRecord& request, uint16_t error) {
  return put_tsig(out, size, capacity, request.key_name, request.algorithm, request.time_signed, {},
                  request.original_id, error, {});
}

}  // namespace keel::dns
