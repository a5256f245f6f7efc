// keel_firewall_rules() (keel-library.cmake) defines these two symbols in the service's image;
// these weak ones mean "none". Not const: a const weak object may be folded to its default.
#include "keel/firewall/embedded_rules.hpp"

extern "C" {
__attribute__((weak)) const uint8_t* keel_firewall_rules_blob = nullptr;
__attribute__((weak)) uint64_t keel_firewall_rules_size = 0;
}

namespace keel::firewall {

std::span<const uint8_t> embedded_rules() {
  if (!keel_firewall_rules_blob) return {};
  return {keel_firewall_rules_blob, static_cast<size_t>(keel_firewall_rules_size)};
}

}  // namespace keel::firewall
