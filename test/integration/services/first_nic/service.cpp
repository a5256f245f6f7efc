// A network service as docs/net/README.md shows one: it asks for
// interface 0, so started without a NIC it must be told so plainly
// (test_keel_tool.py), not die of std::out_of_range.
#include <cstdio>
#include <net/stack.hpp>
#include <os>

void Service::start() {
  net::Stack& stack = net::stack();
  stack.interface(0).on_config([](net::Interface& i) {
    std::printf("up on %s\n", i.address().to_string().c_str());
    os::shutdown(0);
  });
}
