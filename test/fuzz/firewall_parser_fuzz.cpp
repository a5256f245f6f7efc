// libFuzzer target: rule text through the whole compiler (parse, check, lower, build, encode,
// reload). Any input must end in diagnostics or valid tables, never a crash.
#include <cstdint>
#include <string_view>

#include "keel/firewall/classifier.hpp"
#include "keel/firewall/compiler.hpp"

using namespace keel::firewall;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CompileResult result = compile_source(text, "fuzz.fw", "/nonexistent");
  if (!result.ruleset) return 0;
  Classifier classifier;
  if (classifier.load(encode_tables(build_tables(*result.ruleset))) != LoadStatus::ok)
    __builtin_trap();
  Packet packet;
  packet.proto = kProtoTcp;
  packet.dport = 80;
  Packet ip6 = packet;  // 2001:db8::1 -> 2001:db8::2 (IPv6 rules and the family dispatch)
  ip6.family = kFamilyIp6;
  ip6.saddr = ip6.daddr = 0x20010db8;
  ip6.saddr6[2] = 1;
  ip6.daddr6[2] = 2;
  for (int hook = 0; hook < kHookCount; ++hook) {
    classifier.classify(ChainKind::filter, static_cast<Hook>(hook), packet);
    classifier.classify(ChainKind::filter, static_cast<Hook>(hook), ip6);
  }
  // The exporter reads every rule's cubes too (IPv6 words included).
  if (export_nft(*result.ruleset).empty()) __builtin_trap();
  return 0;
}
