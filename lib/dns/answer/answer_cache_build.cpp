// The pre-rendered answers at load time: every answer rendered once through
// the normal path (answer_cache.hpp says which). Compiled for size in images
// (lib/dns/keel-library.cmake): it runs once, at boot.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "answer/answer_cache.hpp"
#include "answer/query.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/server.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

// The types worth rendering at a node: those it holds, and at a CNAME or a
// zone cut (where every type gets the same kind of answer) A and AAAA too.
std::vector<uint16_t> types_at(const Catalog& catalog, uint32_t n) {
  std::vector<uint16_t> types;
  bool redirects =
      (catalog.node(n).flags & (node_flag::delegation | node_flag::below_delegation)) != 0;
  for (const RRset& set : catalog.rrsets(n)) {
    types.push_back(set.type);
    if (set.type == rr_type::cname) redirects = true;
  }
  if (redirects) {
    for (uint16_t t : {rr_type::a, rr_type::aaaa})
      if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
  }
  return types;
}

// A type the node does not hold, to render the "other types" answer with.
uint16_t absent_type(const Catalog& catalog, uint32_t n) {
  uint16_t type = 65534;  // private use (RFC 6895 §3.1): rarely in a zone, but checked
  while (catalog.find_rrset(n, type) != nullptr) --type;
  return type;
}

bool answers_other_types(const Catalog& catalog, uint32_t n) {
  return catalog.find_rrset(n, rr_type::cname) == nullptr;
}

bool is_referral_node(const Node& node) {
  return (node.flags & (node_flag::delegation | node_flag::below_delegation)) &&
         !(node.flags & node_flag::below_dname);
}

// Whether the referral `response` to a question for node `n` also answers
// names below n that are not in the zone, with its pointers moved. It does
// if it holds only NS and address records and every name in it below n is
// a node: a longer question adds compression targets only for names below n
// that are not nodes, so no name of the referral can match one.
bool shareable_referral(const Catalog& catalog, uint32_t n, std::string_view response) {
  Message message;
  if (parse_message(response, message) != WireError::none) return false;
  const std::string_view ancestor = catalog.name(n);
  auto in_zone = [&](std::string_view name) {
    return names_equal(name, ancestor) || !is_subdomain(name, ancestor) ||
           catalog.find(lowercase_name(name)) != no_node;
  };
  for (const auto* section : {&message.answers, &message.authority, &message.additional}) {
    for (const Record& r : *section) {
      if (r.type == rr_type::opt) continue;
      if (r.type != rr_type::ns && r.type != rr_type::a && r.type != rr_type::aaaa) return false;
      if (!in_zone(r.owner) || (r.type == rr_type::ns && !in_zone(r.rdata))) return false;
    }
  }
  return true;
}

// The question as a client would send it; with EDNS (our payload size, so
// that answers up to it are rendered) or without.
std::string make_query(std::string_view name, uint16_t type, bool edns, uint16_t payload) {
  std::string query("\0\0\0\0\0\1\0\0\0\0\0\0", header_size);
  uint8_t fixed[4];
  query += name;
  store16(fixed, type);
  store16(fixed + 2, rr_class::in);
  query.append(reinterpret_cast<const char*>(fixed), 4);
  if (!edns) return query;
  query[11] = 1;  // ARCOUNT: the OPT record
  query.append("\0\0\x29", 3);
  store16(fixed, payload);
  query.append(reinterpret_cast<const char*>(fixed), 2);
  query.append(6, '\0');  // extended RCODE, version, flags, RDLENGTH
  return query;
}

}  // namespace

bool AnswerCache::render(Server& server, uint32_t n, uint16_t type, uint16_t flavour,
                         std::vector<uint8_t>& response, Stored& stored) {
  const bool edns = !(flavour & CachedAnswer::without_edns);
  const std::string query =
      make_query(server.catalog_->name(n), type, edns, server.options_.edns_payload);
  Query q;
  const Verdict verdict = parse_query(query, q);
  if (verdict != Verdict::answer) return false;
  const Server::Outcome out = server.respond(q, verdict, ClientAddress::ipv4(0, 0), response.data(),
                                             response.size(), false);
  CachedAnswer a;
  a.qtype = type;
  // A truncated answer is only kept for the 512 octets without EDNS: with
  // EDNS the client's payload size decides what fits. What is not kept is
  // marked, so that the query is not answered with the "other types" entry.
  if (out.size == 0 || out.extended_error || (out.truncated && edns)) {
    a.flags = uint16_t(flavour | CachedAnswer::normal_path);
    entries_.push_back(a);
    ++markers_;
    return false;
  }
  const std::size_t opt = edns ? opt_record_size : 0;
  a.flags = uint16_t((load16(response.data() + 2) & CachedAnswer::response_flags) | flavour);
  const std::string_view message(reinterpret_cast<const char*>(response.data()), out.size);
  if ((flavour & CachedAnswer::other_types) && is_referral_node(server.catalog_->node(n)) &&
      shareable_referral(*server.catalog_, n, message))
    a.flags |= CachedAnswer::below_too;
  a.ancount = load16(response.data() + 6);
  a.nscount = load16(response.data() + 8);
  a.arcount = uint16_t(load16(response.data() + 10) - (edns ? 1 : 0));
  a.length = uint16_t(out.size - opt - q.question_end);
  const std::string body(reinterpret_cast<const char*>(response.data()) + q.question_end, a.length);
  auto [it, fresh] = stored.emplace(body, uint32_t(bodies_.size()));
  if (fresh) bodies_ += body;
  a.offset = it->second;
  entries_.push_back(a);
  return q.question_end + a.length > udp_plain_payload;
}

void AnswerCache::build(Server& server) {
  const Catalog& catalog = *server.catalog_;
  first_.assign(catalog.node_count() + 1, 0);
  std::vector<uint8_t> response(max_message_size);
  Stored stored;
  for (uint32_t n = 0; n < catalog.node_count(); ++n) {
    first_[n] = uint32_t(entries_.size());
    const Node& node = catalog.node(n);
    if (!(node.flags & node_flag::deepest_zone) || (node.flags & node_flag::below_dname)) continue;
    // An NSEC3 owner (a hashed name, half the names of an NSEC3 zone) is no name
    // of the zone (NXDOMAIN) and rarely asked: the normal path answers it.
    if (catalog.find_rrset(n, rr_type::nsec3) != nullptr) continue;
    std::vector<std::pair<uint16_t, uint16_t>> wanted;  // type, flags
    for (uint16_t type : types_at(catalog, n)) wanted.push_back({type, 0});
    if (answers_other_types(catalog, n))
      wanted.push_back({absent_type(catalog, n), CachedAnswer::other_types});
    for (auto [type, other] : wanted) {
      if (render(server, n, type, other, response, stored))
        render(server, n, type, uint16_t(other | CachedAnswer::without_edns), response, stored);
    }
  }
  first_[catalog.node_count()] = uint32_t(entries_.size());
  entries_.shrink_to_fit();
  bodies_.shrink_to_fit();
}

}  // namespace keel::dns
