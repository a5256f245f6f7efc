// A service that links a Keel library (lib/firewall's runtime) by name:
// the classifier refuses a blob that is not one, and with no tables
// accepts, in an image as on the host.
#include <cstdio>
#include <keel/firewall/classifier.hpp>
#include <os>

void Service::start() {
  keel::firewall::Classifier classifier;
  const uint8_t not_a_blob[] = {'n', 'o', 't', ' ', 'a', ' ', 'b', 'l', 'o', 'b', 0, 0, 0, 0, 0, 0};
  auto status = classifier.load(not_a_blob);
  std::printf("firewall library: load says %s; avx2 %s\n", keel::firewall::to_string(status),
              keel::firewall::cpu_has_avx2() ? "yes" : "no");
  os::shutdown(status == keel::firewall::LoadStatus::ok ? 1 : 0);
}
