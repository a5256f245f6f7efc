// An IPv4 and IPv6 router: forwards between all its interfaces by the
// routing tables (connected subnets and prefixes, the gateways' default
// routes, and route= words), with TTL/hop limit, time exceeded, unreachable
// and fragmentation needed (IPv4, RFC 1812) or Packet Too Big (IPv6, RFC
// 8200 §5: never fragmented). Configure each interface and extra routes on
// the command line, either family or both:
//
//   ip=10.0.0.2/24,fd00::2/64 ip1=10.1.0.2/24,fd01::2/64
//   route=10.2.0.0/16,10.1.0.254 route=2001:db8:2::/48,fd01::1
//
// `stats=SECONDS` prints the counters that moved, that often: the stack's,
// then each interface's (`net1.link.tx_software_segments=...`).
#include <charconv>
#include <cstdio>
#include <net/stack.hpp>
#include <os>
#include <string>
#include <string_view>

namespace {

void print_counters(net::Stack& stack) {
  stack.counters().for_each([](std::string_view name, uint64_t value) {
    if (value) std::printf(" %.*s=%llu", int(name.size()), name.data(), (unsigned long long)value);
  });
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    stack.interface(net::InterfaceId(i))
        .counters()
        .for_each([i](std::string_view name, uint64_t value) {
          if (value)
            std::printf(" net%zu.%.*s=%llu", i, int(name.size()), name.data(),
                        (unsigned long long)value);
        });
  }
  std::printf("\n");
}

}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  stack.set_forwarding(true);
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    stack.interface(net::InterfaceId(i)).on_config([](net::Interface& nic) {
      std::string ip6 =
          nic.address6().is_any() ? "" : " " + net::Address(nic.address6()).to_string();
      std::printf("router: %s %s is %s%s\n", nic.name().c_str(), nic.mac().to_string().c_str(),
                  nic.address().to_string().c_str(), ip6.c_str());
    });
  }
  for (const net::Route& route : stack.routes().all())
    std::printf("router: route %s\n", route.to_string().c_str());
  for (const net::Route6& route : stack.routes6().all())
    std::printf("router: route %s\n", route.to_string().c_str());
  constexpr std::string_view key = "stats=";
  for (const std::string& arg : os::args()) {
    if (!arg.starts_with(key)) continue;
    unsigned seconds = 0;
    std::from_chars(arg.data() + key.size(), arg.data() + arg.size(), seconds);
    if (seconds == 0) continue;
    os::Timers::periodic(std::chrono::seconds(seconds), [&stack](os::Timers::id_t) {
      std::printf("router:");
      print_counters(stack);
    });
  }
  std::printf("router: forwarding between %zu interfaces\n", stack.interface_count());
}
