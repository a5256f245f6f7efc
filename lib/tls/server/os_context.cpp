// ServerContext::create with the OS's answer to "is the generator seeded" (decision 0104), its
// handshakes paced by an event of the loop (decision 0107): images and the Linux process only;
// host tests pass RandomSource themselves.
#include <kernel/events.hpp>
#include <os>

#include "keel/tls/server_context.hpp"

namespace keel::tls {
namespace {

// One turn per pass of the event loop: what else arrived is served between two turns. With
// no event left to allocate, handshakes run as their input comes (as before 0107).
void pace_with_an_event(const std::shared_ptr<ServerContext>& context) {
  const int event = os::Events::allocate(nullptr);
  if (event < 0) return;
  os::Events::subscribe(event, [weak = std::weak_ptr<ServerContext>(context)] {
    if (auto c = weak.lock()) (void)c->run_handshake_turn();
  });
  context->pace_handshakes([event] { os::Events::trigger(event); });
}

}  // namespace

ServerContext::Made ServerContext::create(const Credentials& credentials,
                                          const ServerOptions& options) {
  Made made = create(credentials, options,
                     os::random_seeded() ? RandomSource::seeded : RandomSource::not_seeded);
  if (made.context) pace_with_an_event(made.context);
  return made;
}

}  // namespace keel::tls
