// ServerContext::create with the OS's answer to "is the generator seeded" (decision 0104):
// images and the Linux process only; host tests pass RandomSource themselves.
#include <os>

#include "keel/tls/server_context.hpp"

namespace keel::tls {

ServerContext::Made ServerContext::create(const Credentials& credentials,
                                          const ServerOptions& options) {
  return create(credentials, options,
                os::random_seeded() ? RandomSource::seeded : RandomSource::not_seeded);
}

}  // namespace keel::tls
