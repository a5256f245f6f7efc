// Throws an uncaught exception whose type name is long (over 128 chars
// demangled): the panic must still name it.
#include <cstdio>
#include <map>
#include <os>
#include <stdexcept>
#include <string>

template <class A, class B, class C>
struct an_exception_type_with_a_rather_long_name : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void Service::start() {
  std::printf("about to throw\n");
  throw an_exception_type_with_a_rather_long_name<std::map<std::string, std::string>,
                                                  std::map<int, std::string>, long>("long name");
}
