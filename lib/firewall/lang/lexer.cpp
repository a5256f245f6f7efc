#include "lang/lexer.hpp"

namespace keel::firewall {
namespace {
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c) || c == '.' || c == '-'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_address6_char(char c) { return is_hex(c) || c == ':' || c == '.'; }
constexpr int kAddress6MinColons = 2;  // "::" is the shortest; an IPv4 address and port has one
}  // namespace

// An IPv6 address is a run of hex digits, colons and dots with two colons or more (RFC 4291
// section 2.2); anything else there is a name, a number, an IPv4 address or a ':' symbol.
bool Lexer::scan_address6() {
  size_t end = pos_;
  int colons = 0;
  while (end < text_.size() && is_address6_char(text_[end])) colons += text_[end++] == ':';
  // Letters past the hex ones make it a name, not an address.
  if (colons < kAddress6MinColons || (end < text_.size() && is_name_start(text_[end])))
    return false;
  while (pos_ < end) advance();
  if (peek() == '/' && is_digit(peek(1))) {
    advance();
    while (is_digit(peek())) advance();
  }
  return true;
}

void Lexer::advance() {
  if (text_[pos_] == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  ++pos_;
}

void Lexer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance();
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
    } else {
      break;
    }
  }
}

Token Lexer::next() {
  skip_space_and_comments();
  Token token;
  token.location = {file_, line_, column_};
  size_t start = pos_;
  if (pos_ >= text_.size()) return token;
  char c = peek();
  if ((is_hex(c) || c == ':') && scan_address6()) {
    token.kind = TokenKind::address6;
  } else if (is_name_start(c)) {
    token.kind = TokenKind::name;
    while (pos_ < text_.size() && is_name_char(peek())) advance();
    // A trailing '-' or '.' belongs to what follows (e.g. a range), not to the name.
    while (pos_ > start + 1 && (text_[pos_ - 1] == '-' || text_[pos_ - 1] == '.')) {
      --pos_;
      --column_;
    }
  } else if (is_digit(c)) {
    if (c == '0' && (peek(1) == 'x' || peek(1) == 'X') && is_hex(peek(2))) {
      token.kind = TokenKind::number;
      advance();
      advance();
      while (is_hex(peek())) advance();
    } else {
      bool dotted = false;
      while (is_digit(peek()) || (peek() == '.' && is_digit(peek(1)))) {
        dotted |= peek() == '.';
        advance();
      }
      token.kind = dotted ? TokenKind::address : TokenKind::number;
      if (dotted && peek() == '/' && is_digit(peek(1))) {
        advance();
        while (is_digit(peek())) advance();
      }
    }
  } else if (c == '"') {
    token.kind = TokenKind::string;
    advance();
    while (pos_ < text_.size() && peek() != '"' && peek() != '\n') advance();
    if (peek() != '"')
      throw CompileError(token.location, "unterminated string: expected '\"' before end of line");
    advance();
    token.text = text_.substr(start + 1, pos_ - start - 2);
    return token;
  } else {
    token.kind = TokenKind::symbol;
    bool two = (c == '<' || c == '>' || c == '!') && peek(1) == '=';
    advance();
    if (two) advance();
    static constexpr std::string_view kSymbols = "{}(),;=-$<>!|:/";
    if (!two && kSymbols.find(c) == std::string_view::npos) {
      throw CompileError(token.location, std::string("unexpected character '") + c + "'");
    }
  }
  token.text = text_.substr(start, pos_ - start);
  return token;
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::end:
      return "end of file";
    case TokenKind::string:
      return "string \"" + std::string(token.text) + "\"";
    default:
      return "'" + std::string(token.text) + "'";
  }
}

}  // namespace keel::firewall
