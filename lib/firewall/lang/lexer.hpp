#pragma once
// Splits rule text into tokens; keywords are plain names, recognised by the parser in context.
#include <string>
#include <string_view>

#include "lang/diagnostic.hpp"

namespace keel::firewall {

enum class TokenKind : uint8_t {
  end,
  name,      // identifiers and keywords: eth0, accept, lan-ports
  number,    // 80, 0x10
  address,   // dotted quad, possibly with /len: 10.0.0.0/8
  address6,  // IPv6 text (two colons or more), possibly with /len: 2001:db8::/32
  string,    // "text"
  symbol,    // { } ( ) , ; = - $ < > <= >= != ! | : /
};

struct Token {
  TokenKind kind = TokenKind::end;
  std::string_view text;
  SourceLocation location;
};

class Lexer {
 public:
  Lexer(std::string_view text, uint32_t file) : text_(text), file_(file) {}
  Token next();

 private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance();
  void skip_space_and_comments();
  bool scan_address6();

  std::string_view text_;
  uint32_t file_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
};

std::string describe(const Token& token);

}  // namespace keel::firewall
