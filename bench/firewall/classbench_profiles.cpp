// The three ClassBench filter-set families as distributions (classbench_model.hpp says what each
// part means). Where the numbers come from:
//  - acl: the parameter sections of ClassBench's acl1 seed (protocols TCP 87%, wildcard 8%, ICMP
//    3%, UDP 1%; TCP ports WC/EM 65%, WC/WC 22%, WC/AR 13%; prefix pairs dominated by (32, 32),
//    then (32, 24), (23, 32), (32, 22); a source trie with almost every prefix under one /23 and
//    a destination trie branching at the top levels), widened towards the other acl seeds the
//    paper describes (more UDP, some HI/EM and WC/HI, some short or wildcard sources).
//  - fw, ipc: the paper's descriptions and tallies of sets ClassBench generated from the fw1 and
//    ipc1 seeds: firewalls have many rules with one address wildcard or a /1-/2 and the other a
//    host, TCP, UDP, ICMP and GRE, EM destination ports and HI ranges, addresses from a few tens
//    of sites; IP chains have mostly host-to-host pairs, EM ports on either side, many sites.
// The held-out check generates its own sets from the published statistics: these profiles are a
// model of the same structure, not a copy of any seed, and bench runs use several seeds each.
#include "classbench_model.hpp"

namespace keel::firewall::bench {
namespace {
using enum PortClass;

// Exact ports seen in the seeds' EM lists and common services, roughly by frequency.
const std::vector<PortShare> kExactPorts = {
    {80, 80, 12},        {443, 443, 8},       {53, 53, 7},       {25, 25, 5},
    {22, 22, 5},         {21, 21, 4},         {1521, 1521, 4},   {23, 23, 3},
    {110, 110, 3},       {123, 123, 3},       {161, 161, 3},     {1433, 1433, 3},
    {162, 162, 2},       {137, 137, 2},       {139, 139, 2},     {3306, 3306, 2},
    {8080, 8080, 2},     {69, 69, 2},         {514, 514, 2},     {445, 445, 2},
    {138, 138, 1},       {1526, 1526, 1},     {119, 119, 1},     {143, 143, 1},
    {179, 179, 1},       {1645, 1645, 1},     {1646, 1646, 1},   {5060, 5060, 1},
    {389, 389, 1},       {636, 636, 1},       {993, 993, 1},     {995, 995, 1},
    {88, 88, 1},         {111, 111, 1},       {135, 135, 1},     {2049, 2049, 1},
    {5631, 5631, 1},     {5632, 5632, 1},     {7648, 7648, 1},   {6000, 6000, 1},
    {9003, 9003, 1},     {1723, 1723, 1},     {500, 500, 1},     {3389, 3389, 1},
    {20, 20, 1},         {67, 67, 1},         {1221, 1221, 0.5}, {24032, 24032, 0.5},
    {1812, 1812, 0.5},   {1813, 1813, 0.5},   {5900, 5900, 0.5}, {8443, 8443, 0.5},
    {10000, 10000, 0.5}, {1080, 1080, 0.5},   {68, 68, 0.5},     {113, 113, 0.5},
    {2105, 2105, 0.5},   {750, 750, 0.5},     {5998, 5998, 0.5}, {5999, 5999, 0.5},
    {14753, 14753, 0.3}, {32774, 32774, 0.3}, {1712, 1712, 0.3}, {1711, 1711, 0.3},
    {5540, 5540, 0.3},   {5541, 5541, 0.3},   {871, 871, 0.3},   {544, 544, 0.3},
    {2401, 2401, 0.3},   {6789, 6789, 0.3},
};

// Arbitrary ranges as the seeds list them: service blocks, ephemeral blocks, small numbered runs.
const std::vector<PortShare> kArbitraryRanges = {
    {1600, 1649, 8},   {1300, 1349, 7},   {7500, 7599, 5},   {2200, 2210, 5}, {20, 21, 5},
    {109, 110, 5},     {137, 139, 5},     {1025, 65535, 4},  {1700, 1750, 4}, {5001, 65535, 4},
    {32200, 32207, 4}, {8000, 8100, 4},   {20, 23, 4},       {1645, 1646, 4}, {5000, 5001, 3},
    {6000, 6063, 3},   {61000, 61009, 3}, {62000, 62009, 3}, {6660, 6669, 3}, {1024, 5000, 3},
    {33434, 33534, 3}, {135, 139, 3},     {49152, 65535, 3}, {2000, 2999, 3}, {10000, 10100, 3},
    {61100, 61119, 2}, {62200, 62239, 2}, {20000, 20010, 2}, {1300, 1399, 1}, {8000, 8999, 1},
};

constexpr double kRandomExactPort = 0.05;  // EM ports drawn uniformly instead of from the list

FamilyProfile family(std::string name, std::vector<ProtocolShare> protocols,
                     std::vector<PrefixPairShare> with_ports,
                     std::vector<PrefixPairShare> wildcard_ports, TrieShape source,
                     TrieShape destination) {
  return {std::move(name),       std::move(protocols), std::move(wildcard_ports),
          std::move(with_ports), std::move(source),    std::move(destination),
          kExactPorts,           kArbitraryRanges,     kRandomExactPort};
}

FamilyProfile acl() {
  return family(
      "acl",
      {{6, 80, {{wc, em, 62}, {wc, wc, 20}, {wc, ar, 12}, {hi, em, 3}, {wc, hi, 3}}},
       {17, 8, {{wc, em, 80}, {wc, ar, 10}, {wc, wc, 10}}},
       {1, 4, {}},
       {0, 8, {}}},
      {{32, 32, 32, 32, 62},
       {31, 32, 30, 32, 5},
       {30, 31, 32, 32, 3},
       {23, 24, 32, 32, 8},
       {32, 32, 22, 24, 8},
       {23, 24, 22, 28, 4},
       {0, 0, 32, 32, 4},
       {16, 20, 24, 32, 2},
       {32, 32, 0, 0, 2},
       {0, 0, 24, 24, 1},
       {8, 16, 8, 16, 1}},
      {{32, 32, 32, 32, 45},
       {31, 32, 30, 32, 5},
       {32, 32, 24, 24, 10},
       {23, 24, 32, 32, 10},
       {32, 32, 22, 23, 8},
       {23, 24, 0, 8, 6},
       {23, 24, 15, 26, 5},
       {0, 0, 0, 0, 1},
       {0, 0, 8, 13, 2},
       {8, 8, 0, 0, 1},
       {0, 0, 32, 32, 4},
       {16, 16, 16, 24, 3}},
      // acl1's source trie puts nearly every prefix under one /23; its destination trie branches
      // at the top levels and rarely below /8 until the host bits.
      {{{0, 1.0, 0.95},
        {1, 0.2, 0.8},
        {4, 0.1, 0.9},
        {6, 0.5, 0.9},
        {7, 0.1, 0.9},
        {12, 0.1, 0.8},
        {16, 0.15, 0.7},
        {24, 0.5, 0.49},
        {25, 0.67, 0.74},
        {26, 0.8, 0.32},
        {27, 0.78, 0.36},
        {28, 0.75, 0.46},
        {29, 0.75, 0.36},
        {30, 0.53, 0.48},
        {31, 0.26, 0.46}},
       4},
      {{{0, 1.0, 0.74},   {1, 1.0, 0.61},  {2, 0.67, 0.79},  {3, 0.75, 0.88}, {4, 0.83, 0.65},
        {5, 0.4, 0.83},   {6, 0.31, 0.58}, {7, 0.24, 0.5},   {8, 0.2, 0.78},  {9, 0.08, 0.8},
        {11, 0.2, 0.55},  {16, 0.09, 0.9}, {17, 0.08, 0.6},  {23, 0.1, 0.31}, {24, 0.07, 0.4},
        {25, 0.09, 0.59}, {28, 0.1, 0.35}, {29, 0.14, 0.47}, {30, 0.1, 0.31}, {31, 0.09, 0.48}},
       4});
}

FamilyProfile fw() {
  // A few tens of sites, little spread inside a site until the host bits.
  const TrieShape sites = {{{0, 0.8, 0.5},
                            {3, 0.6, 0.5},
                            {6, 0.4, 0.6},
                            {10, 0.2, 0.7},
                            {16, 0.1, 0.8},
                            {20, 0.15, 0.7},
                            {24, 0.3, 0.6},
                            {28, 0.4, 0.5}},
                           6};
  return family("fw",
                {{6,
                  55,
                  {{wc, em, 62},
                   {wc, wc, 20},
                   {hi, hi, 8},
                   {wc, hi, 3},
                   {hi, em, 4},
                   {wc, lo, 1},
                   {em, wc, 2}}},
                 {17,
                  30,
                  {{wc, em, 30},
                   {em, em, 15},
                   {em, hi, 15},
                   {hi, em, 12},
                   {em, wc, 10},
                   {wc, wc, 10},
                   {hi, hi, 8}}},
                 {1, 7, {}},
                 {47, 5, {}},
                 {0, 3, {}}},
                {{0, 0, 31, 32, 30},
                 {1, 2, 31, 32, 20},
                 {32, 32, 0, 0, 6},
                 {32, 32, 1, 2, 5},
                 {31, 32, 31, 32, 14},
                 {28, 30, 28, 32, 8},
                 {25, 29, 20, 23, 5},
                 {32, 32, 20, 23, 5},
                 {0, 0, 24, 28, 3},
                 {16, 24, 0, 0, 2},
                 {0, 0, 0, 0, 2}},
                {{31, 32, 31, 32, 25},
                 {26, 30, 26, 32, 20},
                 {32, 32, 20, 23, 15},
                 {25, 29, 20, 23, 10},
                 {0, 0, 31, 32, 10},
                 {1, 2, 31, 32, 5},
                 {32, 32, 0, 2, 5},
                 {0, 0, 0, 0, 3},
                 {16, 24, 16, 24, 4},
                 {0, 0, 16, 24, 3}},
                sites, sites);
}

FamilyProfile ipc() {
  // Many sites spread over the address space.
  const TrieShape sites = {{{0, 0.9, 0.4},
                            {4, 0.6, 0.5},
                            {8, 0.3, 0.6},
                            {12, 0.2, 0.7},
                            {16, 0.12, 0.7},
                            {24, 0.35, 0.5},
                            {28, 0.45, 0.5}},
                           5};
  return family(
      "ipc",
      {{6,
        45,
        {{wc, em, 55},
         {wc, wc, 15},
         {em, wc, 12},
         {em, em, 6},
         {wc, ar, 5},
         {ar, wc, 3},
         {hi, em, 4}}},
       {17, 42, {{wc, em, 50}, {em, wc, 15}, {em, em, 15}, {wc, wc, 10}, {wc, ar, 5}, {ar, wc, 5}}},
       {1, 6, {}},
       {0, 7, {}}},
      {{32, 32, 32, 32, 35},
       {31, 32, 30, 32, 15},
       {24, 30, 32, 32, 10},
       {32, 32, 24, 30, 12},
       {24, 29, 24, 29, 5},
       {0, 0, 32, 32, 6},
       {32, 32, 0, 0, 6},
       {0, 0, 0, 0, 3},
       {16, 23, 16, 32, 4},
       {8, 8, 0, 8, 2},
       {0, 0, 8, 16, 2}},
      {{32, 32, 32, 32, 30},
       {31, 32, 30, 32, 10},
       {24, 30, 32, 32, 10},
       {32, 32, 24, 30, 10},
       {24, 29, 24, 29, 10},
       {0, 0, 0, 0, 8},
       {0, 0, 32, 32, 8},
       {32, 32, 0, 0, 8},
       {16, 23, 16, 32, 4},
       {8, 8, 8, 8, 2}},
      sites, sites);
}
}  // namespace

const FamilyProfile* family_profile(const std::string& name) {
  static const FamilyProfile kAcl = acl(), kFw = fw(), kIpc = ipc();
  if (name == "acl") return &kAcl;
  if (name == "fw") return &kFw;
  if (name == "ipc") return &kIpc;
  return nullptr;
}

}  // namespace keel::firewall::bench
