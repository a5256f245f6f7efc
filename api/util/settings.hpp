// Reading a service's own settings from its command line (`name=value`,
// os::args()): numbers and switches, with an error that names the setting
// and says what it takes. An empty string means the value was read.
#pragma once
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::settings {

// A decimal number from 0 to `max`.
inline std::string parse_uint(const std::string& field, std::string_view text, uint32_t max,
                              uint32_t& out) {
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) {
    return field + ": '" + std::string(text) + "' is not a number from 0 to " + std::to_string(max);
  }
  out = value;
  return {};
}

// on/off, 1/0, true/false, yes/no.
inline std::string parse_bool(const std::string& field, std::string_view text, bool& out) {
  if (text == "1" || text == "on" || text == "true" || text == "yes") {
    out = true;
  } else if (text == "0" || text == "off" || text == "false" || text == "no") {
    out = false;
  } else {
    return field + ": '" + std::string(text) + "' is not on or off";
  }
  return {};
}

// Every `PREFIXkey=value` word of `args` (os::args()), in order, to
// apply(field, key, value) (field: the word's name, for errors); stops at
// the first error apply returns and returns it.
template <class Apply>
std::string apply_all(const std::vector<std::string>& args, std::string_view prefix,
                      Apply&& apply) {
  for (const std::string& word : args) {
    const auto eq = word.find('=');
    if (word.rfind(prefix, 0) != 0 || eq == std::string::npos) continue;
    const std::string key = word.substr(prefix.size(), eq - prefix.size());
    if (std::string e = apply(word.substr(0, eq), key, word.substr(eq + 1)); !e.empty()) return e;
  }
  return {};
}

}  // namespace keel::settings
