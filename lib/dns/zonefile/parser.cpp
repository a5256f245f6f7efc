// Master-file entries: directives, owner / TTL / class / type, and RDATA.
#include <fstream>
#include <optional>
#include <sstream>

#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/zone_file.hpp"
#include "zonefile/lexer.hpp"
#include "zonefile/rdata_text.hpp"
#include "zonefile/text_values.hpp"

namespace keel::dns {
namespace {

using zonefile::Entry;
using zonefile::Token;

constexpr int max_include_depth = 8;

bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(octet(a, i)) != ascii_lower(octet(b, i))) return false;
  return true;
}

// RFC 1035 §5.1 class mnemonics (and RFC 3597 CLASSnnn).
bool is_class_token(std::string_view t) {
  return same_text(t, "IN") || same_text(t, "CH") || same_text(t, "CS") || same_text(t, "HS") ||
         (t.size() > 5 && same_text(t.substr(0, 5), "CLASS") && zonefile::is_decimal(t.substr(5)));
}

// IN, or its RFC 3597 §5 generic name CLASS1 (NSD reads both).
bool is_class_in(std::string_view t) {
  uint32_t value = 0;
  return same_text(t, "IN") ||
         (same_text(t.substr(0, 5), "CLASS") &&
          zonefile::parse_number(t.substr(5), 0xffff, value).empty() && value == rr_class::in);
}

class ZoneFileParser {
 public:
  ZoneFileParser(ZoneData& zone, std::vector<Diagnostic>& errors, const ZoneFileOptions& options)
      : zone_(zone), errors_(errors), options_(options) {}

  // One file's text; `origin` is the origin it starts with.
  void parse(std::string_view text, uint16_t file, std::string origin, int depth);
  bool failed() const { return error_count_ > 0; }
  void error(uint16_t file, uint32_t line, uint32_t column, std::string message);

 private:
  struct FileState {
    uint16_t file;
    int depth;
    std::string origin;
    std::string owner;  // the last owner, for entries that omit it
  };

  void entry(FileState& state, const Entry& e);
  void directive(FileState& state, const Entry& e);
  void include(FileState& state, const Entry& e);
  void error_at(const FileState& state, const Token& t, std::string message) {
    error(state.file, t.line, t.column, std::move(message));
  }

  ZoneData& zone_;
  std::vector<Diagnostic>& errors_;
  const ZoneFileOptions& options_;
  std::size_t error_count_ = 0;
  std::optional<uint32_t> default_ttl_;  // $TTL (RFC 2308 §4)
  std::optional<uint32_t> last_ttl_;     // the last explicit TTL (RFC 1035 §5.1)
};

void ZoneFileParser::error(uint16_t file, uint32_t line, uint32_t column, std::string message) {
  ++error_count_;
  if (error_count_ > options_.max_errors) return;
  if (error_count_ == options_.max_errors) message += " (and stopping: too many errors)";
  errors_.push_back({zone_.files[file], line, column, std::move(message)});
}

void ZoneFileParser::parse(std::string_view text, uint16_t file, std::string origin, int depth) {
  FileState state{file, depth, std::move(origin), {}};
  zonefile::Lexer lexer(text);
  Entry e;
  zonefile::LexError lex_error;
  while (error_count_ < options_.max_errors) {
    if (lexer.next(e, lex_error)) {
      entry(state, e);
    } else if (!lex_error.message.empty()) {
      error(file, lex_error.line, lex_error.column, lex_error.message);
      lex_error = {};
    } else {
      break;
    }
  }
}

void ZoneFileParser::directive(FileState& state, const Entry& e) {
  const Token& d = e.tokens[0];
  const std::size_t args = e.tokens.size() - 1;
  if (same_text(d.text, "$ORIGIN")) {
    if (args != 1) return error_at(state, d, "$ORIGIN takes one name");
    std::string origin;
    if (auto err = zonefile::parse_name(e.tokens[1].text, state.origin, origin); !err.empty()) {
      return error_at(state, e.tokens[1], err);
    }
    state.origin = std::move(origin);
  } else if (same_text(d.text, "$TTL")) {
    if (args != 1) return error_at(state, d, "$TTL takes one TTL");
    uint32_t ttl = 0;
    if (auto err = zonefile::parse_ttl(e.tokens[1].text, ttl); !err.empty()) {
      return error_at(state, e.tokens[1], err);
    }
    default_ttl_ = ttl;
  } else if (same_text(d.text, "$INCLUDE")) {
    include(state, e);
  } else {
    error_at(state, d, "unknown directive '" + d.text + "'");
  }
}

void ZoneFileParser::include(FileState& state, const Entry& e) {
  const Token& d = e.tokens[0];
  if (e.tokens.size() < 2 || e.tokens.size() > 3)
    return error_at(state, d, "$INCLUDE takes a file and an optional origin");
  if (state.depth >= max_include_depth) {
    return error_at(
        state, d,
        "$INCLUDE nested more than " + std::to_string(max_include_depth) + " deep (a loop?)");
  }
  std::string origin = state.origin;
  if (e.tokens.size() == 3) {
    if (auto err = zonefile::parse_name(e.tokens[2].text, state.origin, origin); !err.empty()) {
      return error_at(state, e.tokens[2], err);
    }
  }
  std::string path;
  if (auto err = zonefile::unescape(e.tokens[1].text, path); !err.empty())
    return error_at(state, e.tokens[1], err);
  if (!path.empty() && path[0] != '/' && !options_.include_root.empty())
    path = options_.include_root + "/" + path;
  std::string text;
  if (zone_.files.size() >= 0xffff || !options_.reader(path, text)) {
    return error_at(state, e.tokens[1], "cannot read the $INCLUDE file '" + e.tokens[1].text + "'");
  }
  zone_.files.push_back(path);
  // RFC 1035 §5.1: the included file does not change the including file's origin or owner.
  parse(text, uint16_t(zone_.files.size() - 1), origin, state.depth + 1);
}

void ZoneFileParser::entry(FileState& state, const Entry& e) {
  const std::vector<Token>& tokens = e.tokens;
  if (!e.blank_owner && !tokens[0].quoted && tokens[0].text[0] == '$') return directive(state, e);
  ZoneRecord record;
  std::size_t i = 0;
  if (e.blank_owner) {
    if (state.owner.empty())
      return error_at(state, tokens[0], "no owner name: the first record needs one");
    record.owner = state.owner;
  } else {
    if (auto err = zonefile::parse_name(tokens[0].text, state.origin, record.owner); !err.empty()) {
      return error_at(state, tokens[0], err);
    }
    state.owner = record.owner;
    i = 1;
  }
  record.where = {state.file, tokens[0].line, tokens[0].column};
  // RFC 1035 §5.1: [<TTL>] [<class>] or [<class>] [<TTL>], both optional.
  std::optional<uint32_t> ttl;
  bool have_class = false;
  for (int field = 0; field < 2 && i < tokens.size() && !tokens[i].quoted; ++field) {
    const Token& t = tokens[i];
    if (t.text[0] >= '0' && t.text[0] <= '9' && !ttl) {
      uint32_t value = 0;
      if (auto err = zonefile::parse_ttl(t.text, value); !err.empty())
        return error_at(state, t, err);
      ttl = value;
    } else if (is_class_token(t.text) && !have_class) {
      if (!is_class_in(t.text))
        return error_at(state, t, "class " + t.text + " is not served (only IN)");
      have_class = true;
    } else {
      break;
    }
    ++i;
  }
  if (i >= tokens.size()) return error_at(state, tokens.back(), "missing the record type");
  const Token& type_token = tokens[i];
  const int type = type_token.quoted ? -1 : zonefile::type_number(type_token.text);
  if (type < 0) return error_at(state, type_token, "unknown type '" + type_token.text + "'");
  record.type = uint16_t(type);
  zonefile::RdataError rdata_error;
  if (!zonefile::parse_rdata(record.type, tokens, i + 1, state.origin, record.rdata, rdata_error)) {
    return error_at(state, tokens[rdata_error.token], rdata_error.message);
  }
  if (ttl) {
    last_ttl_ = ttl;
    record.ttl = *ttl;
  } else if (default_ttl_) {
    record.ttl = *default_ttl_;
  } else if (last_ttl_) {
    record.ttl = *last_ttl_;
  } else {
    return error_at(state, tokens[0], "no TTL: give the record one or set $TTL first");
  }
  zone_.records.push_back(std::move(record));
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return !in.bad();
}

bool parse_zone_text(std::string_view text, const std::string& file_name, std::string_view origin,
                     ZoneData& zone, std::vector<Diagnostic>& errors,
                     const ZoneFileOptions& options) {
  zone.files.push_back(file_name);
  const uint16_t file = uint16_t(zone.files.size() - 1);
  ZoneFileParser parser(zone, errors, options);
  if (auto err = zonefile::parse_name(origin.empty() ? std::string_view(".") : origin, root_name(),
                                      zone.origin);
      !err.empty() || !is_valid_name(zone.origin)) {
    parser.error(file, 1, 1,
                 "bad zone name '" + std::string(origin) + "'" + (err.empty() ? "" : ": " + err));
    return false;
  }
  parser.parse(text, file, zone.origin, 0);
  return !parser.failed();
}

bool read_zone_file(const std::string& path, std::string_view origin, ZoneData& zone,
                    std::vector<Diagnostic>& errors, const ZoneFileOptions& options) {
  std::string text;
  if (!options.reader(path, text)) {
    errors.push_back({"", 0, 0, "cannot read zone file '" + path + "'"});
    return false;
  }
  ZoneFileOptions with_root = options;
  if (with_root.include_root.empty()) with_root.include_root = folder_of(path);
  return parse_zone_text(text, path, origin, zone, errors, with_root);
}

}  // namespace keel::dns
