// Hook points (api/net/hooks.hpp): ordered chains of functions per hook.
#include <algorithm>
#include <net/hooks.hpp>

namespace net {

const char* to_string(Hook hook) {
  switch (hook) {
    case Hook::prerouting:
      return "prerouting";
    case Hook::input:
      return "input";
    case Hook::forward:
      return "forward";
    case Hook::output:
      return "output";
    case Hook::postrouting:
      return "postrouting";
  }
  return "?";
}

void Hooks::insert(Entry entry) {
  auto& chain = chains_[std::size_t(entry.hook)];
  auto position = std::find_if(chain.begin(), chain.end(),
                               [&](const Entry& e) { return e.priority > entry.priority; });
  chain.insert(position, std::move(entry));
}

Hooks::Id Hooks::add(Hook hook, int priority, Function function) {
  Id id = next_id_++;
  Entry entry{priority, id, std::move(function), hook};
  if (running_) {
    pending_adds_.push_back(std::move(entry));
  } else {
    insert(std::move(entry));
  }
  return id;
}

void Hooks::remove(Id id) {
  if (running_) {
    pending_removes_.push_back(id);
    return;
  }
  for (auto& chain : chains_) std::erase_if(chain, [&](const Entry& e) { return e.id == id; });
  std::erase_if(pending_adds_, [&](const Entry& e) { return e.id == id; });
}

void Hooks::apply_pending() {
  for (Entry& entry : pending_adds_) insert(std::move(entry));
  pending_adds_.clear();
  std::vector<Id> removes;
  removes.swap(pending_removes_);
  for (Id id : removes) remove(id);
}

Verdict Hooks::run(Hook hook, Packet& packet, InterfaceId in, InterfaceId out,
                   Address::Family family) {
  HookPacket p{hook, packet, in, out, family};
  Verdict verdict = Verdict::accept;
  ++running_;
  for (Entry& entry : chains_[std::size_t(hook)]) {
    if (entry.function(p) == Verdict::drop) {
      verdict = Verdict::drop;
      break;
    }
  }
  if (--running_ == 0 && (!pending_adds_.empty() || !pending_removes_.empty())) apply_pending();
  return verdict;
}

}  // namespace net
