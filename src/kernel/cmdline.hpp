// Splits a kernel command line into words: blanks separate, double quotes
// group ("a b"), a backslash escapes the next character.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace keel::kernel {

std::vector<std::string> split_cmdline(std::string_view cmdline);

}  // namespace keel::kernel
