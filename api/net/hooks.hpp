// Hook points of the host stack's IPv4 and IPv6 paths, where a firewall, NAT or
// connection tracking sits (the places and order of Linux's netfilter):
//
//   from an interface ──► prerouting ──► routing ─┬─► input ──► this host
//                                                 └─► forward ─┐
//   this host ──► routing ──► output ──────────────────────────┴─► postrouting ──► interface
//
// A hook function sees each packet once per hook, data() at the IP header
// of the family it names (IPv4 or IPv6: both families pass the same hooks,
// decision 0135; a whole datagram: fragments for this host are reassembled
// before input; with defragment_all() on, IPv4's before prerouting; IPv6
// is never fragmented on the way through), with the interface
// it came in on and the one it goes out on (no_interface where there is
// none yet: prerouting has no output, output no input). It may rewrite the
// packet (NAT: addresses, ports, checksums) and accepts or drops it;
// prerouting and output rewrites of the destination are routed anew.
//
//   stack.hooks().add(net::Hook::forward, 0, [](net::HookPacket& p) {
//     bool ip6 = p.family == net::Address::Family::ip6;
//     return p.in == 1 && ip6 ? net::Verdict::drop : net::Verdict::accept;
//   });
#pragma once
#include <array>
#include <cstdint>
#include <net/address.hpp>
#include <net/packet.hpp>
#include <net/routes.hpp>
#include <util/delegate.hpp>
#include <vector>

namespace net {

enum class Hook : uint8_t { prerouting, input, forward, output, postrouting };
inline constexpr std::size_t hook_count = 5;
const char* to_string(Hook hook);

enum class Verdict : uint8_t { accept, drop };

struct HookPacket {
  Hook hook;
  Packet& packet;  // data() at the IPv4 or IPv6 header, as `family` says
  InterfaceId in = no_interface;
  InterfaceId out = no_interface;
  Address::Family family = Address::Family::ip4;
};

class Hooks {
 public:
  using Function = keel::delegate<Verdict(HookPacket&)>;
  using Id = uint32_t;

  // Functions of one hook run by ascending priority (then in the order
  // added) until one drops. Returns an id for remove().
  Id add(Hook hook, int priority, Function function);
  void remove(Id id);
  bool empty(Hook hook) const { return chains_[std::size_t(hook)].empty(); }

  // Runs the hook's functions; the stack calls this.
  Verdict run(Hook hook, Packet& packet, InterfaceId in, InterfaceId out, Address::Family family);

 private:
  struct Entry {
    int priority;
    Id id;
    Function function;
    Hook hook;
  };
  void insert(Entry entry);
  void apply_pending();

  std::array<std::vector<Entry>, hook_count> chains_;
  // A function may add or remove hooks while it runs: the chains change
  // only when no function is running.
  int running_ = 0;
  std::vector<Entry> pending_adds_;
  std::vector<Id> pending_removes_;
  Id next_id_ = 1;
};

}  // namespace net
