#pragma once
// Semantic checks: names defined once and used only when defined, values of the type and
// range their field expects. Resolves every atom to the set of field values it accepts.
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/ast.hpp"

namespace keel::firewall {

inline constexpr size_t kMaxReportedErrors = 50;

struct ErrorSink {
  struct Entry {
    SourceLocation location;
    std::string message;
  };
  std::vector<Entry> entries;
  void add(SourceLocation loc, std::string message) {
    if (entries.size() < kMaxReportedErrors) entries.push_back({loc, std::move(message)});
  }
};

struct Symbols {
  std::unordered_map<std::string, uint32_t> defines;
  std::unordered_map<std::string, uint32_t> interfaces;
  std::unordered_map<std::string, uint32_t> chains;
};

std::string where(const Program& program, SourceLocation loc);
void check_program(Program& program, Symbols& symbols, ErrorSink& errors);

// The field an atom tests and the protocol it implies (0 = none).
Field atom_field(AtomKind kind);
uint8_t atom_implied_proto(const Atom& atom);
// The address family an atom implies (kFamilyIp4, kFamilyIp6) or kAnyFamily: addresses, ICMP
// and ICMPv6 fields, ttl and length belong to one family; ports, protocol, flags to both.
inline constexpr int kAnyFamily = -1;
int atom_family(const Atom& atom);
const char* atom_name(const Atom& atom);

}  // namespace keel::firewall
