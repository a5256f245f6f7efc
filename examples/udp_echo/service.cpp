// UDP echo (RFC 862) on port 7 of every address of this host: each
// datagram goes back to its sender unchanged. Configure with
// `ip=10.0.0.2/24 gw=10.0.0.1` (and ip1=... for a second NIC), or
// `ip=dhcp`; `ip=10.0.0.2/24,fd00::2/64` answers over IPv6 as well; see
// docs/net/README.md and docs/net/ipv6.md. An ICMP or ICMPv6 error about an
// echo is printed (`udp_echo: echo to [fd00::1]:4000: port unreachable from fd00::1, mtu 0`).
//
//   qemu-system-x86_64 -M microvm -kernel udp_echo -append "ip=10.0.0.2/24" \
//     -netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
//     -device virtio-net-device,netdev=n0
#include <cstdio>
#include <net/stack.hpp>
#include <os>

namespace {
constexpr uint16_t echo_port = 7;  // RFC 862
}

void Service::start() {
  net::Stack& stack = net::stack();
  if (stack.interface_count() == 0) std::printf("udp_echo: no network interface\n");
  auto bound = stack.udp().bind(echo_port);
  if (!bound) {
    std::printf("udp_echo: cannot bind port %u: %s\n", echo_port, net::to_string(bound.status));
    os::shutdown(1);
    return;
  }
  net::UdpSocket socket = *bound;
  socket.on_read([socket](const net::UdpDatagram& d) mutable {
    // From the address it was sent to: with several interfaces, routing
    // might pick another.
    socket.send_to(d.source, d.payload, d.destination.address);
  });
  // ICMP and ICMPv6 errors about the echoes sent (a client gone, a path
  // narrower than the echo): one line each.
  socket.on_error([](const net::UdpError& e) {
    std::printf("udp_echo: echo to %s: %s from %s, mtu %u\n", e.destination.to_string().c_str(),
                net::to_string(e.kind), e.reporter.to_string().c_str(), e.mtu);
  });
  for (std::size_t i = 0; i < stack.interface_count(); ++i) {
    stack.interface(net::InterfaceId(i)).on_config([](net::Interface& nic) {
      std::printf("udp_echo: %s %s listening on %s:%u\n", nic.nic().name().c_str(),
                  nic.mac().to_string().c_str(), nic.address().to_string().c_str(), echo_port);
      if (!nic.address6().is_any()) {  // IPv6 too (docs/net/ipv6.md)
        std::printf("udp_echo: %s listening on %s and %s\n", nic.nic().name().c_str(),
                    net::Endpoint{nic.address6(), echo_port}.to_string().c_str(),
                    net::Endpoint{nic.link_local(), echo_port}.to_string().c_str());
      }
    });
  }
}
