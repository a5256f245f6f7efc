// UDP echo (RFC 862) on port 7 of every interface: each datagram goes back
// to its sender unchanged. Configure with `ip=10.0.0.2/24 gw=10.0.0.1` (and
// ip1=... for a second NIC), or `ip=dhcp`; see docs/net/README.md.
//
//   qemu-system-x86_64 -M microvm -kernel udp_echo -append "ip=10.0.0.2/24" \
//     -netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
//     -device virtio-net-device,netdev=n0
#include <os>

#include <cstdio>
#include <net/interfaces.hpp>

namespace {
constexpr uint16_t echo_port = 7;  // RFC 862
}

void Service::start() {
  std::size_t count = net::Interfaces::count();
  if (count == 0) std::printf("udp_echo: no network interface\n");
  for (std::size_t i = 0; i < count; ++i) {
    net::Inet& stack = net::Interfaces::get(i);
    net::UdpSocket& socket = stack.udp().bind(echo_port);
    socket.on_read([&socket](net::ip4::Addr src, uint16_t sport, const char* data, std::size_t len) {
      socket.sendto(src, sport, data, len);
    });
    stack.on_config([](net::Inet& s) {
      std::printf("udp_echo: %s %s listening on %s:%u\n", s.nic().name().c_str(),
                  s.nic().mac().to_string().c_str(), s.address().to_string().c_str(), echo_port);
    });
  }
}
