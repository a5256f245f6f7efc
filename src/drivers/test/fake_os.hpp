// The kernel pieces virtio::Net uses (events, timers, memory size), reduced
// to what a test can drive: the handlers Net registers are kept here for
// the test to run, as the event loop would.
#pragma once
#include <cstddef>
#include <kernel/events.hpp>
#include <kernel/timers.hpp>

namespace keel::drivers::virtio::fake {

extern os::Events::handler_t event_handler;  // the NIC's event
extern os::Timers::handler_t reap_handler;   // the one timer Net creates
extern int triggered;                        // Events::trigger calls
extern std::size_t guest_memory;             // what os::total_memory() says

}  // namespace keel::drivers::virtio::fake
