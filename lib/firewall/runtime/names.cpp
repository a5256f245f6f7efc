// Printable names of enums (runtime-safe: string literals only).
#include "keel/firewall/classifier.hpp"
#include "lang/ast.hpp"

namespace keel::firewall {

const char* to_string(Hook hook) {
  static constexpr const char* kNames[] = {"prerouting", "input", "forward", "output",
                                           "postrouting"};
  return kNames[static_cast<int>(hook) % kHookCount];
}

const char* to_string(Action action) {
  static constexpr const char* kNames[] = {"accept", "drop", "reject",
                                           "snat",   "dnat", "masquerade"};
  return kNames[static_cast<int>(action) % kActionCount];
}

const char* to_string(LoadStatus status) {
  switch (status) {
    case LoadStatus::ok:
      return "ok";
    case LoadStatus::truncated:
      return "truncated table blob";
    case LoadStatus::bad_magic:
      return "not a keel firewall table blob";
    case LoadStatus::bad_version:
      return "unsupported table version";
    case LoadStatus::bad_checksum:
      return "checksum mismatch";
    case LoadStatus::bad_size:
      return "inconsistent table sizes";
    case LoadStatus::bad_index:
      return "index out of range";
    case LoadStatus::bad_enum:
      return "invalid enum value";
    case LoadStatus::bad_order:
      return "table entries out of order";
    case LoadStatus::trailing_bytes:
      return "trailing bytes after tables";
    case LoadStatus::misaligned:
      return "table blob not on a 64-byte boundary";
  }
  return "?";
}

}  // namespace keel::firewall
