// The syslog= setting's parser and the RFC 5424 / Prometheus writers on
// arbitrary input (test/fuzz/run_observability.sh): no crash, a collector
// only with a port and an address, a message never over max_message with
// only PRINTUSASCII in its header, metric lines only under valid names.
#include <cstdint>
#include <cstdlib>
#include <net/metrics.hpp>
#include <net/syslog.hpp>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto e = net::syslog::parse_collector(in)) {
    if (e->port == 0 || e->address.is_any()) std::abort();
  }
  // Fields cut from the input at its first bytes' offsets.
  auto piece = [&](std::size_t i) {
    std::size_t at = size > i ? data[i] % (size + 1) : 0;
    return in.substr(at, size > i + 1 ? data[i + 1] : 0);
  };
  net::syslog::Message m;
  m.hostname = piece(0);
  m.app_name = piece(2);
  m.procid = piece(4);
  m.msgid = piece(6);
  m.text = in;
  if (size > 8 && data[8] & 1) m.unix_ns = uint64_t(data[8]) << 50;
  const std::string msg = net::syslog::format(m);
  if (msg.size() > net::syslog::max_message) std::abort();
  // The header: everything up to the seventh space is PRI, VERSION and
  // fields of PRINTUSASCII.
  int spaces = 0;
  for (std::size_t i = 0; i < msg.size() && spaces < 7; ++i) {
    if (msg[i] == ' ') {
      ++spaces;
    } else if (msg[i] < 33 || msg[i] > 126) {
      std::abort();
    }
  }
  std::string page;
  net::metrics::Writer w(page);
  w.family(piece(0), in, net::metrics::Type::counter);
  w.sample(size, piece(2), in);
  // Every line is a comment or starts with a valid name.
  for (std::size_t at = 0; at < page.size();) {
    std::size_t end = page.find('\n', at);
    if (end == std::string::npos) std::abort();  // every line ends
    char c = page[at];
    bool name_start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (c != '#' && !name_start) std::abort();
    at = end + 1;
  }
  return 0;
}
