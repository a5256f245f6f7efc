#pragma once
// What lookups read, for `keel-fw stats RULES PACKETS`: the distinct 64-byte lines and 4 KiB
// pages of the tables each lookup touches (mean, p99, max), in all and per pool, and the pages
// all lookups touch together. Needs the counting runtime (runtime/touches.hpp) and tables mapped
// on a page boundary, as an image maps them, so that pages are the guest's.
#include <cstddef>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "keel/firewall/classifier.hpp"
#include "packet_text.hpp"

namespace keel::firewall {

struct TouchCount {
  double mean = 0;
  size_t p99 = 0;
  size_t max = 0;
};

struct PoolTouches {
  std::string name;
  double lines_mean = 0;
  double pages_mean = 0;
};

struct LookupTouches {
  size_t lookups = 0;
  TouchCount lines, pages;
  size_t pages_all = 0;            // distinct pages over every lookup (the lookups' working set)
  size_t blob_pages = 0;           // pages of the whole blob
  std::vector<PoolTouches> pools;  // pools some lookup touched, in blob order
};

LookupTouches count_touches(const Classifier& classifier, std::span<const uint8_t> blob,
                            std::span<const PacketLine> packets);
void print_touches(const LookupTouches& touches, std::ostream& out);

}  // namespace keel::firewall
