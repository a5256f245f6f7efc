// Uncompressed wire-format names: checks, comparison and presentation.
#include "keel/dns/name.hpp"

namespace keel::dns {

std::size_t name_length(std::string_view wire) {
  std::size_t pos = 0;
  while (pos < wire.size()) {
    const uint8_t len = octet(wire, pos);
    if (len == 0) return pos + 1 <= max_name_length ? pos + 1 : 0;
    if (len > max_label_length) return 0;  // also rejects compression pointers
    pos += 1 + len;
    if (pos >= max_name_length) return 0;  // the root label still has to fit
  }
  return 0;
}

int label_count(std::string_view name) {
  int count = 0;
  for (std::size_t pos = 0; pos < name.size() && octet(name, pos) != 0;
       pos += 1 + octet(name, pos)) {
    ++count;
  }
  return count;
}

std::string_view strip_labels(std::string_view name, int n) {
  std::size_t pos = 0;
  for (int i = 0; i < n && pos < name.size() && octet(name, pos) != 0; ++i)
    pos += 1 + octet(name, pos);
  return name.substr(pos);
}

std::string_view first_label(std::string_view name) {
  if (name.empty() || octet(name, 0) == 0) return {};
  return name.substr(1, octet(name, 0));
}

bool names_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // Length octets are below 'A' (at most 63), so lowering every octet is safe.
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(octet(a, i)) != ascii_lower(octet(b, i))) return false;
  }
  return true;
}

bool is_subdomain(std::string_view name, std::string_view parent) {
  if (parent.size() > name.size()) return false;
  // Walk label boundaries until the remaining suffix has the parent's length.
  std::size_t pos = 0;
  while (name.size() - pos > parent.size()) pos += 1 + octet(name, pos);
  return name.size() - pos == parent.size() && names_equal(name.substr(pos), parent);
}

std::string lowercase_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(ascii_lower(static_cast<uint8_t>(c)));
  return out;
}

uint32_t name_hash(std::string_view lowered) {
  constexpr uint32_t fnv_offset = 2166136261u;
  constexpr uint32_t fnv_prime = 16777619u;
  uint32_t h = fnv_offset;
  for (char c : lowered) h = (h ^ static_cast<uint8_t>(c)) * fnv_prime;
  return h;
}

std::string concat_names(std::string_view prefix_labels, std::string_view suffix) {
  if (prefix_labels.size() + suffix.size() > max_name_length) return {};
  std::string out;
  out.reserve(prefix_labels.size() + suffix.size());
  out.append(prefix_labels).append(suffix);
  return out;
}

std::string name_to_text(std::string_view name) {
  if (name.empty() || octet(name, 0) == 0) return ".";
  std::string out;
  std::size_t pos = 0;
  while (pos < name.size() && octet(name, pos) != 0) {
    const uint8_t len = octet(name, pos);
    for (std::size_t i = pos + 1; i <= pos + len && i < name.size(); ++i) {
      const uint8_t c = octet(name, i);
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '*';
      if (plain) {
        out += static_cast<char>(c);
      } else if (c == '.' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else {
        out += '\\';
        out += static_cast<char>('0' + c / 100);
        out += static_cast<char>('0' + c / 10 % 10);
        out += static_cast<char>('0' + c % 10);
      }
    }
    out += '.';
    pos += 1 + len;
  }
  return out;
}

}  // namespace keel::dns
