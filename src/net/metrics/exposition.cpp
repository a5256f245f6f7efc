// The Prometheus text exposition format 0.0.4 (api/net/metrics.hpp) and the
// stack's counters in it. Every counter of api/net/counters.hpp is a
// counter family `keel_net_LAYER_NAME_total`; the per-interface ones carry
// interface="N" (all interfaces' samples in one family: the format wants
// a family's samples together).
#include <algorithm>
#include <map>
#include <net/counters.hpp>
#include <net/interface.hpp>
#include <net/metrics.hpp>
#include <net/stack.hpp>
#include <vector>

namespace net::metrics {
namespace {

bool name_char(char c, bool first) {
  bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return letter || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0)) return false;
  return true;
}

// HELP text escapes '\' and newline; a label value '"' as well.
void escaped(std::string& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

std::map<int, Collector>& collectors() {
  static std::map<int, Collector> all;
  return all;
}
int next_id = 1;

void stack_families(Stack& stack, Writer& w) {
  stack.counters().for_each([&](std::string_view name, uint64_t value) {
    std::string help = "Keel stack counter " + std::string(name) + " (api/net/counters.hpp)";
    w.family(metric_name("keel_net", name) + "_total", help, Type::counter);
    w.sample(value);
  });
  // Per interface: one family per counter, a sample per interface.
  const std::size_t count = stack.interface_count();
  if (count == 0) return;
  std::vector<std::vector<std::pair<std::string_view, uint64_t>>> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    stack.interface(InterfaceId(i)).counters().for_each([&](std::string_view name, uint64_t value) {
      values[i].emplace_back(name, value);
    });
  }
  for (std::size_t c = 0; c < values[0].size(); ++c) {
    std::string_view name = values[0][c].first;
    std::string help = "Keel interface counter " + std::string(name) + " (api/net/counters.hpp)";
    w.family(metric_name("keel_net_link", name) + "_total", help, Type::counter);
    for (std::size_t i = 0; i < count; ++i)
      w.sample(values[i][c].second, "interface", std::to_string(i));
  }
}

}  // namespace

void Writer::family(std::string_view name, std::string_view help, Type type) {
  name_ = valid_name(name) ? std::string(name) : std::string();
  if (name_.empty()) return;
  out_ += "# HELP " + name_ + ' ';
  escaped(out_, help, false);
  out_ += "\n# TYPE " + name_ + (type == Type::counter ? " counter\n" : " gauge\n");
}

void Writer::sample(uint64_t value, std::string_view label, std::string_view label_value) {
  if (name_.empty()) return;
  out_ += name_;
  if (!label.empty() && valid_name(label)) {
    out_ += '{';
    out_ += label;
    out_ += "=\"";
    escaped(out_, label_value, true);
    out_ += "\"}";
  }
  out_ += ' ' + std::to_string(value) + '\n';
}

std::string metric_name(std::string_view prefix, std::string_view dotted) {
  std::string name(prefix);
  if (!name.empty() && !dotted.empty()) name += '_';
  for (char c : dotted) name += name_char(c, false) ? c : '_';
  return name;
}

int add_collector(Collector collector) {
  collectors().emplace(next_id, std::move(collector));
  return next_id++;
}

void remove_collector(int id) { collectors().erase(id); }

void render(Stack& stack, std::string& out) {
  Writer w(out);
  stack_families(stack, w);
  for (auto& [id, collect] : collectors()) collect(w);
}

}  // namespace net::metrics
