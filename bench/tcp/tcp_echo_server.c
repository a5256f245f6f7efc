/* The Linux side of `keel bench tcp`: a TCP echo on a port (7 by default),
 * written with plain Linux sockets and epoll, as examples/tcp_echo is with
 * Keel's: whatever arrives goes back; a peer's FIN is answered with ours
 * once everything went back. One thread, non-blocking sockets. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

enum { max_events = 256, buffer_size = 65536, max_files = 65536, backlog = 4096 };

/* Bytes read but not yet written back, per connection (by fd). */
struct pending {
  char* data;
  size_t size;
};
static struct pending pending[max_files];
static int epoll_fd;

static void watch(int fd, unsigned events, int op) {
  struct epoll_event e = {.events = events, .data.fd = fd};
  epoll_ctl(epoll_fd, op, fd, &e);
}

static void drop(int fd) {
  free(pending[fd].data);
  pending[fd] = (struct pending){0};
  close(fd);
}

/* Writes what is pending; 0 when all went, 1 when the socket is full. */
static int flush(int fd) {
  struct pending* p = &pending[fd];
  while (p->size) {
    ssize_t n = write(fd, p->data, p->size);
    if (n < 0) return errno == EAGAIN ? 1 : -1;
    memmove(p->data, p->data + n, p->size - (size_t)n);
    p->size -= (size_t)n;
  }
  return 0;
}

static void serve(int fd, char* buffer) {
  if (flush(fd) != 0) return;
  for (;;) {
    ssize_t n = read(fd, buffer, buffer_size);
    if (n == 0) {
      shutdown(fd, SHUT_WR);
      drop(fd);
      return;
    }
    if (n < 0) {
      if (errno != EAGAIN) drop(fd);
      return;
    }
    ssize_t w = write(fd, buffer, (size_t)n);
    if (w < 0) w = errno == EAGAIN ? 0 : -1;
    if (w < 0) {
      drop(fd);
      return;
    }
    if (w < n) { /* the peer reads slowly: keep the rest, wait for room */
      struct pending* p = &pending[fd];
      p->data = realloc(p->data, p->size + (size_t)(n - w));
      memcpy(p->data + p->size, buffer + w, (size_t)(n - w));
      p->size += (size_t)(n - w);
      watch(fd, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
      return;
    }
  }
}

int main(int argc, char** argv) {
  int port = argc > 1 ? atoi(argv[1]) : 7;
  /* A client that exits with replies unread resets its connections; a write
   * to one must fail with EPIPE, not end the server with SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
  struct rlimit files = {max_files, max_files};
  setrlimit(RLIMIT_NOFILE, &files);
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (bind(listener, (struct sockaddr*)&a, sizeof a) < 0 || listen(listener, backlog) < 0) {
    perror("tcp_echo_server");
    return 1;
  }
  epoll_fd = epoll_create1(0);
  watch(listener, EPOLLIN, EPOLL_CTL_ADD);
  printf("tcp_echo_server: listening on port %d\n", port);
  fflush(stdout);
  static char buffer[buffer_size];
  struct epoll_event events[max_events];
  for (;;) {
    int n = epoll_wait(epoll_fd, events, max_events, -1);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd != listener) {
        serve(fd, buffer);
        if (pending[fd].size == 0 && (events[i].events & EPOLLOUT))
          watch(fd, EPOLLIN, EPOLL_CTL_MOD);
        continue;
      }
      int c;
      while ((c = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
        if (c >= max_files) {
          close(c);
          continue;
        }
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        watch(c, EPOLLIN, EPOLL_CTL_ADD);
      }
    }
  }
}
