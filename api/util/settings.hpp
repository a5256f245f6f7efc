// Reading a service's own settings from its command line (`name=value`,
// os::args()): numbers and switches, with an error that names the setting
// and says what it takes. An empty string means the value was read.
#pragma once
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

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

}  // namespace keel::settings
