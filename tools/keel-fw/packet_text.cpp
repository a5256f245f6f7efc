#include "packet_text.hpp"

#include <charconv>
#include <sstream>

namespace keel::firewall {
namespace {
bool number(const std::string& text, uint32_t max, uint32_t& out) {
  int base = 10;
  const char* begin = text.data();
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    begin += 2;
  }
  auto [end, ec] = std::from_chars(begin, text.data() + text.size(), out, base);
  return ec == std::errc() && end == text.data() + text.size() && out <= max;
}

bool address(const std::string& text, uint32_t& out) {
  std::istringstream in(text);
  uint32_t a = 0;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    std::string part;
    if (!std::getline(in, part, '.') || !number(part, 255, a)) return false;
    out = out << 8 | a;
  }
  return in.peek() == EOF;
}

uint8_t interface_id(const std::string& name, const TableView& tables) {
  for (size_t i = 0; i < tables.interfaces.size(); ++i)
    if (tables.strings[tables.interfaces[i].name] == name) return static_cast<uint8_t>(i);
  return kUnknownInterface;
}
}  // namespace

std::optional<PacketLine> parse_packet_line(const std::string& line, const TableView& tables,
                                            std::string& error) {
  static constexpr const char* kHooks[] = {"prerouting", "input", "forward", "output",
                                           "postrouting"};
  static constexpr const char* kStates[] = {"new", "established", "related", "invalid",
                                            "untracked"};
  PacketLine out;
  Packet& p = out.packet;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos) {
      error = "expected key=value, found '" + word + "'";
      return std::nullopt;
    }
    std::string key = word.substr(0, eq), v = word.substr(eq + 1);
    uint32_t n = 0;
    bool ok = true;
    if (key == "kind") {
      ok = v == "filter" || v == "nat";
      out.kind = v == "nat" ? ChainKind::nat : ChainKind::filter;
    } else if (key == "hook") {
      ok = false;
      for (int i = 0; i < kHookCount; ++i)
        if (v == kHooks[i]) out.hook = static_cast<Hook>(i), ok = true;
    } else if (key == "iif") {
      p.iif = interface_id(v, tables);
    } else if (key == "oif") {
      p.oif = interface_id(v, tables);
    } else if (key == "proto") {
      if (v == "tcp")
        p.proto = kProtoTcp;
      else if (v == "udp")
        p.proto = kProtoUdp;
      else if (v == "icmp")
        p.proto = kProtoIcmp;
      else if ((ok = number(v, 255, n)))
        p.proto = static_cast<uint8_t>(n);
    } else if (key == "saddr") {
      ok = address(v, p.saddr);
    } else if (key == "daddr") {
      ok = address(v, p.daddr);
    } else if (key == "sport" && (ok = number(v, 0xFFFF, n))) {
      p.sport = static_cast<uint16_t>(n);
    } else if (key == "dport" && (ok = number(v, 0xFFFF, n))) {
      p.dport = static_cast<uint16_t>(n);
    } else if (key == "flags" && (ok = number(v, 0xFF, n))) {
      p.tcp_flags = static_cast<uint8_t>(n);
    } else if (key == "icmp_type" && (ok = number(v, 0xFF, n))) {
      p.icmp_type = static_cast<uint8_t>(n);
    } else if (key == "icmp_code" && (ok = number(v, 0xFF, n))) {
      p.icmp_code = static_cast<uint8_t>(n);
    } else if (key == "ttl" && (ok = number(v, 0xFF, n))) {
      p.ttl = static_cast<uint8_t>(n);
    } else if (key == "length" && (ok = number(v, 0xFFFF, n))) {
      p.length = static_cast<uint16_t>(n);
    } else if (key == "ct") {
      ok = false;
      for (uint8_t i = 0; i < std::size(kStates); ++i)
        if (v == kStates[i]) p.ct_state = i, ok = true;
    } else if (ok) {
      error = "unknown key '" + key + "'";
      return std::nullopt;
    }
    if (!ok) {
      error = "bad value for '" + key + "': '" + v + "'";
      return std::nullopt;
    }
  }
  // Header fields of other protocols read as 0 (see packet.hpp).
  if (p.proto != kProtoTcp && p.proto != kProtoUdp) p.sport = p.dport = 0;
  if (p.proto != kProtoTcp) p.tcp_flags = 0;
  if (p.proto != kProtoIcmp) p.icmp_type = p.icmp_code = 0;
  return out;
}

}  // namespace keel::firewall
