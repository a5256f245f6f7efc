#include "compile/dnf.hpp"

#include "compile/interval_set.hpp"

namespace keel::firewall {
namespace {
// Intersection of two cubes; false when some field becomes empty.
bool cube_and(const IrCube& a, const IrCube& b, IrCube& out) {
  out.fields.clear();
  size_t i = 0, j = 0;
  while (i < a.fields.size() || j < b.fields.size()) {
    if (j == b.fields.size() || (i < a.fields.size() && a.fields[i].field < b.fields[j].field)) {
      out.fields.push_back(a.fields[i++]);
    } else if (i == a.fields.size() || b.fields[j].field < a.fields[i].field) {
      out.fields.push_back(b.fields[j++]);
    } else {
      IntervalSet both = intersect(a.fields[i].set, b.fields[j].set);
      if (both.empty()) return false;
      out.fields.push_back({a.fields[i].field, std::move(both)});
      ++i;
      ++j;
    }
  }
  return true;
}
}  // namespace

Dnf dnf_true() { return Dnf(1); }

Dnf dnf_field(Field field, IntervalSet set) {
  if (set.empty()) return {};
  if (is_full(set, field_max(field))) return dnf_true();
  Dnf out(1);
  out[0].fields.push_back({field, std::move(set)});
  return out;
}

Dnf dnf_and(const Dnf& a, const Dnf& b) {
  Dnf out;
  IrCube cube;
  for (const IrCube& x : a) {
    for (const IrCube& y : b) {
      if (cube_and(x, y, cube)) out.push_back(cube);
    }
  }
  return out;
}

Dnf dnf_or(Dnf a, const Dnf& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// De Morgan: not (c1 or c2 ...) = (not c1) and (not c2) ..., not c = or of complemented fields.
Dnf dnf_not(const Dnf& a) {
  Dnf out = dnf_true();
  for (const IrCube& cube : a) {
    if (cube.fields.empty()) return {};
    Dnf negated;
    for (const FieldSet& fs : cube.fields) {
      negated =
          dnf_or(std::move(negated), dnf_field(fs.field, complement(fs.set, field_max(fs.field))));
    }
    out = dnf_and(out, negated);
    if (out.empty() || out.size() > kMaxCubesPerRule) return out;
  }
  return out;
}

bool cube_matches(const IrCube& cube, const Packet& packet) {
  for (const FieldSet& fs : cube.fields) {
    if (!contains(fs.set, field_value(packet, fs.field))) return false;
  }
  return true;
}

}  // namespace keel::firewall
