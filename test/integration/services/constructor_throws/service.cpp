// A global's constructor throws before Service::start(): Keel's terminate
// handler must already be the one that names the exception (decision 0088).
#include <os>
#include <stdexcept>

namespace {

struct ThrowsAtStart {
  ThrowsAtStart() { throw std::runtime_error("thrown by a global's constructor"); }
};
ThrowsAtStart throws_at_start;

}  // namespace

void Service::start() {}
