// Splits RFC 1035 §5.1 master-file text into entries: one line, or several
// joined by parentheses, comments (';' to the end of the line) removed.
// Escapes are kept as written in each token; the field that reads the token
// interprets them (a name treats "\." differently from a TXT string).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::dns::zonefile {

struct Token {
  std::string text;  // quotes removed, escapes kept
  bool quoted = false;
  uint32_t line = 0;
  uint32_t column = 0;
};

struct Entry {
  std::vector<Token> tokens;
  bool blank_owner = false;  // the entry's line starts with whitespace: the previous owner
  uint32_t line = 0;
};

struct LexError {
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // Reads the next entry with at least one token. False at the end of the
  // text or on an error (then `error` is set and the rest of that entry is
  // skipped, so the caller may go on).
  bool next(Entry& entry, LexError& error);
  bool at_end() const { return pos_ >= text_.size(); }

 private:
  void advance();
  bool read_quoted(Token& token, LexError& error);
  void read_plain(Token& token);
  void skip_to_line_end();

  std::string_view text_;
  std::size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
};

}  // namespace keel::dns::zonefile
