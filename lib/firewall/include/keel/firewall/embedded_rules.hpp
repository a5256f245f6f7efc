#pragma once
// The rule tables keel_firewall_rules(TARGET RULES.fw) compiled into this image at build time;
// empty when the service named none.
#include <cstdint>
#include <span>

namespace keel::firewall {

std::span<const uint8_t> embedded_rules();

}  // namespace keel::firewall
