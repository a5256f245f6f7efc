// The smallest tour of Keel: console, the C++ standard library, exceptions,
// a timer, and a clean shutdown with status 0.
#include <cstdio>
#include <iostream>
#include <map>
#include <os>
#include <stdexcept>
#include <string>
#include <vector>

using namespace std::chrono_literals;

void Service::start() {
  std::printf("Hello from Keel on %.*s\n", int(os::platform().size()), os::platform().data());

  std::vector<int> squares;
  for (int i = 1; i <= 5; ++i) squares.push_back(i * i);
  std::map<std::string, int> counts{{"timers", 1}, {"vectors", int(squares.size())}};
  std::string summary = "squares:";
  for (int s : squares) summary += " " + std::to_string(s);
  std::cout << summary << ", map entries: " << counts.size() << std::endl;

  try {
    throw std::runtime_error("caught as expected");
  } catch (const std::exception& e) {
    std::printf("exception: %s\n", e.what());
  }

  auto started = os::uptime();
  os::Timers::oneshot(10ms, [started](os::Timers::id_t) {
    auto waited = std::chrono::duration_cast<std::chrono::microseconds>(os::uptime() - started);
    std::printf("timer fired after %lld us\n", static_cast<long long>(waited.count()));
    std::printf("Goodbye\n");
    os::shutdown(0);
  });
}
