#pragma once
#include <string>

#include "keel/firewall/classifier.hpp"
#include "keel/firewall/compiler.hpp"

namespace keel::firewall::testing {

inline std::string first_error(const std::string& text) {
  CompileResult r = compile_source(text, "t.fw");
  return r.errors.empty() ? std::string("<no error>") : r.errors.front();
}

inline Classifier classifier_for(const std::string& text) {
  CompileResult r = compile_source(text, "t.fw");
  Classifier c;
  if (r.ruleset) c.adopt(build_tables(*r.ruleset));
  return c;
}

}  // namespace keel::firewall::testing
