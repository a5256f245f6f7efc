#pragma once
// Recursive-descent parser for the rule language (grammar in docs/firewall/language.md).
#include <span>
#include <string>
#include <string_view>

#include "lang/ast.hpp"
#include "lang/lexer.hpp"

namespace keel::firewall {

// A number's name in the language (an ICMP type, say).
struct NumberName {
  std::string_view name;
  uint32_t value;
};

class Parser {
 public:
  // `file` indexes program.files; list files named in the text are read relative to base_dir.
  Parser(Program& program, std::string_view text, uint32_t file, std::string base_dir);
  void parse_program();

 private:
  // statements (parser.cpp)
  void parse_define();
  void parse_interface();
  void parse_route();
  void parse_conntrack();
  void parse_chain();
  void parse_rule(ChainStmt& chain);
  void parse_action(RuleStmt& rule);
  void parse_nat_target(RuleStmt& rule);

  // conditions (parse_condition.cpp)
  bool starts_condition() const;
  uint32_t parse_or();
  uint32_t parse_and();
  uint32_t parse_unary();
  uint32_t parse_atom();
  uint32_t add_expr(ExprKind kind, uint32_t a, uint32_t b);
  CompareOp parse_compare();
  void parse_keyword_list(Value& value, AtomKind kind);
  void parse_icmp(Atom& atom, uint8_t proto);

  // values (parse_value.cpp)
  Value parse_value(bool allow_file);
  void parse_item(Value& value);
  void load_list_file(Value& value, const Token& path_token);
  void add_item(Value& value, ValueType type, uint32_t lo, uint32_t hi, SourceLocation loc);
  uint32_t parse_address_token(const Token& token, uint8_t* prefix_length,
                               bool allow_host_bits = false);
  uint32_t parse_number_token(const Token& token);
  Address6 parse_address6_token(const Token& token, int* prefix_length);
  void parse_item6(Value& value);
  uint32_t expect_address();
  uint32_t expect_number();

  // tokens
  void advance() { current_ = lexer_.next(); }
  bool at(std::string_view word) const {
    return (current_.kind == TokenKind::name || current_.kind == TokenKind::symbol) &&
           current_.text == word;
  }
  bool accept(std::string_view word);
  void expect(std::string_view word, std::string_view what);
  std::string expect_name(std::string_view what);
  [[noreturn]] void fail(std::string_view expected) const;

  // Names a number may be written as (ICMP types and codes) while a value is parsed.
  std::span<const NumberName> number_names_;

  Program& program_;
  Lexer lexer_;
  Token current_;
  uint32_t file_;
  std::string base_dir_;
};

}  // namespace keel::firewall
