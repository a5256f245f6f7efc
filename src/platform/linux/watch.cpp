#include "watch.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <kernel/events.hpp>

namespace keel::linux_platform {
namespace {

int epoll_fd() {
  static int fd = epoll_create1(EPOLL_CLOEXEC);
  return fd;
}

}  // namespace

bool watch_fd(int fd, int event) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = uint32_t(event);
  return epoll_ctl(epoll_fd(), EPOLL_CTL_ADD, fd, &ev) == 0;
}

void unwatch_fd(int fd) { epoll_ctl(epoll_fd(), EPOLL_CTL_DEL, fd, nullptr); }

void wait_for_watched_fds(int timeout_ms) {
  constexpr int batch = 16;
  epoll_event ready[batch];
  int n = epoll_wait(epoll_fd(), ready, batch, timeout_ms);
  for (int i = 0; i < n; ++i) os::Events::trigger(int(ready[i].data.u32));
}

}  // namespace keel::linux_platform
