// The master-file lexer.
#include "zonefile/lexer.hpp"

namespace keel::dns::zonefile {
namespace {
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
// A NUL octet is an ordinary character here (a label may hold any octet);
// the field that reads the token decides.
bool ends_plain_token(char c) {
  return is_blank(c) || c == '\n' || c == ';' || c == '(' || c == ')' || c == '"';
}
}  // namespace

void Lexer::advance() {
  if (text_[pos_] == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  ++pos_;
}

void Lexer::skip_to_line_end() {
  while (pos_ < text_.size() && text_[pos_] != '\n') advance();
}

bool Lexer::read_quoted(Token& token, LexError& error) {
  token.quoted = true;
  advance();  // the opening quote
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') {
      advance();
      return true;
    }
    // A newline inside quotes is part of the string, as NSD reads it (BIND
    // refuses it): only the end of the text leaves a quote open.
    if (c == '\\' && pos_ + 1 < text_.size()) {
      token.text += c;
      advance();
    }
    token.text += text_[pos_];
    advance();
  }
  error = {token.line, token.column, "unterminated quoted string"};
  return false;
}

void Lexer::read_plain(Token& token) {
  while (pos_ < text_.size() && !ends_plain_token(text_[pos_])) {
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') {
      token.text += text_[pos_];
      advance();
    }
    token.text += text_[pos_];
    advance();
  }
}

bool Lexer::next(Entry& entry, LexError& error) {
  entry = Entry{};
  int depth = 0;  // open parentheses
  uint32_t open_line = 0, open_column = 0;
  bool line_start = column_ == 1;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '\n') {
      advance();
      if (depth == 0 && !entry.tokens.empty()) return true;
      line_start = true;
      continue;
    }
    if (is_blank(c)) {
      if (line_start && depth == 0 && entry.tokens.empty()) entry.blank_owner = true;
      line_start = false;
      advance();
      continue;
    }
    if (line_start && depth == 0 && entry.tokens.empty()) entry.blank_owner = false;
    line_start = false;
    if (c == ';') {
      skip_to_line_end();
      continue;
    }
    if (c == '(') {
      if (depth++ == 0) {
        open_line = line_;
        open_column = column_;
      }
      advance();
      continue;
    }
    if (c == ')') {
      if (depth == 0) {
        error = {line_, column_, "')' without '('"};
        skip_to_line_end();
        return false;
      }
      --depth;
      advance();
      continue;
    }
    Token token;
    token.line = line_;
    token.column = column_;
    if (entry.tokens.empty()) entry.line = line_;
    if (c == '"') {
      if (!read_quoted(token, error)) {
        skip_to_line_end();
        return false;
      }
    } else {
      read_plain(token);
    }
    entry.tokens.push_back(std::move(token));
  }
  if (depth > 0) {
    error = {open_line, open_column, "'(' without ')'"};
    return false;
  }
  return !entry.tokens.empty();
}

}  // namespace keel::dns::zonefile
