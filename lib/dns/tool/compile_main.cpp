// keel-dns-compile: reads zone files, checks them as the server would, and
// writes the blob an image embeds (include/keel/dns/blob.hpp).
//
//   keel-dns-compile [--out BLOB] [--links ASM] [--stats] [--dump] ZONE...
//
// ZONE is a file whose name, less a ".zone" suffix, is the zone's name
// (zones/example.com.zone), NAME=FILE, or a folder: every *.zone file in it.
// Errors are printed as file:line:column: message; the status is then 1.
// --dump prints each record as "zone owner type TTL RDATA-hex" (for tests).
// --links writes assembler lines naming the code the zones need linked into
// an image: the DNSSEC code when a zone is signed (decision 0141), else none.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "keel/dns/blob.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/zone_file.hpp"

namespace {

namespace fs = std::filesystem;
using keel::dns::Diagnostic;
using keel::dns::ZoneData;

constexpr std::string_view zone_suffix = ".zone";

struct Source {
  std::string name;
  std::string path;
};

bool add_sources(const std::string& arg, std::vector<Source>& out) {
  if (auto eq = arg.find('='); eq != std::string::npos) {
    out.push_back({arg.substr(0, eq), arg.substr(eq + 1)});
    return true;
  }
  std::error_code ec;
  if (fs::is_directory(arg, ec)) {
    std::vector<Source> found;
    for (const auto& entry : fs::directory_iterator(arg, ec)) {
      const std::string file = entry.path().filename().string();
      if (file.size() > zone_suffix.size() && file.ends_with(zone_suffix)) {
        found.push_back({file.substr(0, file.size() - zone_suffix.size()), entry.path().string()});
      }
    }
    std::sort(found.begin(), found.end(),
              [](const Source& a, const Source& b) { return a.name < b.name; });
    if (found.empty())
      std::fprintf(stderr, "keel-dns-compile: no *.zone files in %s\n", arg.c_str());
    out.insert(out.end(), found.begin(), found.end());
    return !found.empty();
  }
  std::string file = fs::path(arg).filename().string();
  if (file.ends_with(zone_suffix)) file.resize(file.size() - zone_suffix.size());
  out.push_back({file, arg});
  return true;
}

void print_stats(const keel::dns::Server& server) {
  const keel::dns::Catalog& c = server.catalog();
  const keel::dns::CatalogMemory m = c.memory();
  const std::size_t records = std::max<std::size_t>(c.record_count(), 1);
  const std::size_t total = m.total() + server.prerendered_bytes();
  std::printf("zones %zu, names %zu, records %zu\n", c.zone_count(), c.node_count(),
              c.record_count());
  std::printf(
      "bytes: nodes %zu, rrsets %zu, names %zu, rdata %zu, index %zu, zones %zu, dnssec %zu, "
      "pre-rendered %zu (%zu answers)\n",
      m.nodes, m.rrsets, m.names, m.rdata, m.index, m.zones, m.dnssec, server.prerendered_bytes(),
      server.prerendered_answers());
  std::printf("total %zu bytes, %.1f bytes per record (%.1f without pre-rendered answers)\n", total,
              double(total) / double(records), double(m.total()) / double(records));
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, links;
  bool stats = false, dump = false;
  std::vector<Source> sources;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (arg == "--links" && i + 1 < argc) {
      links = argv[++i];
    } else if (arg == "--stats") {
      stats = true;
    } else if (arg == "--dump") {
      dump = true;
    } else if (arg.starts_with("-")) {
      std::fprintf(stderr,
                   "usage: keel-dns-compile [--out BLOB] [--links ASM] [--stats] [--dump] "
                   "ZONE-FILE|NAME=FILE|FOLDER...\n");
      return 2;
    } else if (!add_sources(arg, sources)) {
      return 1;
    }
  }
  if (sources.empty()) {
    std::fprintf(stderr, "keel-dns-compile: no zones given\n");
    return 2;
  }
  std::vector<ZoneData> zones(sources.size());
  std::vector<Diagnostic> errors;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    keel::dns::read_zone_file(sources[i].path, sources[i].name, zones[i], errors);
  }
  std::unique_ptr<keel::dns::Catalog> catalog;
  if (errors.empty()) catalog = keel::dns::Catalog::build(zones, errors);
  for (const Diagnostic& d : errors) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  if (!catalog) return 1;
  if (!out.empty()) {
    const std::string blob = keel::dns::encode_blob(zones);
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    file.write(blob.data(), std::streamsize(blob.size()));
    if (!file) {
      std::fprintf(stderr, "keel-dns-compile: cannot write %s\n", out.c_str());
      return 1;
    }
  }
  if (!links.empty()) {
    std::ofstream file(links, std::ios::trunc);
    file << "# What these zones need linked (written by keel-dns-compile).\n";
    // A reference, not a use: it makes the linker take the DNSSEC code's object.
    if (catalog->any_signed())
      file << ".section .data.keel_dns_links,\"aw\"\n.quad keel_dns_dnssec\n";
    if (!file) {
      std::fprintf(stderr, "keel-dns-compile: cannot write %s\n", links.c_str());
      return 1;
    }
  }
  if (dump) {
    for (const ZoneData& zone : zones) {
      for (const keel::dns::ZoneRecord& r : zone.records) {
        std::string hex;
        for (char c : r.rdata) {
          static constexpr char digits[] = "0123456789abcdef";
          hex += digits[uint8_t(c) >> 4];
          hex += digits[uint8_t(c) & 15];
        }
        std::printf("%s %s %u %u %s\n", keel::dns::name_to_text(zone.origin).c_str(),
                    keel::dns::name_to_text(r.owner).c_str(), r.type, r.ttl, hex.c_str());
      }
    }
  }
  if (stats) {
    keel::dns::Server server(std::move(catalog));
    print_stats(server);
  }
  return 0;
}
