// Parsing virtio_mmio.device= arguments (portable: unit-tested on the host).
#include <cerrno>
#include <cstdlib>
#include <string>

#include "discovery.hpp"

namespace keel::drivers::virtio {
namespace {

constexpr std::string_view argument_key = "virtio_mmio.device=";

// strtoull over a bounded view: the digits must be followed by `end` (or
// the end of the view) and the value must fit in 64 bits.
bool parse_number(std::string_view text, uint64_t& value, std::string_view& rest) {
  std::string copy(text);
  if (copy.empty() || copy[0] == '-' || copy[0] == '+') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(copy.c_str(), &end, 0);
  if (end == copy.c_str() || errno == ERANGE) return false;
  value = v;
  rest = text.substr(std::size_t(end - copy.c_str()));
  return true;
}

bool parse_one(std::string_view spec, MmioLocation& out) {
  std::string_view rest;
  uint64_t size;
  if (!parse_number(spec, size, rest)) return false;
  // Linux's memparse suffixes.
  int shift = 0;
  if (!rest.empty() && (rest[0] == 'K' || rest[0] == 'k')) shift = 10;
  if (!rest.empty() && (rest[0] == 'M' || rest[0] == 'm')) shift = 20;
  if (!rest.empty() && (rest[0] == 'G' || rest[0] == 'g')) shift = 30;
  if (shift) rest.remove_prefix(1);
  if (size == 0 || (size >> (64 - shift - 1)) != 0) return false;
  size <<= shift;
  if (rest.empty() || rest[0] != '@') return false;
  uint64_t base, irq;
  if (!parse_number(rest.substr(1), base, rest)) return false;
  if (rest.empty() || rest[0] != ':') return false;
  if (!parse_number(rest.substr(1), irq, rest)) return false;
  if (!rest.empty() && rest[0] != ':') return false;  // ":<first id>" may follow
  if (irq > 0xffff || base + size < base) return false;
  out = {base, size, uint32_t(irq)};
  return true;
}

}  // namespace

std::vector<MmioLocation> parse_mmio_arguments(std::string_view cmdline) {
  std::vector<MmioLocation> found;
  std::size_t at = 0;
  while ((at = cmdline.find(argument_key, at)) != std::string_view::npos) {
    bool word_start = at == 0 || cmdline[at - 1] == ' ';
    at += argument_key.size();
    std::size_t end = cmdline.find(' ', at);
    std::string_view spec = cmdline.substr(at, end == std::string_view::npos ? end : end - at);
    MmioLocation location;
    if (word_start && parse_one(spec, location)) found.push_back(location);
  }
  return found;
}

}  // namespace keel::drivers::virtio
