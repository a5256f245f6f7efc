// Server::answer: the error responses NSD sends, the pre-rendered fast path,
// and the general path (resolve, then render).
#include "keel/dns/server.hpp"

#include <cstring>

#include "answer/answer_cache.hpp"
#include "answer/opt.hpp"
#include "answer/query.hpp"
#include "answer/render.hpp"
#include "answer/resolver.hpp"
#include "answer/tsig.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/writer.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

void write_header(uint8_t* out, uint16_t id, uint16_t flags, uint16_t qd, uint16_t an, uint16_t ns,
                  uint16_t ar) {
  store16(out, id);
  store16(out + 2, flags);
  store16(out + 4, qd);
  store16(out + 6, an);
  store16(out + 8, ns);
  store16(out + 10, ar);
}

// RFC 6891 §6.2.5: a payload below 512 means 512; ours caps the rest. Over
// TCP the message length field's 65,535 is the only bound (RFC 1035 §4.2.2).
std::size_t response_limit(const Query& q, uint16_t our_payload, std::size_t out_size,
                           Transport transport) {
  // A signed answer leaves room for its TSIG record (RFC 8945 §5.3).
  if (transport == Transport::tcp) return std::min(out_size, max_message_size) - q.tsig_reserve;
  std::size_t limit = udp_plain_payload;
  if (q.edns.present && q.edns.payload > udp_plain_payload)
    limit = std::min<std::size_t>(q.edns.payload, our_payload);
  return std::min(limit, std::min(out_size, max_message_size)) - q.tsig_reserve;
}

// RFC 8945 §5.2 errors: NOTAUTH, the question, and a TSIG record whose
// error says why (signed for BADTIME, with an empty MAC otherwise, §5.3.2).
std::size_t tsig_error_answer(const Query& q, const TsigCheck& check, uint8_t* out,
                              std::size_t out_size, uint64_t now) {
  const std::size_t capacity = std::min(out_size, max_message_size);
  std::memcpy(out, q.message.data(), q.question_end);
  write_header(out, q.id,
               uint16_t(flag::qr | (q.flags & (flag::rd | flag::opcode_mask)) | rcode::notauth), 1,
               0, 0, 0);
  if (check.error == tsig_error::badtime) {
    TsigSigner signer(*check.key, q.tsig);
    return signer.sign(out, q.question_end, capacity, now, check.error);
  }
  return append_unsigned_tsig(out, q.question_end, capacity, q.tsig, check.error);
}

// NSD's answer_chaos with hide-identity and hide-version: the names it knows
// are refused as prohibited, anything else as not supported.
int chaos_error(const Query& q) {
  static constexpr std::string_view known[] = {{"\2id\6server\0", 11},
                                               {"\10hostname\4bind\0", 15},
                                               {"\7version\6server\0", 16},
                                               {"\7version\4bind\0", 14}};
  if (q.qtype != rr_type::txt && q.qtype != rr_type::any) return ede::not_supported;
  for (std::string_view name : known)
    if (q.lowered_name() == name) return ede::prohibited;
  return ede::not_supported;
}

}  // namespace

bool Server::is_apex(const Query& q) const {
  const int zone = catalog_->zone_for(q.lowered_name());
  return zone >= 0 && names_equal(catalog_->zone(uint16_t(zone)).origin, q.lowered_name());
}

bool Server::ixfr_up_to_date(const Query& q, uint16_t zone) const {
  if (q.qtype != rr_type::ixfr || !q.has_ixfr_serial) return false;
  const std::string_view rdata =
      catalog_->first_rr(catalog_->rrset(catalog_->zone(zone).soa)).rdata;
  constexpr std::size_t soa_numbers = 20;  // SERIAL REFRESH RETRY EXPIRE MINIMUM
  if (rdata.size() < soa_numbers) return false;
  const uint32_t ours = load32(rdata, rdata.size() - soa_numbers);
  // RFC 1982 §3.2: the client's serial equals ours or is greater.
  return int32_t(q.ixfr_serial - ours) >= 0;
}

Server::Server(std::unique_ptr<Catalog> catalog, const ServerOptions& options)
    : catalog_(std::move(catalog)), options_(options), limiter_(options.rate_limit) {
  if (options_.edns_payload < udp_plain_payload) options_.edns_payload = udp_plain_payload;
  if (options_.prerender) {
    cache_ = std::make_unique<AnswerCache>();
    cache_->build(*this);
  }
}

Server::~Server() = default;

void Server::replace_catalog(std::unique_ptr<Catalog> catalog) {
  catalog_ = std::move(catalog);
  if (cache_) {
    cache_ = std::make_unique<AnswerCache>();
    cache_->build(*this);
  }
}

int32_t Server::keepalive_for(const Query& q, Transport transport) const {
  // RFC 7828 §3.2.2: over UDP the option is ignored.
  if (transport != Transport::tcp || !q.edns.keepalive || !options_.tcp_idle_ms)
    return no_keepalive;
  return int32_t(std::min<uint32_t>(*options_.tcp_idle_ms / keepalive_unit_ms, 0xffff));
}

std::size_t Server::prerendered_bytes() const { return cache_ ? cache_->bytes() : 0; }
std::size_t Server::prerendered_answers() const { return cache_ ? cache_->size() : 0; }

std::size_t Server::answer(std::span<const uint8_t> query, const ClientAddress& client,
                           std::span<uint8_t> out, Transport transport, Transfer* transfer) {
  ++stats_.queries;
  const std::string_view message(reinterpret_cast<const char*>(query.data()), query.size());
  Query q;
  const Verdict verdict = parse_query(message, q);
  if (verdict == Verdict::answer || verdict == Verdict::badvers)
    ++stats_.by_qtype[std::min<std::size_t>(q.qtype, ServerStats::type_slots)];
  if (q.edns.present) ++stats_.edns;
  // RFC 8945 §5.2: a signed request is answered only once its TSIG checks.
  TsigSigner signer;
  const uint64_t now_s = options_.clock_unix_s ? options_.clock_unix_s() : 0;
  Outcome outcome;
  bool checked = false;
  if (q.has_tsig && (verdict == Verdict::answer || verdict == Verdict::badvers)) {
    const TsigCheck check = check_tsig(message, q.tsig, options_.tsig_keys, now_s);
    if (check.result == TsigCheck::formerr) {
      outcome = respond(q, Verdict::formerr, client, out.data(), out.size(), true, transport);
      checked = true;
    } else if (check.result == TsigCheck::refused) {
      ++stats_.tsig_refused;
      outcome.size = tsig_error_answer(q, check, out.data(), out.size(), now_s);
      outcome.rcode = rcode::notauth;
      checked = true;
    } else {
      ++stats_.tsig_signed;
      signer = TsigSigner(*check.key, q.tsig);
      q.tsig_reserve = uint16_t(signer.record_size());
    }
  }
  if (!checked) {
    outcome = respond(q, verdict, client, out.data(), out.size(), true, transport, transfer,
                      signer.active() ? &signer : nullptr);
  }
  if (outcome.size != 0 && limiter_.enabled() && transport == Transport::udp) {
    const uint64_t now = options_.clock_ms ? options_.clock_ms() : 0;
    switch (limiter_.check(client, now)) {
      case RateLimiter::Decision::send:
        break;
      case RateLimiter::Decision::drop:
        ++stats_.rate_limited_dropped;
        outcome.size = 0;
        break;
      case RateLimiter::Decision::slip: {
        // Header and question only, TC set: a real client retries over TCP.
        ++stats_.rate_limited_slipped;
        const bool question = verdict == Verdict::answer && load16(out.data() + 4) == 1;
        store16(out.data() + 2, uint16_t(load16(out.data() + 2) | flag::tc));
        store16(out.data() + 6, 0);
        store16(out.data() + 8, 0);
        store16(out.data() + 10, 0);
        outcome.size = question ? q.question_end : header_size;
        break;
      }
    }
  }
  // A transfer signs its own messages (its first is in `out` already).
  const bool transfer_started = transfer != nullptr && transfer->messages() != 0;
  if (outcome.size != 0 && signer.active() && !transfer_started) {
    const std::size_t signed_size =
        signer.sign(out.data(), outcome.size, std::min(out.size(), max_message_size), now_s);
    if (signed_size != 0) outcome.size = signed_size;
  }
  if (outcome.size == 0) {
    ++stats_.dropped;
  } else {
    ++stats_.by_rcode[std::min<std::size_t>(outcome.rcode, rcode::count - 1)];
    if (outcome.truncated) ++stats_.truncated;
    if (outcome.prerendered) ++stats_.prerendered;
  }
  if (observer_ != nullptr) {
    const bool has_question = q.qname_size != 0;
    observer_(observer_context_, {client, has_question ? q.qname() : std::string_view{}, q.qtype,
                                  outcome.rcode, outcome.size});
  }
  return outcome.size;
}

const CachedAnswer* Server::find_prerendered(const Query& q, uint16_t& shift) const {
  const bool without_edns = !q.edns.present;
  const std::string_view lowered = q.lowered_name();
  if (uint32_t n = catalog_->find(lowered, q.hash); n != no_node) {
    return catalog_->node(n).flags & node_flag::deepest_zone
               ? cache_->find(n, q.qtype, without_edns)
               : nullptr;
  }
  // Not in the zone: below a cut, the referral of its closest ancestor.
  const int labels = label_count(lowered);
  for (int strip = 1; strip < labels; ++strip) {
    const std::string_view up = strip_labels(lowered, strip);
    const uint32_t n = catalog_->find(up, name_hash(up));
    if (n == no_node) continue;
    if (!(catalog_->node(n).flags & node_flag::deepest_zone)) return nullptr;
    shift = uint16_t(lowered.size() - up.size());
    return cache_->find_below(n, without_edns);
  }
  return nullptr;
}

Server::Outcome Server::respond(const Query& q, Verdict verdict, const ClientAddress& client,
                                uint8_t* out, std::size_t out_size, bool use_cache,
                                Transport transport, Transfer* transfer, const TsigSigner* signer) {
  Outcome result;
  const uint16_t rd = q.flags & flag::rd;
  const uint16_t opcode_bits = q.flags & flag::opcode_mask;
  const int32_t keepalive = keepalive_for(q, transport);
  auto header_only = [&](uint16_t flags, uint16_t rcode) {
    write_header(out, q.id, uint16_t(flags | rcode), 0, 0, 0, 0);
    result.size = header_size;
    result.rcode = rcode;
    return result;
  };
  switch (verdict) {
    case Verdict::drop:
      return result;
    case Verdict::formerr:  // NSD's query_formerr keeps RD and the opcode
      return header_only(flag::qr | rd | opcode_bits, rcode::formerr);
    case Verdict::formerr_no_flags:
      return header_only(flag::qr, rcode::formerr);
    case Verdict::notimp:  // NSD's query_error keeps the query's flags but AD
      return header_only(uint16_t((q.flags & ~(flag::rcode_mask | flag::ad)) | flag::qr),
                         rcode::notimp);
    case Verdict::notify:  // NSD's answer_notify: no such zone, or no allow-notify
      return header_only(uint16_t((q.flags & ~(flag::rcode_mask | flag::ad)) | flag::qr),
                         is_apex(q) ? rcode::refused : rcode::nxdomain);
    case Verdict::empty_with_edns: {
      MessageWriter w(out, response_limit(q, options_.edns_payload, out_size, transport));
      w.put_bytes(std::string_view("\0\0\0\0\0\0\0\0\0\0\0\0", header_size));
      write_opt(w, options_.edns_payload, 0, q.edns.dnssec_ok, ede::none, {}, keepalive);
      write_header(out, q.id, flag::qr | rd, 0, 0, 0, 1);
      result.size = w.position();
      return result;
    }
    case Verdict::badvers:
    case Verdict::answer:
      break;
  }
  const std::size_t limit = response_limit(q, options_.edns_payload, out_size, transport);
  MessageWriter w(out, limit);
  w.put_bytes(q.message.substr(0, q.question_end));  // header (patched below) and question
  w.remember_name(header_size, q.qname());
  uint16_t flags = flag::qr | rd;
  uint16_t qdcount = 1;
  SectionCounts counts;
  int ede = ede::none;
  std::string_view ede_text;
  uint16_t rcode = rcode::noerror;
  if (verdict == Verdict::badvers) {
    // RFC 6891 §7; NSD keeps the query's flags but AD here, and sends no DO bit.
    flags = uint16_t((q.flags & ~(flag::ad | flag::rcode_mask)) | flag::qr);
    rcode = rcode::badvers;
  } else if (q.qclass != rr_class::in && q.qclass != rr_class::any) {
    rcode = rcode::refused;
    if (q.qclass == rr_class::ch) {
      ede = chaos_error(q);
    } else {
      ede = ede::not_supported;  // NSD drops the question here
      w.rewind(header_size);
      qdcount = 0;
    }
  } else if (q.qtype == rr_type::axfr && transport == Transport::udp) {
    rcode = rcode::notimp;  // AXFR needs TCP (RFC 5936 §4.2); NSD answers NOTIMP
  } else if (q.qtype == rr_type::axfr || q.qtype == rr_type::ixfr) {
    // NSD's answer_axfr_ixfr: NOTAUTH for a name that is no served zone's
    // apex, REFUSED to a client its provide-xfr does not allow.
    const int zone = catalog_->zone_for(q.lowered_name());
    const bool apex =
        zone >= 0 && names_equal(catalog_->zone(uint16_t(zone)).origin, q.lowered_name());
    const bool allowed =
        apex && options_.transfer.allows(client, signer ? signer->key_name() : std::string_view());
    if (!apex) {
      rcode = rcode::notauth;
    } else if (!allowed || (transport == Transport::tcp && transfer == nullptr)) {
      ++stats_.transfers_refused;
      rcode = rcode::refused;
    } else if (transport == Transport::udp || ixfr_up_to_date(q, uint16_t(zone))) {
      // RFC 1995 §2: the current SOA alone to an IXFR whose version is the
      // same or newer (serial arithmetic, RFC 1982), and over UDP, where a
      // server that cannot fit the changes sends it and the client goes to TCP.
      const RRset& soa = catalog_->rrset(catalog_->zone(uint16_t(zone)).soa);
      const RRView rr = catalog_->first_rr(soa);
      flags |= flag::aa;
      if (w.put_name(q.qname(), true) && w.put16(rr_type::soa) && w.put16(rr_class::in) &&
          w.put32(rr.ttl) && w.put_rdata(rr_type::soa, rr.rdata)) {
        counts.answer = 1;
      }
    } else {
      // Over TCP the whole zone, for IXFR too (RFC 1995 §4: a server may
      // answer an IXFR with a full transfer; Keel keeps no history).
      ++stats_.transfers;
      Transfer::Opt opt;
      opt.present = q.edns.present;
      opt.dnssec_ok = q.edns.dnssec_ok;
      opt.payload = options_.edns_payload;
      opt.keepalive = keepalive;
      *transfer = Transfer(*catalog_, uint16_t(zone), q.id, q.flags,
                           q.message.substr(header_size, q.question_end - header_size), opt);
      transfer->hold(catalog_);  // a new zone copy may be swapped in meanwhile
      if (signer != nullptr) transfer->sign_with(*signer, options_.clock_unix_s);
      result.size = transfer->next(std::span(out, out_size));
      return result;
    }
  } else {
    // Over TCP the general path: a pre-rendered answer was fitted to a UDP
    // size, and a referral's glue that did not fit is left out without TC
    // (RFC 9471 §3), so it is not the whole answer.
    // With DO, a signed zone's answers carry RRSIGs and proofs the pre-rendered
    // ones lack (decision 0146): those take the general path.
    const bool signed_answer = q.edns.dnssec_ok && catalog_->any_signed();
    if (use_cache && cache_ && q.qclass == rr_class::in && transport == Transport::udp &&
        !signed_answer) {
      uint16_t shift = 0;  // question octets beyond the node's name
      const CachedAnswer* hit = find_prerendered(q, shift);
      const bool family_ok =
          hit && (hit->arcount == 0 || client.family == ClientAddress::Family::ipv4);
      const std::size_t opt = q.edns.present ? opt_record_size : 0;
      if (family_ok && q.question_end + hit->length + opt <= limit) {
        w.put_bytes(cache_->body(*hit));
        if (shift == 0 || AnswerCache::move_pointers(out + q.question_end, *hit, shift)) {
          if (q.edns.present)
            write_opt(w, options_.edns_payload, 0, q.edns.dnssec_ok, ede::none, {}, no_keepalive);
          write_header(
              out, q.id, uint16_t(flag::qr | rd | (hit->flags & CachedAnswer::response_flags)), 1,
              hit->ancount, hit->nscount, uint16_t(hit->arcount + (q.edns.present ? 1 : 0)));
          result.size = w.position();
          result.rcode = hit->flags & flag::rcode_mask;  // (the extended bits are never cached)
          result.truncated = (hit->flags & flag::tc) != 0;
          result.prerendered = true;
          return result;
        }
        w.rewind(q.question_end);  // a moved pointer would not fit: the normal path
      }
    }
    Plan plan;
    const Request request{q.qname(), q.qtype, q.qclass,
                          client.family == ClientAddress::Family::ipv6, q.edns.dnssec_ok};
    resolve(*catalog_, request, plan);
    ede = plan.ede;
    ede_text = plan.ede_text;
    rcode = plan.rcode;
    if (plan.authoritative) flags |= flag::aa;
    if (q.edns.present) w.set_limit(limit - opt_size(ede, ede_text, keepalive));
    counts = render_sections(*catalog_, plan, w);
    w.set_limit(limit);
    if (counts.truncated) flags |= flag::tc;
  }
  if (!q.edns.present) ede = ede::none;
  if (q.edns.present) {
    const bool dnssec_ok = verdict != Verdict::badvers && q.edns.dnssec_ok;
    write_opt(w, options_.edns_payload, rcode, dnssec_ok, ede, ede_text, keepalive);
    ++counts.additional;
  }
  write_header(out, q.id, uint16_t(flags | (rcode & flag::rcode_mask)), qdcount, counts.answer,
               counts.authority, counts.additional);
  result.size = w.position();
  result.rcode = rcode;
  result.truncated = counts.truncated;
  result.extended_error = ede != ede::none;
  return result;
}

}  // namespace keel::dns
