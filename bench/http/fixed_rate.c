/* HTTP load at a fixed request rate for `keel bench http` (bench/http/bench_http.py), the
 * method of wrk2 (not in Debian) and of the CETIC study:
 *
 *   fixed_rate ADDR PORT PATH RATE SECONDS CONNECTIONS
 *
 * CONNECTIONS keep-alive connections share the schedule: request i is due at i/RATE s and goes
 * on connection i % CONNECTIONS, as soon as that connection's previous answer is in. Latency is
 * counted from the time the request was due, not from when it could be sent, so a server that
 * falls behind is charged for the queue it makes (no coordinated omission). A request still
 * unanswered (or never sent) 5 s after the schedule ends counts as lost, as do the requests of a
 * connection that failed; lost requests rank above every latency in the percentiles.
 *
 * Prints one line: "scheduled N answered A lost L errors E p50 X p90 X p99 X max X" (ms;
 * "inf" when that percentile falls among the lost). One thread, epoll, non-blocking sockets. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { max_connections = 4096, buffer_size = 65536, drain_s = 5 };

struct conn {
  int fd;
  long next;        /* index of the next request due on this connection */
  int busy;         /* a request is out */
  double due;       /* when the request out was due */
  size_t got;       /* bytes of its answer so far */
  long body_needed; /* -1 until the header is complete */
  char buffer[buffer_size];
};

static struct sockaddr_in target;
static char request[1024];
static size_t request_length;
static int connections, epoll_fd;
static double rate, start;
static long scheduled, answered, errors;
static double* latencies;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static double due_time(long index) { return start + index / rate; }

static void open_connection(struct conn* c) {
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (c->fd < 0 || connect(c->fd, (struct sockaddr*)&target, sizeof target) != 0) {
    perror("connect");
    exit(2);
  }
  struct epoll_event event = {.events = EPOLLIN, .data.ptr = c};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &event);
  c->busy = 0;
}

/* The connection failed: its request out is lost, and it starts over on a new socket. */
static void fail(struct conn* c) {
  errors++;
  close(c->fd);
  if (c->busy) c->next += connections;
  open_connection(c);
}

static void send_due(struct conn* c, double t) {
  if (c->busy || c->next >= scheduled || due_time(c->next) > t) return;
  if (send(c->fd, request, request_length, MSG_NOSIGNAL) != (ssize_t)request_length) {
    fail(c);
    return;
  }
  c->busy = 1, c->due = due_time(c->next), c->got = 0, c->body_needed = -1;
}

/* The header's end and Content-Length (the servers measured answer with one). */
static long body_length(struct conn* c) {
  char* end = memmem(c->buffer, c->got, "\r\n\r\n", 4);
  if (!end) return -1;
  for (char* line = c->buffer; line < end; line = strstr(line, "\r\n") + 2)
    if (strncasecmp(line, "Content-Length:", 15) == 0)
      return (end + 4 - c->buffer) + atol(line + 15);
  return end + 4 - c->buffer;
}

static void receive(struct conn* c) {
  ssize_t n = recv(c->fd, c->buffer + c->got, buffer_size - c->got, 0);
  if (n <= 0 || !c->busy) {
    if (n < 0 && errno == EAGAIN) return;
    fail(c);
    return;
  }
  c->got += n;
  if (c->body_needed < 0) c->body_needed = body_length(c);
  if (c->body_needed < 0 || c->got < (size_t)c->body_needed) {
    if (c->got == buffer_size) fail(c);
    return;
  }
  latencies[answered++] = now() - c->due;
  c->busy = 0;
  c->next += connections;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void print_percentile(const char* name, double fraction) {
  long rank = (long)ceil(fraction * scheduled) - 1;
  if (rank >= answered)
    printf(" %s inf", name);
  else
    printf(" %s %.3f", name, latencies[rank < 0 ? 0 : rank] * 1e3);
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: fixed_rate ADDR PORT PATH RATE SECONDS CONNECTIONS\n");
    return 2;
  }
  target.sin_family = AF_INET;
  target.sin_port = htons(atoi(argv[2]));
  inet_pton(AF_INET, argv[1], &target.sin_addr);
  request_length =
      snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", argv[3], argv[1]);
  rate = atof(argv[4]);
  double seconds = atof(argv[5]);
  connections = atoi(argv[6]);
  if (rate <= 0 || seconds <= 0 || connections < 1 || connections > max_connections)
    return fprintf(stderr, "fixed_rate: bad RATE, SECONDS or CONNECTIONS\n"), 2;
  scheduled = (long)(rate * seconds);
  latencies = calloc(scheduled + 1, sizeof *latencies);
  struct conn* conns = calloc(connections, sizeof *conns);
  epoll_fd = epoll_create1(0);
  for (int i = 0; i < connections; i++) {
    conns[i].next = i;
    open_connection(&conns[i]);
  }
  start = now();
  double end = due_time(scheduled) + drain_s;
  struct epoll_event events[256];
  for (double t = now(); t < end; t = now()) {
    double wake = end;
    for (int i = 0; i < connections; i++) {
      send_due(&conns[i], t);
      if (!conns[i].busy && conns[i].next < scheduled && due_time(conns[i].next) < wake)
        wake = due_time(conns[i].next);
    }
    double wait =
        wake > t ? wake - t : 0; /* to the microsecond: a late send is charged as latency */
    struct timespec timeout = {(time_t)wait, (long)((wait - (time_t)wait) * 1e9)};
    int n = epoll_pwait2(epoll_fd, events, 256, &timeout, NULL);
    for (int i = 0; i < n; i++) receive(events[i].data.ptr);
    int pending = 0;
    for (int i = 0; i < connections; i++) pending += conns[i].next < scheduled;
    if (!pending) break; /* every request answered or lost */
  }
  qsort(latencies, answered, sizeof *latencies, by_value);
  printf("scheduled %ld answered %ld lost %ld errors %ld", scheduled, answered,
         scheduled - answered, errors);
  print_percentile("p50", 0.50);
  print_percentile("p90", 0.90);
  print_percentile("p99", 0.99);
  print_percentile("max", 1.0);
  printf("\n");
  return 0;
}
