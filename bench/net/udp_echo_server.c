/* The Linux side of the comparison: the same UDP echo as examples/udp_echo,
 * written with plain Linux sockets (one recvfrom, one sendto per datagram). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

int main(int argc, char** argv) {
  int port = argc > 1 ? atoi(argv[1]) : 7;
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (bind(s, (struct sockaddr*)&a, sizeof a) < 0) {
    perror("bind");
    return 1;
  }
  char buf[65536];
  for (;;) {
    struct sockaddr_in from;
    socklen_t len = sizeof from;
    ssize_t n = recvfrom(s, buf, sizeof buf, 0, (struct sockaddr*)&from, &len);
    if (n >= 0) sendto(s, buf, (size_t)n, 0, (struct sockaddr*)&from, len);
  }
}
