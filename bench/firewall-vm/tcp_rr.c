/* TCP request/response load through a router, as netperf's TCP_RR and TCP_CRR measure it.
 *   tcp_rr serve PORT              echoes every connection's bytes back until its peer closes
 *   tcp_rr rr ADDR PORT SECONDS    one connection: a 64-byte request, its 64-byte answer, again;
 *                                  prints "tps N" (transactions per second)
 *   tcp_rr crr ADDR PORT SECONDS   a new connection for every request (connect, request, answer,
 *                                  close); prints "cps N" (connections per second) */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MESSAGE = 64, MAX_EVENTS = 64, BACKLOG = 1024, TIMEOUT_SECONDS = 2 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int serve(int port) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (bind(listener, (struct sockaddr*)&a, sizeof a) < 0 || listen(listener, BACKLOG) < 0) {
    perror("listen");
    return 1;
  }
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener}, events[MAX_EVENTS];
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  char buf[65536];
  for (;;) {
    int n = epoll_wait(ep, events, MAX_EVENTS, -1);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int c;
        while ((c = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct epoll_event cev = {.events = EPOLLIN, .data.fd = c};
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
        }
        continue;
      }
      ssize_t got = read(fd, buf, sizeof buf);
      if (got > 0) {
        if (write(fd, buf, (size_t)got) != got) close(fd); /* a 64-byte answer always fits */
      } else if (got == 0 || errno != EAGAIN) {
        close(fd);
      }
    }
  }
}

static int connect_to(const struct sockaddr_in* a) {
  int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct timeval tv = {TIMEOUT_SECONDS, 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(s, (const struct sockaddr*)a, sizeof *a) < 0) {
    close(s);
    return -1;
  }
  return s;
}

/* One request and its whole answer; 0 when it went through. */
static int transact(int s) {
  char buf[MESSAGE] = {0};
  if (send(s, buf, MESSAGE, 0) != MESSAGE) return -1;
  for (int got = 0; got < MESSAGE;) {
    ssize_t n = recv(s, buf + got, (size_t)(MESSAGE - got), 0);
    if (n <= 0) return -1;
    got += (int)n;
  }
  return 0;
}

static int load(const char* mode, const char* addr, int port, double seconds) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, addr, &a.sin_addr);
  int per_connection = strcmp(mode, "crr") == 0;
  long done = 0, failed = 0;
  int s = per_connection ? -1 : connect_to(&a);
  if (!per_connection && s < 0) {
    perror("connect");
    return 1;
  }
  double start = now(), end = start + seconds;
  while (now() < end) {
    if (per_connection) s = connect_to(&a);
    if (s >= 0 && transact(s) == 0) {
      ++done;
    } else {
      ++failed;
      if (!per_connection) break;
    }
    if (per_connection && s >= 0) close(s);
  }
  double elapsed = now() - start;
  printf("%s %.0f done %ld failed %ld seconds %.2f\n", per_connection ? "cps" : "tps",
         done / elapsed, done, failed, elapsed);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "serve") == 0) return serve(atoi(argv[2]));
  if (argc == 5 && (strcmp(argv[1], "rr") == 0 || strcmp(argv[1], "crr") == 0))
    return load(argv[1], argv[2], atoi(argv[3]), atof(argv[4]));
  fprintf(stderr, "usage: tcp_rr serve PORT | tcp_rr rr|crr ADDR PORT SECONDS\n");
  return 2;
}
