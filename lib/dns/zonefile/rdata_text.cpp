// RDATA presentation formats, driven by the field table of rdata.hpp.
#include "zonefile/rdata_text.hpp"

#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/rdata.hpp"
#include "zonefile/dnssec_text.hpp"
#include "zonefile/text_values.hpp"

namespace keel::dns::zonefile {
namespace {

// Types Keel serves only in the RFC 3597 generic form, known by mnemonic so
// that "HINFO \# 4 ..." reads and "HINFO cpu os" gets a helpful error.
struct OpaqueType {
  std::string_view mnemonic;
  uint16_t type;
};
constexpr OpaqueType opaque_types[] = {
    {"LOC", 29},   {"CERT", 37},       {"APL", 42},    {"IPSECKEY", 45}, {"DHCID", 49},
    {"HIP", 55},   {"OPENPGPKEY", 61}, {"CSYNC", 62},  {"ZONEMD", 63},   {"SVCB", 64},
    {"HTTPS", 65}, {"EUI48", 108},     {"EUI64", 109},
};

const char* field_noun(Field f) {
  switch (f) {
    case Field::u8:
    case Field::u16:
    case Field::u32:
      return "a number";
    case Field::algorithm:
      return "an algorithm";
    case Field::rrtype:
      return "a type";
    case Field::time:
      return "a time";
    case Field::base64:
      return "base64 data";
    case Field::salt:
      return "a salt";
    case Field::hash32:
      return "a base32hex hash";
    case Field::type_bitmap:
      return "types";
    case Field::ipv4:
      return "an IPv4 address";
    case Field::ipv6:
      return "an IPv6 address";
    case Field::compressed_name:
    case Field::name:
      return "a domain name";
    case Field::char_string:
    case Field::char_strings:
      return "a string";
    case Field::caa_tag:
      return "a CAA tag";
    case Field::rest:
      return "a value";
    case Field::rest_nonempty:
      return "hex digits";
    case Field::end:
      break;
  }
  return "a field";
}

// RFC 3597 §5: \# <length> <hex>..., hex optionally split into several tokens.
bool parse_generic(uint16_t type, const std::vector<Token>& tokens, std::size_t first,
                   std::string& out, RdataError& error) {
  uint32_t length = 0;
  if (first + 1 >= tokens.size()) {
    error = {first, "\\# needs a length"};
    return false;
  }
  if (Error e = parse_number(tokens[first + 1].text, max_message_size, length); !e.empty()) {
    error = {first + 1, "\\# length: " + e};
    return false;
  }
  for (std::size_t t = first + 2; t < tokens.size(); ++t) {
    if (Error e = parse_hex(tokens[t].text, out); !e.empty()) {
      error = {t, e};
      return false;
    }
  }
  if (out.size() != length) {
    error = {first + 1, "\\# length " + std::to_string(length) + " but " +
                            std::to_string(out.size()) + " octets of data"};
    return false;
  }
  if (!rdata_valid(type, out)) {
    error = {first, "the generic RDATA is not valid for type " + type_name(type)};
    return false;
  }
  return true;
}

Error parse_integer(std::string_view text, Field f, bool timer, std::string& out) {
  uint32_t value = 0;
  const uint32_t max = f == Field::u8 ? 0xff : f == Field::u16 ? 0xffff : 0xffffffffu;
  Error e = timer ? parse_ttl(text, value) : parse_number(text, max, value);
  if (!e.empty()) return e;
  if (f == Field::u32) out += static_cast<char>(value >> 24), out += static_cast<char>(value >> 16);
  if (f != Field::u8) out += static_cast<char>(value >> 8);
  out += static_cast<char>(value);
  return {};
}

// One field from tokens[t..]; advances t past what it used.
Error parse_field(uint16_t type, std::size_t index, Field f, const std::vector<Token>& tokens,
                  std::size_t& t, std::string_view origin, std::string& out) {
  const Token& token = tokens[t];
  std::string name;
  switch (f) {
    case Field::u8:
    case Field::u16:
    case Field::u32:
      ++t;
      // RFC 1035 §5.1 leaves the SOA timers as numbers; BIND and NSD also take units.
      return parse_integer(token.text, f, type == rr_type::soa && index >= 3, out);
    case Field::ipv4:
      ++t;
      return parse_ipv4(token.text, out);
    case Field::ipv6:
      ++t;
      return parse_ipv6(token.text, out);
    case Field::compressed_name:
    case Field::name:
      ++t;
      if (Error e = parse_name(token.text, origin, name); !e.empty()) return e;
      out += name;
      return {};
    case Field::char_string:
      ++t;
      return parse_character_string(token.text, out);
    case Field::char_strings:
      for (; t < tokens.size(); ++t) {
        if (Error e = parse_character_string(tokens[t].text, out); !e.empty()) return e;
      }
      return {};
    case Field::caa_tag: {
      ++t;
      // RFC 8659 §4.1: one or more ASCII letters and digits.
      if (token.text.empty() || token.text.size() > max_character_string) return "bad CAA tag";
      for (char c : token.text) {
        const bool alnum =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum) return "CAA tag '" + token.text + "' is not letters and digits";
      }
      out += static_cast<char>(token.text.size());
      out += token.text;
      return {};
    }
    case Field::rest:  // CAA value: one string, stored without a length octet (RFC 8659 §4.1.1)
      ++t;
      return unescape(token.text, out);
    case Field::rest_nonempty:
      for (; t < tokens.size(); ++t) {
        if (Error e = parse_hex(tokens[t].text, out); !e.empty()) return e;
      }
      return {};
    case Field::algorithm:
      ++t;
      return parse_algorithm(token.text, out);
    case Field::rrtype: {
      ++t;
      const int number = type_number(token.text);
      if (number < 0) return "unknown type '" + token.text + "'";
      out += static_cast<char>(number >> 8);
      out += static_cast<char>(number);
      return {};
    }
    case Field::time:
      ++t;
      return parse_time(token.text, out);
    case Field::base64: {
      std::string joined;  // RFC 4034 §2.2: the key may hold white space
      for (; t < tokens.size(); ++t) joined += tokens[t].text;
      return parse_base64(joined, out);
    }
    case Field::salt:
      ++t;
      return parse_salt(token.text, out);
    case Field::hash32:
      ++t;
      return parse_base32hex(token.text, out);
    case Field::type_bitmap: {
      std::vector<uint16_t> types;
      for (; t < tokens.size(); ++t) {
        const int number = type_number(tokens[t].text);
        if (number < 0) return "unknown type '" + tokens[t].text + "' in the type bit map";
        types.push_back(uint16_t(number));
      }
      append_type_bitmap(std::move(types), out);
      return {};
    }
    case Field::end:
      break;
  }
  return "internal: no such field";
}

}  // namespace

int type_number(std::string_view text) {
  if (const TypeInfo* t = type_info(text)) return t->type;
  if (text.size() > 4 && same_text(text.substr(0, 4), "TYPE") && is_decimal(text.substr(4))) {
    uint32_t value = 0;
    if (parse_number(text.substr(4), 0xffff, value).empty()) return int(value);
    return -1;
  }
  for (const OpaqueType& o : opaque_types)
    if (same_text(o.mnemonic, text)) return o.type;
  return -1;
}

bool parse_rdata(uint16_t type, const std::vector<Token>& tokens, std::size_t first,
                 std::string_view origin, std::string& out, RdataError& error) {
  out.clear();
  if (first < tokens.size() && !tokens[first].quoted && tokens[first].text == "\\#") {
    return parse_generic(type, tokens, first, out, error);
  }
  const TypeInfo* info = type_info(type);
  if (info == nullptr) {
    const std::size_t at = first == 0 ? 0 : first - 1;  // the type
    error = {at, tokens[at].text + " is only read in the generic form: \\# length hex (RFC 3597)"};
    return false;
  }
  std::size_t t = first;
  for (std::size_t f = 0; f < max_fields && info->fields[f] != Field::end; ++f) {
    if (t >= tokens.size() && info->fields[f] == Field::type_bitmap) break;  // none: allowed
    if (t >= tokens.size()) {
      error = {tokens.size() - 1, "missing " + std::string(field_noun(info->fields[f])) +
                                      " in the " + std::string(info->mnemonic) + " RDATA"};
      return false;
    }
    const std::size_t at = t;
    if (Error e = parse_field(type, f, info->fields[f], tokens, t, origin, out); !e.empty()) {
      error = {at, e};
      return false;
    }
  }
  if (t < tokens.size()) {
    error = {t, "unexpected '" + tokens[t].text + "' after the " + std::string(info->mnemonic) +
                    " RDATA"};
    return false;
  }
  if (!rdata_valid(type, out)) {
    error = {first, "the RDATA is not valid for type " + type_name(type)};
    return false;
  }
  return true;
}

}  // namespace keel::dns::zonefile
