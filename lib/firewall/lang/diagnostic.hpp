#pragma once
// Compile errors carry file:line:column and say what was expected.
#include <stdexcept>
#include <string>

#include "keel/firewall/ruleset.hpp"

namespace keel::firewall {

struct Diagnostic {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  std::string format() const {
    return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " + message;
  }
};

// Thrown inside the host-side front end only; converted to a Diagnostic at the API boundary.
struct CompileError : std::runtime_error {
  SourceLocation location;
  CompileError(SourceLocation loc, const std::string& message)
      : std::runtime_error(message), location(loc) {}
};

}  // namespace keel::firewall
