// lib/dns behind a plain Linux UDP socket: for developing against NSD and
// Knot without the Keel stack in between (the differential test runs the real
// appliance, examples/dns). Not part of any image.
//
//   dns_socket_server ADDRESS:PORT ZONE-FILE|NAME=FILE...
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "keel/dns/catalog.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/zone_file.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: dns_socket_server ADDRESS:PORT NAME=FILE...\n");
    return 2;
  }
  const std::string listen = argv[1];
  const auto colon = listen.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(std::stoi(listen.substr(colon + 1))));
  if (inet_pton(AF_INET, listen.substr(0, colon).c_str(), &addr.sin_addr) != 1) return 2;

  std::vector<keel::dns::ZoneData> zones;
  std::vector<keel::dns::Diagnostic> errors;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    const auto eq = arg.find('=');
    zones.emplace_back();
    keel::dns::read_zone_file(arg.substr(eq + 1), arg.substr(0, eq), zones.back(), errors);
  }
  std::unique_ptr<keel::dns::Catalog> catalog;
  if (errors.empty()) catalog = keel::dns::Catalog::build(zones, errors);
  for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
  if (!catalog) return 1;
  keel::dns::Server server(std::move(catalog));

  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("bind");
    return 1;
  }
  std::printf("listening on %s\n", listen.c_str());
  std::fflush(stdout);
  uint8_t in[65536], out[65536];
  for (;;) {
    sockaddr_in from{};
    socklen_t from_len = sizeof from;
    const ssize_t n = recvfrom(fd, in, sizeof in, 0, reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n < 0) continue;
    const auto client =
        keel::dns::ClientAddress::ipv4(ntohl(from.sin_addr.s_addr), ntohs(from.sin_port));
    const std::size_t size = server.answer({in, std::size_t(n)}, client, {out, sizeof out});
    if (size > 0) sendto(fd, out, size, 0, reinterpret_cast<sockaddr*>(&from), from_len);
  }
}
