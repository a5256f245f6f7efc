#pragma once
// Lowers a checked program into the intermediate form: conditions to DNF, jumps inlined,
// actions validated against the chain type and hook they end up in.
#include "keel/firewall/ruleset.hpp"
#include "lang/checker.hpp"

namespace keel::firewall {

Ruleset lower_program(const Program& program, const Symbols& symbols, ErrorSink& errors);

}  // namespace keel::firewall
