// The compiler driver: parse, check, lower; errors become "file:line:column: error: ...".
#include "keel/firewall/compiler.hpp"

#include <fstream>
#include <sstream>

#include "compile/lower.hpp"
#include "lang/checker.hpp"
#include "lang/parser.hpp"

namespace keel::firewall {
namespace {
std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

std::string format_error(const Program& program, SourceLocation loc, const std::string& message) {
  return where(program, loc) + ": error: " + message;
}
}  // namespace

CompileResult compile_source(std::string_view text, const std::string& name,
                             const std::string& base_dir) {
  CompileResult result;
  result.program = std::make_shared<Program>();
  Program& program = *result.program;
  program.files.push_back(name);
  try {
    Parser(program, text, 0, base_dir).parse_program();
  } catch (const CompileError& e) {
    result.errors.push_back(format_error(program, e.location, e.what()));
    return result;
  }
  Symbols symbols;
  ErrorSink errors;
  check_program(program, symbols, errors);
  if (errors.entries.empty()) {
    Ruleset ruleset = lower_program(program, symbols, errors);
    if (errors.entries.empty()) result.ruleset = std::move(ruleset);
  }
  for (const ErrorSink::Entry& e : errors.entries)
    result.errors.push_back(format_error(program, e.location, e.message));
  return result;
}

CompileResult compile_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    CompileResult result;
    result.errors.push_back(path + ":0:0: error: cannot read rules file");
    return result;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return compile_source(buffer.str(), path, directory_of(path));
}

}  // namespace keel::firewall
