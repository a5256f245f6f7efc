// RFC 5424 messages and the collector setting (api/net/syslog.hpp).
#include <cstdio>
#include <ctime>
#include <net/syslog.hpp>

namespace net::syslog {
namespace {

constexpr char nil = '-';  // NILVALUE
constexpr uint64_t ns_per_us = 1000, ns_per_s = 1'000'000'000;

// A header field: PRINTUSASCII (%d33-126) only, at most `max` of them
// (RFC 5424 §6: HOSTNAME 255, APP-NAME 48, PROCID 128, MSGID 32).
void field(std::string& out, std::string_view value, std::size_t max) {
  if (value.empty()) {
    out += nil;
  } else {
    for (std::size_t i = 0; i < value.size() && i < max; ++i) {
      char c = value[i];
      out += (c >= 33 && c <= 126) ? c : '_';
    }
  }
  out += ' ';
}

// FULL-DATE "T" FULL-TIME in UTC with microseconds (RFC 5424 §6.2.3).
void timestamp(std::string& out, std::optional<uint64_t> unix_ns) {
  if (!unix_ns) {
    out += nil;
    out += ' ';
    return;
  }
  std::time_t seconds = std::time_t(*unix_ns / ns_per_s);
  std::tm t{};
  gmtime_r(&seconds, &t);
  char text[96];  // room for any int the compiler imagines in tm
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ ", t.tm_year + 1900,
                t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                unsigned(*unix_ns % ns_per_s / ns_per_us));
  out += text;
}

}  // namespace

std::string format(const Message& m) {
  std::string out = "<" + std::to_string(unsigned(m.facility) * 8 + unsigned(m.severity)) + ">1 ";
  timestamp(out, m.unix_ns);
  field(out, m.hostname, 255);
  field(out, m.app_name, 48);
  field(out, m.procid, 128);
  field(out, m.msgid, 32);
  out += nil;  // STRUCTURED-DATA: none
  std::string_view text = m.text;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (!text.empty()) {
    out += ' ';  // MSG-ANY: octets as printed, no BOM (§6.4)
    out.append(text.substr(0, out.size() < max_message ? max_message - out.size() : 0));
  }
  return out;
}

std::optional<Endpoint> parse_collector(std::string_view text) {
  // An IPv6 address with a port takes brackets: fd00::1:514 is an address.
  std::optional<Endpoint> e = Endpoint::parse(text);
  if (!e) {
    if (auto address = Address::parse(text)) e = Endpoint{*address, default_port};
  }
  if (!e || e->port == 0 || e->address.is_any()) return std::nullopt;
  return e;
}

}  // namespace net::syslog
