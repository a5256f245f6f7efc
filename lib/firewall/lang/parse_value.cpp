// Values: addresses, prefixes, ranges, numbers, names, lists, $references and list files.
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

#include "lang/parser.hpp"

namespace keel::firewall {
namespace {
constexpr uint32_t kMaxOctet = 255;
constexpr uint32_t kAddressBits = 32;
}  // namespace

uint32_t Parser::parse_number_token(const Token& token) {
  std::string_view text = token.text;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  uint32_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw CompileError(token.location, "number too large: expected at most 4294967295");
  }
  return value;
}

uint32_t Parser::parse_address_token(const Token& token, uint8_t* prefix_length,
                                     bool allow_host_bits) {
  std::string_view text = token.text;
  size_t slash = text.find('/');
  std::string_view dotted = text.substr(0, slash);
  uint32_t address = 0;
  int parts = 0;
  size_t pos = 0;
  while (pos <= dotted.size()) {
    size_t dot = dotted.find('.', pos);
    if (dot == std::string_view::npos) dot = dotted.size();
    uint32_t octet = 0;
    auto [end, error] = std::from_chars(dotted.data() + pos, dotted.data() + dot, octet);
    if (error != std::errc() || end != dotted.data() + dot || octet > kMaxOctet || ++parts > 4) {
      throw CompileError(token.location, "malformed IPv4 address '" + std::string(text) +
                                             "': expected four numbers 0-255 separated by dots");
    }
    address = address << 8 | octet;
    pos = dot + 1;
  }
  if (parts != 4) {
    throw CompileError(token.location, "malformed IPv4 address '" + std::string(text) +
                                           "': expected four numbers 0-255 separated by dots");
  }
  uint32_t length = kAddressBits;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
    if (error != std::errc() || length > kAddressBits) {
      throw CompileError(token.location, "prefix length out of range in '" + std::string(text) +
                                             "': expected 0-32");
    }
    uint32_t host_mask = length == 0 ? ~0u : (length == kAddressBits ? 0 : ~0u >> length);
    if ((address & host_mask) && !allow_host_bits) {
      throw CompileError(token.location, "prefix '" + std::string(text) +
                                             "' has host bits set: expected the network address");
    }
    if (!prefix_length)
      throw CompileError(token.location,
                         "expected a single address, found prefix '" + std::string(text) + "'");
  }
  if (prefix_length) *prefix_length = static_cast<uint8_t>(length);
  return address;
}

Address6 Parser::parse_address6_token(const Token& token, int* prefix_length) {
  std::string_view text = token.text;
  size_t slash = text.find('/');
  std::string error;
  std::optional<Address6> address = parse_address6(text.substr(0, slash), error);
  if (!address)
    throw CompileError(token.location,
                       "malformed IPv6 address '" + std::string(text) + "': " + error);
  int length = kAddress6Bits;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
    if (status != std::errc() || length > kAddress6Bits) {
      throw CompileError(token.location, "prefix length out of range in '" + std::string(text) +
                                             "': expected 0-128");
    }
    if (*address & host_mask6(length)) {
      throw CompileError(token.location, "prefix '" + std::string(text) +
                                             "' has host bits set: expected the network address");
    }
    if (!prefix_length)
      throw CompileError(token.location,
                         "expected a single address, found prefix '" + std::string(text) + "'");
  }
  if (prefix_length) *prefix_length = length;
  return *address;
}

uint32_t Parser::expect_address() {
  if (current_.kind == TokenKind::address6) {
    throw CompileError(current_.location,
                       "'" + std::string(current_.text) +
                           "' is an IPv6 address: interfaces, routes and NAT take IPv4 only");
  }
  if (current_.kind != TokenKind::address) fail("an IPv4 address");
  uint32_t address = parse_address_token(current_, nullptr);
  advance();
  return address;
}

uint32_t Parser::expect_number() {
  if (current_.kind != TokenKind::number) fail("a number");
  uint32_t number = parse_number_token(current_);
  advance();
  return number;
}

void Parser::add_item(Value& value, ValueType type, uint32_t lo, uint32_t hi, SourceLocation loc) {
  if (value.type == ValueType::empty) {
    value.type = type;
  } else if (value.type != type) {
    throw CompileError(loc, std::string("mixed list: expected ") + to_string(value.type) +
                                " like the first element, found " + to_string(type));
  }
  value.set.push_back({lo, hi});
  if (hi >= value.max_value) {
    value.max_value = hi;
    value.max_location = loc;
  }
}

void Parser::parse_item(Value& value) {
  SourceLocation loc = current_.location;
  if (current_.kind == TokenKind::address6) {
    parse_item6(value);
  } else if (current_.kind == TokenKind::address) {
    uint8_t length = 0;
    uint32_t lo = parse_address_token(current_, &length);
    advance();
    uint32_t hi = length == 0 ? ~0u : lo | (length == kAddressBits ? 0 : ~0u >> length);
    if (length == kAddressBits && accept("-")) {
      hi = expect_address();
      if (hi < lo)
        throw CompileError(loc, "impossible range: start address is greater than end address");
    }
    add_item(value, ValueType::address, lo, hi, loc);
  } else if (current_.kind == TokenKind::number) {
    uint32_t lo = parse_number_token(current_);
    advance();
    uint32_t hi = lo;
    if (accept("-")) {
      hi = expect_number();
      if (hi < lo) {
        throw CompileError(loc, "impossible range " + std::to_string(lo) + "-" +
                                    std::to_string(hi) + ": start is greater than end");
      }
    }
    add_item(value, ValueType::number, lo, hi, loc);
  } else if (current_.kind == TokenKind::name && !number_names_.empty()) {
    for (const NumberName& n : number_names_) {
      if (n.name == current_.text) {
        advance();
        add_item(value, ValueType::number, n.value, n.value, loc);
        return;
      }
    }
    std::string known;
    for (const NumberName& n : number_names_)
      known += (known.empty() ? "" : ", ") + std::string(n.name);
    throw CompileError(loc, "unknown name '" + std::string(current_.text) +
                                "': expected a number or one of " + known);
  } else if (current_.kind == TokenKind::name) {
    if (value.type != ValueType::empty && value.type != ValueType::name) {
      throw CompileError(loc, std::string("mixed list: expected ") + to_string(value.type) +
                                  " like the first element, found name '" +
                                  std::string(current_.text) + "'");
    }
    value.type = ValueType::name;
    value.names.emplace_back(current_.text);
    value.name_locations.push_back(loc);
    advance();
  } else {
    fail("an address, prefix, range, number or name");
  }
}

// An IPv6 address, prefix or range: one more 128-bit range in value.set6.
void Parser::parse_item6(Value& value) {
  SourceLocation loc = current_.location;
  if (value.type != ValueType::empty && value.type != ValueType::address6) {
    throw CompileError(loc, std::string("mixed list: expected ") + to_string(value.type) +
                                " like the first element, found IPv6 address");
  }
  int length = 0;
  Address6 lo = parse_address6_token(current_, &length);
  advance();
  Address6 hi = lo | host_mask6(length);
  if (length == kAddress6Bits && accept("-")) {
    if (current_.kind != TokenKind::address6) fail("an IPv6 address to end the range");
    hi = parse_address6_token(current_, nullptr);
    advance();
    if (hi < lo)
      throw CompileError(loc, "impossible range: start address is greater than end address");
  }
  value.type = ValueType::address6;
  value.set6.push_back({lo, hi});
}

Value Parser::parse_value(bool allow_file) {
  Value value;
  value.location = current_.location;
  if (accept("$")) {
    value.reference = expect_name("a defined name after '$'");
    return value;
  }
  if (allow_file && accept("file")) {
    if (current_.kind != TokenKind::string) fail("a quoted file name after 'file'");
    Token path = current_;
    advance();
    load_list_file(value, path);
    return value;
  }
  if (accept("{")) {
    do {
      if (at("}")) break;  // trailing comma
      parse_item(value);
    } while (accept(","));
    expect("}", "',' or '}' in the list");
    return value;
  }
  parse_item(value);
  return value;
}

// One entry a line; the list file gets its own file index so errors point into it.
void Parser::load_list_file(Value& value, const Token& path_token) {
  std::string path(path_token.text);
  if (!path.empty() && path[0] != '/') path = base_dir_ + "/" + path;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(path_token.location, "cannot read list file '" + path + "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  program_.files.push_back(path);
  uint32_t file = static_cast<uint32_t>(program_.files.size() - 1);
  Lexer saved = lexer_;
  Token saved_token = current_;
  lexer_ = Lexer(text, file);
  advance();
  while (current_.kind != TokenKind::end) {
    parse_item(value);
    accept(",");
  }
  lexer_ = saved;
  current_ = saved_token;
}

}  // namespace keel::firewall
