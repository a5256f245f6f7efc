// The callable that joins layers and carries handlers (see docs/decisions/0004).
#pragma once
#include <functional>

namespace keel {
template <class Signature>
using delegate = std::function<Signature>;
}
