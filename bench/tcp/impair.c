/* A network impairment relay, for machines whose kernel has no tc netem
 * (this project's: docs/net/tcp.md). It joins two links and passes
 * Ethernet frames between them, dropping, delaying, reordering and
 * duplicating IPv4 frames as asked (ARP passes untouched):
 *
 *   Keel (TAP fd) ── netdev A ── [impair: AF_PACKET on A | TAP fd of B] ── netdev B (Linux TCP)
 *
 *   impair A B [--loss P] [--delay MS] [--reorder P] [--duplicate P] [--seed N]
 *
 * A is a netdev another process (Keel, QEMU) holds the TAP of; impair reads
 * and writes it through a packet socket. B is a TAP device impair attaches
 * to (created if missing); its netdev carries the Linux side's address.
 * P are fractions (0.01 = 1%). --reorder P: that share of frames leaves
 * without the delay, overtaking the rest (netem's "reorder"), so it needs
 * --delay. Runs until killed; prints its counts on SIGTERM.
 *
 * A frame from A may carry a partial checksum (QEMU's TAP takes checksum
 * offload): the kernel says so (TP_STATUS_CSUMNOTREADY) and impair
 * completes it, as the device would have, before B's kernel sees it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { max_frame = 65536 + 64, queue_capacity = 1 << 16 };

struct frame {
  uint64_t due_ns;
  uint64_t order; /* ties keep arrival order: only --reorder reorders */
  uint32_t len;
  uint8_t* data;
};

/* A min-heap of frames by due time: one per direction. */
struct queue {
  struct frame items[queue_capacity];
  int size;
};

static struct queue to_a, to_b;
static double loss, reorder, duplicate;
static uint64_t delay_ns;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static volatile sig_atomic_t stop;
static unsigned long long passed, dropped, duplicated, reordered, overflowed, arrivals;

static int before(const struct frame* a, const struct frame* b) {
  return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->order < b->order);
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static double uniform(void) { /* xorshift64*, reproducible with --seed */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void push(struct queue* q, uint64_t due, const uint8_t* data, uint32_t len) {
  if (q->size == queue_capacity) {
    ++overflowed;
    return;
  }
  struct frame f = {due, arrivals++, len, malloc(len)};
  if (!f.data) {
    ++overflowed;
    return;
  }
  memcpy(f.data, data, len);
  int i = q->size++;
  while (i > 0 && before(&f, &q->items[(i - 1) / 2])) {
    q->items[i] = q->items[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  q->items[i] = f;
}

static struct frame pop(struct queue* q) {
  struct frame top = q->items[0], last = q->items[--q->size];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= q->size) break;
    if (c + 1 < q->size && before(&q->items[c + 1], &q->items[c])) ++c;
    if (!before(&q->items[c], &last)) break;
    q->items[i] = q->items[c];
    i = c;
  }
  if (q->size > 0) q->items[i] = last;
  return top;
}

/* Decides a frame's fate and queues it (twice if duplicated). */
static void impair(struct queue* q, const uint8_t* data, uint32_t len, uint64_t now) {
  int ip = len >= 14 && data[12] == 0x08 && data[13] == 0x00;
  if (!ip) {
    push(q, now, data, len);
    return;
  }
  if (loss > 0 && uniform() < loss) {
    ++dropped;
    return;
  }
  uint64_t due = now + delay_ns;
  if (reorder > 0 && uniform() < reorder) {
    due = now;
    ++reordered;
  }
  push(q, due, data, len);
  ++passed;
  if (duplicate > 0 && uniform() < duplicate) {
    push(q, due, data, len);
    ++duplicated;
  }
}

static int open_tap(const char* name) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
  if (fd < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static int open_packet(const char* name) {
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
  if (fd < 0) return -1;
  int one = 1;
#ifdef PACKET_IGNORE_OUTGOING
  setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
#endif
  setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof one);
  int big = 8 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  (void)one;
  struct sockaddr_ll addr;
  memset(&addr, 0, sizeof addr);
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ALL);
  addr.sll_ifindex = (int)if_nametoindex(name);
  if (addr.sll_ifindex == 0 || bind(fd, (struct sockaddr*)&addr, sizeof addr) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Writes the frames that are due; returns ms until the next one (-1: none). */
static int drain(struct queue* q, int fd, uint64_t now) {
  while (q->size > 0 && q->items[0].due_ns <= now) {
    struct frame f = pop(q);
    if (write(fd, f.data, f.len) < 0 && errno != EAGAIN && errno != ENOBUFS) perror("write");
    free(f.data);
  }
  if (q->size == 0) return -1;
  uint64_t wait = q->items[0].due_ns - now;
  return (int)(wait / 1000000) + 1;
}

/* Completes the TCP or UDP checksum of an IPv4 frame whose field holds
 * only the pseudo-header sum (CHECKSUM_PARTIAL). */
static void complete_checksum(uint8_t* f, uint32_t len) {
  if (len < 34 || f[12] != 0x08 || f[13] != 0x00) return;
  uint32_t ihl = (uint32_t)(f[14] & 0x0f) * 4, start = 14 + ihl;
  uint32_t field = f[23] == 6 ? 16 : f[23] == 17 ? 6 : 0;
  uint32_t total = (uint32_t)f[16] << 8 | f[17];
  if (!field || start + field + 2 > len || 14 + total > len || 14 + total < start) return;
  uint32_t sum = 0;
  for (uint32_t i = start; i + 1 < 14 + total; i += 2) sum += (uint32_t)f[i] << 8 | f[i + 1];
  if ((14 + total - start) & 1) sum += (uint32_t)f[14 + total - 1] << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  uint16_t c = (uint16_t)~sum;
  if (f[23] == 17 && c == 0) c = 0xffff;
  f[start + field] = (uint8_t)(c >> 8);
  f[start + field + 1] = (uint8_t)c;
}

static void on_signal(int s) {
  (void)s;
  stop = 1;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: %s A B [--loss P] [--delay MS] [--reorder P] [--duplicate P] [--seed N]\n",
            argv[0]);
    return 2;
  }
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--loss"))
      loss = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--delay"))
      delay_ns = (uint64_t)(atof(argv[i + 1]) * 1e6);
    else if (!strcmp(argv[i], "--reorder"))
      reorder = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--duplicate"))
      duplicate = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed"))
      rng_state = strtoull(argv[i + 1], 0, 10) | 1;
    else {
      fprintf(stderr, "impair: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  int a = open_packet(argv[1]), b = open_tap(argv[2]);
  if (a < 0 || b < 0) {
    perror("impair: open");
    return 1;
  }
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  printf("impair: %s <-> %s loss %.3f delay %.1f ms reorder %.3f duplicate %.3f\n", argv[1],
         argv[2], loss, delay_ns / 1e6, reorder, duplicate);
  fflush(stdout);
  static uint8_t buffer[max_frame];
  while (!stop) {
    uint64_t now = now_ns();
    int wait_a = drain(&to_a, a, now), wait_b = drain(&to_b, b, now);
    int timeout = wait_a < 0 ? wait_b : (wait_b < 0 ? wait_a : (wait_a < wait_b ? wait_a : wait_b));
    struct pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    if (poll(fds, 2, timeout < 0 ? 200 : timeout) < 0 && errno != EINTR) break;
    now = now_ns();
    for (int burst = 0; burst < 64 && (fds[0].revents & POLLIN); ++burst) {
      struct sockaddr_ll from;
      union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
      } control;
      struct iovec iov = {buffer, sizeof buffer};
      struct msghdr msg = {&from, sizeof from, &iov, 1, &control, sizeof control, 0};
      ssize_t n = recvmsg(a, &msg, 0);
      if (n <= 0) break;
      if (from.sll_pkttype == PACKET_OUTGOING) continue; /* our own writes */
      for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA) continue;
        struct tpacket_auxdata aux;
        memcpy(&aux, CMSG_DATA(c), sizeof aux);
        if (aux.tp_status & TP_STATUS_CSUMNOTREADY) complete_checksum(buffer, (uint32_t)n);
      }
      impair(&to_b, buffer, (uint32_t)n, now);
    }
    for (int burst = 0; burst < 64 && (fds[1].revents & POLLIN); ++burst) {
      ssize_t n = read(b, buffer, sizeof buffer);
      if (n <= 0) break;
      impair(&to_a, buffer, (uint32_t)n, now);
    }
  }
  printf("impair: passed %llu dropped %llu duplicated %llu reordered %llu overflowed %llu\n",
         passed, dropped, duplicated, reordered, overflowed);
  return 0;
}
