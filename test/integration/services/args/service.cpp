// Prints the kernel command line, its words, the clocks, and whether global
// constructors ran before Service::start().
#include <cstdio>
#include <ctime>
#include <os>
#include <string>

static std::string constructed_by_global = "global constructor ran";

void Service::start() {
  std::printf("%s\n", constructed_by_global.c_str());
  std::printf("cmdline: [%.*s]\n", int(os::cmdline().size()), os::cmdline().data());
  for (const auto& word : os::args()) std::printf("arg: [%s]\n", word.c_str());
  auto wall = std::chrono::system_clock::to_time_t(os::wall_clock());
  std::tm utc;
  gmtime_r(&wall, &utc);
  std::printf("year: %d\n", utc.tm_year + 1900);
  std::printf("uptime_us: %lld\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::microseconds>(os::uptime()).count()));
  os::shutdown(0);
}
