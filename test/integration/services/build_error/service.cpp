// Deliberately does not compile: keel build must report it clearly.
#include <os>

void Service::start() { this_is_not_declared(); }
