/* UDP echo load: keeps WINDOW datagrams of SIZE bytes in flight to ADDR:7
 * for SECONDS and prints the echoes received per second (and losses).
 * usage: udp_load ADDR SIZE SECONDS WINDOW */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: udp_load ADDR SIZE SECONDS WINDOW\n");
    return 2;
  }
  int size = atoi(argv[2]), window = atoi(argv[4]);
  double seconds = atof(argv[3]);
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(7)};
  inet_pton(AF_INET, argv[1], &a.sin_addr);
  if (connect(s, (struct sockaddr*)&a, sizeof a) < 0) {
    perror("connect");
    return 1;
  }
  int rcvbuf = 1 << 22;
  setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  struct timeval tv = {0, 100000}; /* a lost window is refilled after 100 ms */
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char* buf = calloc(1, 65536);
  long sent = 0, received = 0, timeouts = 0;
  double start = now(), end = start + seconds;
  for (int i = 0; i < window; ++i, ++sent) send(s, buf, (size_t)size, 0);
  while (now() < end) {
    ssize_t n = recv(s, buf, 65536, 0);
    if (n < 0) {
      ++timeouts;
      for (int i = 0; i < window; ++i, ++sent) send(s, buf, (size_t)size, 0);
      continue;
    }
    ++received;
    send(s, buf, (size_t)size, 0);
    ++sent;
  }
  double elapsed = now() - start;
  printf("pps %.0f received %ld sent %ld timeouts %ld seconds %.2f\n", received / elapsed, received,
         sent, timeouts, elapsed);
  return 0;
}
