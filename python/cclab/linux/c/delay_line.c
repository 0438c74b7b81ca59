/* delay_line: a user-space propagation delay for the Linux testbed (docs/linux.md).
 *
 * This kernel has no netem, so the middle namespace runs this relay: it reads every frame
 * that arrives on one veth end with an AF_PACKET socket and writes it out of the other end
 * DELAY microseconds later, in both directions, each with its own FIFO. A fixed delay per
 * direction keeps the FIFO in time order, so one timer (the head of each FIFO) suffices.
 * Frames written here go through the outgoing device's qdisc (no PACKET_QDISC_BYPASS), so
 * the bottleneck queue on that device sees them as a router's output queue would.
 *
 * usage: delay_line IF_A IF_B DELAY_A_TO_B_US DELAY_B_TO_A_US
 * Exits 0 on SIGTERM/SIGINT; 1 on a setup error (one line on stderr).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 16384 /* frames per direction: 200 Mbit/s x 500 ms of 1514-byte frames is 8257 */
#define FRAME 1600  /* largest frame accepted: the testbed's MTU is at most 1500 */

struct fifo {
    unsigned char (*buf)[FRAME];
    uint32_t *len;
    uint64_t *due;
    uint32_t head, count;
    uint64_t delay_ns;
    uint64_t dropped; /* frames lost because the FIFO was full */
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int open_if(const char *name, int *ifindex) {
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
    if (fd < 0) { perror("socket(AF_PACKET)"); return -1; }
    *ifindex = (int)if_nametoindex(name);
    if (*ifindex == 0) { fprintf(stderr, "delay_line: no interface %s\n", name); return -1; }
    struct sockaddr_ll sll = {0};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = *ifindex;
    if (bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) { perror("bind"); return -1; }
    int big = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
    /* Frames written wait in the bottleneck qdisc charged to this socket: its send buffer must
     * hold the largest queue (a full default one, 208 KiB, made sendto fail with EAGAIN and
     * the relay lose frames the bottleneck never saw). */
    int huge = 256 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &huge, sizeof huge);
    return fd;
}

static int fifo_init(struct fifo *f, uint64_t delay_us) {
    f->buf = malloc((size_t)SLOTS * FRAME);
    f->len = calloc(SLOTS, sizeof *f->len);
    f->due = calloc(SLOTS, sizeof *f->due);
    f->head = f->count = 0;
    f->delay_ns = delay_us * 1000ull;
    f->dropped = 0;
    return f->buf && f->len && f->due ? 0 : -1;
}

/* Reads every frame waiting on `in` into `f`, stamped with its due time. */
static void drain(int in, struct fifo *f) {
    for (;;) {
        struct sockaddr_ll from;
        socklen_t fl = sizeof from;
        uint32_t slot = (f->head + f->count) % SLOTS;
        ssize_t n = recvfrom(in, f->buf[slot], FRAME, 0, (struct sockaddr *)&from, &fl);
        if (n < 0) return; /* EAGAIN: nothing more */
        if (from.sll_pkttype == PACKET_OUTGOING) continue; /* our own writes, seen again */
        if (f->count == SLOTS) { f->dropped++; continue; }
        f->len[slot] = (uint32_t)n;
        f->due[slot] = now_ns() + f->delay_ns;
        f->count++;
    }
}

/* Writes out every frame of `f` that is due; returns ns until the next one (or -1: none). */
static int64_t release(int out, int ifindex, struct fifo *f) {
    struct sockaddr_ll to = {0};
    to.sll_family = AF_PACKET;
    to.sll_ifindex = ifindex;
    to.sll_halen = ETH_ALEN;
    while (f->count) {
        uint64_t t = now_ns();
        if (f->due[f->head] > t) return (int64_t)(f->due[f->head] - t);
        memcpy(to.sll_addr, f->buf[f->head], ETH_ALEN);
        /* A full qdisc drops the frame and counts it (sendto then says ENOBUFS or nothing):
         * that is the bottleneck's drop. Any other failure loses the frame here: counted. */
        if (sendto(out, f->buf[f->head], f->len[f->head], 0, (struct sockaddr *)&to, sizeof to) < 0 &&
            errno != ENOBUFS)
            f->dropped++;
        f->head = (f->head + 1) % SLOTS;
        f->count--;
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: delay_line IF_A IF_B DELAY_A_TO_B_US DELAY_B_TO_A_US\n");
        return 1;
    }
    int ia, ib;
    int a = open_if(argv[1], &ia), b = open_if(argv[2], &ib);
    if (a < 0 || b < 0) return 1;
    struct fifo ab, ba;
    if (fifo_init(&ab, strtoull(argv[3], NULL, 10)) || fifo_init(&ba, strtoull(argv[4], NULL, 10))) {
        fprintf(stderr, "delay_line: out of memory\n");
        return 1;
    }
    prctl(PR_SET_TIMERSLACK, 1UL); /* 1 ns instead of the default 50 us of sleep slack */
    /* Real-time priority: on a machine whose cores are busy with other work, a normal process
     * wakes milliseconds late and every frame with it (docs/linux.md measures both). The relay
     * sleeps between frames, and the kernel's RT throttling bounds it anyway. Without the
     * privilege it runs as a normal process. */
    struct sched_param sp = {.sched_priority = 50};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
        fprintf(stderr, "delay_line: no real-time priority (%s); delays will follow the load\n", strerror(errno));
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("ready\n");
    fflush(stdout);
    struct pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    while (!stop) {
        drain(a, &ab);
        drain(b, &ba);
        int64_t w1 = release(b, ib, &ab), w2 = release(a, ia, &ba);
        int64_t w = w1 < 0 ? w2 : (w2 < 0 ? w1 : (w1 < w2 ? w1 : w2));
        /* ppoll sleeps to the next due frame with ns resolution (the kernel's hrtimer slack
         * decides the real accuracy, measured in docs/linux.md). */
        struct timespec ts = {w < 0 ? 1 : w / 1000000000, w < 0 ? 0 : w % 1000000000};
        if (ppoll(p, 2, &ts, NULL) < 0 && errno != EINTR) break;
    }
    /* Frames lost here, not at the bottleneck: the socket's receive-buffer drops
     * (PACKET_STATISTICS, counted since the last read) and FIFO overflows. The engine reads
     * this line: a nonzero count means the run exceeded what the testbed carries honestly. */
    struct tpacket_stats sa = {0}, sb = {0};
    socklen_t sl = sizeof sa;
    getsockopt(a, SOL_PACKET, PACKET_STATISTICS, &sa, &sl);
    sl = sizeof sb;
    getsockopt(b, SOL_PACKET, PACKET_STATISTICS, &sb, &sl);
    fprintf(stderr, "delay_line: lost a->b %llu b->a %llu\n",
            (unsigned long long)ab.dropped + sa.tp_drops, (unsigned long long)ba.dropped + sb.tp_drops);
    return 0;
}
