/* Request/response load for `keel bench tcp` (bench/tcp/bench_tcp.py):
 *
 *   tcp_load rr  ADDR PORT SECONDS CONNECTIONS SIZE
 *       opens CONNECTIONS connections, then each sends SIZE bytes and waits
 *       for SIZE bytes back, again and again, for SECONDS
 *   tcp_load crr ADDR PORT SECONDS PARALLEL SIZE
 *       PARALLEL at a time: connect, send SIZE bytes, read SIZE back, close
 *
 * Prints "requests N rate R failed F connections C": R requests per second
 * over the measured window (after every rr connection is open). One thread,
 * epoll, non-blocking sockets. An echo server on PORT answers. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { max_events = 256, max_size = 65536, open_timeout_s = 60 };

struct conn {
  int fd;
  size_t got; /* bytes of the current answer */
  int connected;
};

static struct sockaddr_in target;
static int epoll_fd, request_size, closing_each;
static char request[max_size], answer[max_size];
static unsigned long long requests, failures;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int open_one(struct conn* c) {
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  c->got = 0;
  c->connected = 0;
  if (c->fd < 0) return -1;
  int on = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (connect(c->fd, (struct sockaddr*)&target, sizeof target) < 0 && errno != EINPROGRESS) {
    close(c->fd);
    return -1;
  }
  struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &e);
  return 0;
}

static void send_request(struct conn* c) {
  c->got = 0;
  if (write(c->fd, request, (size_t)request_size) != request_size) ++failures;
}

/* One event on `c`; 1 when a request completed. */
static int handle(struct conn* c, unsigned events) {
  if (!c->connected) {
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error || (events & (EPOLLERR | EPOLLHUP))) {
      ++failures;
      close(c->fd);
      if (closing_each)
        open_one(c);
      else
        c->fd = -1;
      return 0;
    }
    c->connected = 1;
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &e);
    send_request(c);
    return 0;
  }
  ssize_t n = read(c->fd, answer, sizeof answer);
  if (n <= 0) {
    if (n < 0 && errno == EAGAIN) return 0;
    ++failures;
    close(c->fd);
    c->fd = -1;
    if (closing_each) open_one(c);
    return 0;
  }
  c->got += (size_t)n;
  if (c->got < (size_t)request_size) return 0;
  if (closing_each) {
    close(c->fd);
    open_one(c);
  } else {
    send_request(c);
  }
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s rr|crr ADDR PORT SECONDS CONNECTIONS SIZE\n", argv[0]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN); /* a reset connection is a failed request, not our end */
  closing_each = strcmp(argv[1], "crr") == 0;
  target.sin_family = AF_INET;
  target.sin_port = htons((uint16_t)atoi(argv[3]));
  inet_pton(AF_INET, argv[2], &target.sin_addr);
  double seconds = atof(argv[4]);
  int count = atoi(argv[5]);
  request_size = atoi(argv[6]);
  if (request_size < 1 || request_size > max_size || count < 1) return 2;
  memset(request, 'k', (size_t)request_size);
  struct rlimit files = {(rlim_t)count + 1024, (rlim_t)count + 1024};
  setrlimit(RLIMIT_NOFILE, &files);
  epoll_fd = epoll_create1(0);
  struct conn* conns = calloc((size_t)count, sizeof *conns);
  struct epoll_event events[max_events];
  int opened = 0;
  for (int i = 0; i < count; ++i) opened += open_one(&conns[i]) == 0;
  /* rr: the window starts once every connection answered its first request. */
  double start = now(), end = start + seconds;
  if (!closing_each) {
    unsigned long long first = 0;
    double give_up = start + open_timeout_s;
    while (first < (unsigned long long)opened && now() < give_up) {
      int n = epoll_wait(epoll_fd, events, max_events, 100);
      for (int i = 0; i < n; ++i) first += handle(events[i].data.ptr, events[i].events);
    }
    start = now();
    end = start + seconds;
  }
  while (now() < end) {
    int n = epoll_wait(epoll_fd, events, max_events, 10);
    for (int i = 0; i < n; ++i) requests += handle(events[i].data.ptr, events[i].events);
  }
  int open_at_end = 0;
  for (int i = 0; i < count; ++i) open_at_end += conns[i].fd >= 0 && conns[i].connected;
  printf("requests %llu rate %.0f failed %llu connections %d\n", requests,
         (double)requests / (now() - start), failures, open_at_end);
  return 0;
}
