// Host micro-benchmark of Server::answer alone (no network, no QEMU): the
// median time per query over a dnsperf query file, with and without the
// pre-rendered answers, beside a probe of how fast this machine copies a
// 64-byte answer (the floor of any answer path).
//
//   answer_bench ZONE_NAME ZONE_FILE QUERIES.txt [ROUNDS [EDNS_PAYLOAD]]
//
// The queries carry no EDNS (as dnsperf's) unless EDNS_PAYLOAD is given.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "keel/dns/catalog.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/zone_file.hpp"
#include "zonefile/rdata_text.hpp"
#include "zonefile/text_values.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::vector<uint8_t>> read_queries(const std::string& path, int edns_payload) {
  std::vector<std::vector<uint8_t>> out;
  std::ifstream in(path);
  std::string name, type;
  uint16_t id = 0;
  while (in >> name >> type) {
    std::string wire;
    if (!keel::dns::zonefile::parse_name(name.back() == '.' ? name : name + ".",
                                         keel::dns::root_name(), wire)
             .empty()) {
      continue;
    }
    const int t = keel::dns::zonefile::type_number(type);
    if (t < 0) continue;
    std::vector<uint8_t> q = {uint8_t(id >> 8), uint8_t(id), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    q.insert(q.end(), wire.begin(), wire.end());
    q.insert(q.end(), {uint8_t(t >> 8), uint8_t(t), 0, 1});
    if (edns_payload > 0) {  // an OPT record (RFC 6891 §6.1.2): root owner, payload as CLASS
      q[11] = 1;
      q.insert(q.end(),
               {0, 0, 41, uint8_t(edns_payload >> 8), uint8_t(edns_payload), 0, 0, 0, 0, 0, 0});
    }
    out.push_back(std::move(q));
    ++id;
  }
  return out;
}

double ns_per_query(keel::dns::Server& server, const std::vector<std::vector<uint8_t>>& queries,
                    int rounds) {
  static uint8_t out[65535];
  const auto client = keel::dns::ClientAddress::ipv4(0x0a000001, 5353);
  std::vector<double> times;
  std::size_t sink = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    for (const auto& q : queries) sink += server.answer(q, client, {out, sizeof out});
    times.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                    double(queries.size()));
  }
  if (sink == 0) std::puts("(no answers)");
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double copy_floor_ns(int rounds) {
  static uint8_t from[64], to[64];
  std::vector<double> times;
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < 1000000; ++i) {
      from[i & 63] = uint8_t(i);
      std::memcpy(to, from, sizeof to);
      asm volatile("" : : "r"(to) : "memory");
    }
    times.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / 1e6);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: answer_bench ZONE_NAME ZONE_FILE QUERIES.txt [ROUNDS [EDNS_PAYLOAD]]\n");
    return 2;
  }
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 15;
  std::vector<keel::dns::ZoneData> zones(1);
  std::vector<keel::dns::Diagnostic> errors;
  keel::dns::read_zone_file(argv[2], argv[1], zones[0], errors);
  const auto queries = read_queries(argv[3], argc > 5 ? std::atoi(argv[5]) : 0);
  std::printf("queries %zu\n", queries.size());
  for (bool prerender : {true, false}) {
    auto catalog = keel::dns::Catalog::build(zones, errors);
    for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    if (!catalog) return 1;
    keel::dns::ServerOptions options;
    options.prerender = prerender;
    keel::dns::Server server(std::move(catalog), options);
    const double ns = ns_per_query(server, queries, rounds);
    std::printf("%s: %.1f ns per query (%.0f%% pre-rendered)\n",
                prerender ? "pre-rendered" : "computed", ns,
                100.0 * double(server.stats().prerendered) / double(server.stats().queries));
  }
  std::printf("floor: %.1f ns per 64-byte copy\n", copy_floor_ns(rounds));
  return 0;
}
