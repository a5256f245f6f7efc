#pragma once
// Host-side compiler API: rule text -> checked program -> intermediate form -> tables/nftables.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/firewall/classifier.hpp"  // encode_tables
#include "keel/firewall/ruleset.hpp"
#include "keel/firewall/tables.hpp"

namespace keel::firewall {

struct Program;
struct Diagnostic;

struct CompileResult {
  std::shared_ptr<Program> program;  // the checked syntax tree (for tools and tests)
  std::optional<Ruleset> ruleset;    // set when there were no errors
  std::vector<std::string> errors;   // "file:line:column: error: ..."
};

CompileResult compile_file(const std::string& path);
// `name` is used in error locations; list files resolve relative to `base_dir`.
CompileResult compile_source(std::string_view text, const std::string& name,
                             const std::string& base_dir = ".");

struct BuildStats {
  size_t partitions = 0;
  size_t set_tables = 0;
  size_t tuple_tables = 0;
  size_t trees = 0;
  size_t cubes = 0;
};
Tables build_tables(const Ruleset& ruleset, BuildStats* stats = nullptr);
size_t table_bytes(const Tables& tables);  // bytes of classification structures

// An IPv4 address (host order) as dotted decimal: 10.0.0.1.
std::string ipv4_text(uint32_t address);

// nftables ruleset (for `nft -f`) with the same first-match semantics.
std::string export_nft(const Ruleset& ruleset, const std::string& table_name = "keel");

}  // namespace keel::firewall
