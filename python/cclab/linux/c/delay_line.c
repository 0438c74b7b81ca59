/* delay_line: a user-space propagation delay for the Linux testbed (docs/linux.md).
 *
 * This kernel has no netem, so the middle namespace runs this relay: it reads every frame
 * that arrives on one veth end with an AF_PACKET socket and writes it out of the other end
 * after the one-way delay of its class and direction. Frames written here go through the
 * outgoing device's qdisc (no PACKET_QDISC_BYPASS), so the bottleneck queue on that device
 * sees them as a router's output queue would.
 *
 * Classes give flows their own round trips. A class is a TCP port of the B side (the
 * receiver's listening port, one per flow in the testbed): frames A->B whose TCP destination
 * port is PORT and frames B->A whose TCP source port is PORT take that class's delays; every
 * other frame (not IPv4/TCP, a fragment, another port) takes the default delays. The listening
 * port is what identifies a flow reliably: the sender's source port is the kernel's choice.
 * Each (class, direction) has its own FIFO; one delay per FIFO keeps it in time order, so
 * the next departure of a direction is the earliest of its FIFOs' heads (ties: the frame that
 * arrived first). The frames of one direction share one pool of SLOTS, so with no class (or
 * all delays equal, which the engine passes as no class) the relay is the one FIFO per
 * direction it was before.
 *
 * Random loss (the scenario's bottleneck `loss`, which cclab applies to the forward direction
 * before the queue): with `loss=P`, each A->B frame that carries TCP payload is dropped on
 * arrival with probability P, from a generator seeded by `seed=N` (splitmix64), and counted.
 * Frames without payload (the handshake, pure ACKs) pass: cclab's flows have no handshake and
 * its forward link carries data only. With `gemodel=P:R:LOSS_GOOD:LOSS_BAD` instead, the loss is
 * the simulator's Gilbert-Elliott channel (crates/cclab-sim/src/net/link/vary.rs, as netem's
 * `loss gemodel`): at each such frame a first draw moves the state (good to bad with
 * probability P, bad to good with R), a second drops the frame with the loss probability of
 * the state it was in before the move. Runs of consecutive dropped frames are counted too
 * (bursts).
 *
 * Jitter (the bottleneck's `jitter`): with `jitter=J_US`, each frame's delay is its class's plus
 * a uniform draw in [-J, +J] microseconds (each direction its own generator, from `seed`), and
 * no earlier than the frame before it in its FIFO, so that a FIFO stays in order, as the
 * simulator keeps a link's packets in order (net/link/vary.rs). The simulator's parser keeps J
 * within the bottleneck's delay, which every class's delay includes, so no delay is negative.
 *
 * Schedules (the bottleneck's `loss_schedule` and `delay_schedule`): the engine writes one
 * command per line on stdin at each step's time: `loss P` sets the forward random loss, `delay
 * D_US` adds D (signed) to every delay of both directions (the bottleneck's delay changed by D).
 * A frame takes the delay in force when it arrives; the FIFO order is kept as above.
 *
 * usage: delay_line IF_A IF_B DELAY_A_TO_B_US DELAY_B_TO_A_US [loss=P | gemodel=P:R:LOSS_GOOD:LOSS_BAD]
 *                   [seed=N] [jitter=J_US] [PORT:A_TO_B_US:B_TO_A_US ...]
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
#define MAX_CLASSES 64           /* the engine asks for one per flow, at most 16 */
#define MAX_DELAY_US 1000000ull  /* 1 s one way; the engine's own bound is lower (docs/linux.md) */
#define NIL UINT32_MAX
#define SPELL_NS 2000000ull  /* lateness worth a record: 2 ms */
#define SPELLS 256           /* records kept per direction */

/* A spell of lateness: frames found due more than SPELL_NS late, less than 100 ms apart. */
struct spell {
    uint64_t start_ns, max_ns;
};

struct fifo {
    uint32_t head, tail, count;
    uint64_t delay_ns;
    uint64_t last_due; /* the latest frame's due time: none may leave before it (order kept) */
};

/* One direction: the frame pool, its free list, and one FIFO per class (0: the default). */
struct dir {
    unsigned char (*buf)[FRAME];
    uint32_t *len, *next;
    uint64_t *due, *seq;
    uint32_t free_head;
    uint64_t arrivals;     /* sequence numbers: the tie-break between FIFOs */
    int by_dst;            /* classify by TCP destination port (A->B) or source port (B->A) */
    int nfifo;
    struct fifo q[MAX_CLASSES + 1];
    uint64_t dropped;      /* frames lost because the pool was full */
    uint64_t defaulted;    /* frames that took the default delay */
    /* Lateness: how long after its due time the relay found each frame due (its wake-up
     * error; the write through the qdisc and the veth comes on top). */
    uint64_t sent, late_sum_ns, late_max_ns, late_over_1ms;
    struct spell spell[SPELLS];
    uint32_t nspell;
    uint64_t last_late_ns; /* when the latest frame over SPELL_NS was due */
    double loss;           /* probability of dropping a frame with TCP payload on arrival */
    int ge, ge_bad;        /* Gilbert-Elliott loss instead, and its state */
    double ge_p, ge_r, ge_loss_good, ge_loss_bad;
    uint64_t rng;          /* splitmix64 state */
    uint64_t random_lost;  /* frames dropped so */
    uint64_t loss_bursts;  /* runs of consecutive dropped payload frames */
    int last_lost;         /* whether the previous payload frame was dropped */
    int64_t extra_ns;      /* added to every delay (`delay` commands: the bottleneck's change) */
    uint64_t jitter_ns;    /* each delay uniform in [-jitter, +jitter] around its own */
    uint64_t jrng;         /* the jitter's splitmix64 state */
};

/* Class of each B-side port, 0 for none: shared by both directions. */
static uint8_t class_of[65536];

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

static int dir_init(struct dir *d, int by_dst) {
    memset(d, 0, sizeof *d);
    d->buf = malloc((size_t)SLOTS * FRAME);
    d->len = calloc(SLOTS, sizeof *d->len);
    d->next = calloc(SLOTS, sizeof *d->next);
    d->due = calloc(SLOTS, sizeof *d->due);
    d->seq = calloc(SLOTS, sizeof *d->seq);
    if (!d->buf || !d->len || !d->next || !d->due || !d->seq) return -1;
    for (uint32_t i = 0; i < SLOTS; i++) d->next[i] = i + 1 < SLOTS ? i + 1 : NIL;
    d->free_head = 0;
    d->by_dst = by_dst;
    d->nfifo = 1;
    for (int c = 0; c <= MAX_CLASSES; c++) d->q[c].head = d->q[c].tail = NIL;
    return 0;
}

/* The class of a frame: its B-side TCP port's, 0 (default) for anything else. */
static int classify(const unsigned char *f, ssize_t n, int by_dst) {
    if (n < 14 + 20 || f[12] != 0x08 || f[13] != 0x00) return 0; /* not IPv4 */
    const unsigned char *ip = f + 14;
    int ihl = (ip[0] & 15) * 4;
    if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != 6) return 0; /* not TCP */
    if (((ip[6] & 0x1f) << 8 | ip[7]) != 0 || n < 14 + ihl + 4) return 0; /* a later fragment */
    const unsigned char *tcp = ip + ihl;
    return class_of[by_dst ? (tcp[2] << 8 | tcp[3]) : (tcp[0] << 8 | tcp[1])];
}

/* Whether a frame is IPv4/TCP with payload (a data segment). */
static int has_payload(const unsigned char *f, ssize_t n) {
    if (n < 14 + 20 || f[12] != 0x08 || f[13] != 0x00) return 0;
    const unsigned char *ip = f + 14;
    int ihl = (ip[0] & 15) * 4, total = ip[2] << 8 | ip[3];
    if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != 6 || n < 14 + ihl + 13) return 0;
    int doff = (ip[ihl + 12] >> 4) * 4;
    return total > ihl + doff;
}

/* A uniform draw in [0, 1) (splitmix64, its top 53 bits). */
static double uniform(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* Whether this payload frame is dropped: Gilbert-Elliott (the move, then the loss of the state
 * found) or independent loss. */
static int lose(struct dir *d) {
    if (!d->ge) return uniform(&d->rng) < d->loss;
    double flip = d->ge_bad ? d->ge_r : d->ge_p, loss = d->ge_bad ? d->ge_loss_bad : d->ge_loss_good;
    if (uniform(&d->rng) < flip) d->ge_bad = !d->ge_bad;
    return uniform(&d->rng) < loss;
}

/* Reads every frame waiting on `in` into its class's FIFO, stamped with its due time. */
static void drain(int in, struct dir *d) {
    static unsigned char scratch[FRAME];
    for (;;) {
        struct sockaddr_ll from;
        socklen_t fl = sizeof from;
        uint32_t slot = d->free_head;
        unsigned char *into = slot == NIL ? scratch : d->buf[slot];
        ssize_t n = recvfrom(in, into, FRAME, 0, (struct sockaddr *)&from, &fl);
        if (n < 0) return; /* EAGAIN: nothing more */
        if (from.sll_pkttype == PACKET_OUTGOING) continue; /* our own writes, seen again */
        if (slot == NIL) { d->dropped++; continue; }
        if ((d->loss > 0 || d->ge) && has_payload(into, n)) {
            int lost = lose(d);
            d->loss_bursts += lost && !d->last_lost;
            d->last_lost = lost;
            if (lost) { d->random_lost++; continue; }
        }
        int c = d->nfifo > 1 ? classify(into, n, d->by_dst) : 0;
        struct fifo *q = &d->q[c];
        d->free_head = d->next[slot];
        d->len[slot] = (uint32_t)n;
        uint64_t due = (uint64_t)((int64_t)(now_ns() + q->delay_ns) + d->extra_ns);
        if (d->jitter_ns) due = due - d->jitter_ns + (uint64_t)(uniform(&d->jrng) * (double)(2 * d->jitter_ns + 1));
        if (due < q->last_due) due = q->last_due;
        q->last_due = due;
        d->due[slot] = due;
        d->seq[slot] = d->arrivals++;
        d->next[slot] = NIL;
        if (q->count) d->next[q->tail] = slot; else q->head = slot;
        q->tail = slot;
        q->count++;
        d->defaulted += c == 0;
    }
}

/* Writes out every due frame of `d`, earliest first; returns ns until the next one (-1: none). */
static int64_t release(int out, int ifindex, struct dir *d) {
    struct sockaddr_ll to = {0};
    to.sll_family = AF_PACKET;
    to.sll_ifindex = ifindex;
    to.sll_halen = ETH_ALEN;
    for (;;) {
        struct fifo *q = NULL;
        for (int c = 0; c < d->nfifo; c++) {
            struct fifo *x = &d->q[c];
            if (x->count && (!q || d->due[x->head] < d->due[q->head] ||
                             (d->due[x->head] == d->due[q->head] && d->seq[x->head] < d->seq[q->head])))
                q = x;
        }
        if (!q) return -1;
        uint32_t h = q->head;
        uint64_t t = now_ns();
        if (d->due[h] > t) return (int64_t)(d->due[h] - t);
        uint64_t late = t - d->due[h];
        d->sent++;
        d->late_sum_ns += late;
        d->late_max_ns = late > d->late_max_ns ? late : d->late_max_ns;
        d->late_over_1ms += late > 1000000;
        if (late > SPELL_NS) {
            /* When the relay woke late, so that a run's loss bursts can be set beside it. */
            if (d->nspell && d->due[h] - d->last_late_ns < 100000000ull) {
                struct spell *sp = &d->spell[d->nspell - 1];
                sp->max_ns = late > sp->max_ns ? late : sp->max_ns;
            } else if (d->nspell < SPELLS) {
                d->spell[d->nspell++] = (struct spell){d->due[h], late};
            }
            d->last_late_ns = d->due[h];
        }
        memcpy(to.sll_addr, d->buf[h], ETH_ALEN);
        /* A full qdisc drops the frame and counts it (sendto then says ENOBUFS or nothing):
         * that is the bottleneck's drop. Any other failure loses the frame here: counted. */
        if (sendto(out, d->buf[h], d->len[h], 0, (struct sockaddr *)&to, sizeof to) < 0 && errno != ENOBUFS)
            d->dropped++;
        q->head = d->next[h];
        if (--q->count == 0) q->head = q->tail = NIL;
        d->next[h] = d->free_head;
        d->free_head = h;
    }
}

/* One command from the engine (see the top): `loss P` or `delay D_US`; anything else is named
 * on stderr and ignored. */
static void command(const char *line, struct dir *ab, struct dir *ba) {
    char *end;
    if (!strncmp(line, "loss ", 5)) {
        errno = 0;
        double p = strtod(line + 5, &end);
        if (!errno && end != line + 5 && !*end && p >= 0 && p <= 1 && !ab->ge) { ab->loss = p; return; }
    } else if (!strncmp(line, "delay ", 6)) {
        errno = 0;
        long long us = strtoll(line + 6, &end, 10);
        if (!errno && end != line + 6 && !*end && us >= -(long long)MAX_DELAY_US && us <= (long long)MAX_DELAY_US) {
            ab->extra_ns = ba->extra_ns = us * 1000;
            return;
        }
    }
    fprintf(stderr, "delay_line: command '%s': accepted: 'loss P' (0 to 1, without gemodel) or 'delay D_US'\n", line);
}

/* Reads what stdin has and runs each whole line; returns 0 at its end (the engine closed it). */
static int commands(int fd, struct dir *ab, struct dir *ba) {
    static char line[256];
    static size_t len;
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return n < 0 && (errno == EAGAIN || errno == EINTR);
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (len < sizeof line - 1) line[len++] = buf[i];
            continue;
        }
        line[len] = 0;
        command(line, ab, ba);
        len = 0;
    }
    return 1;
}

/* An unsigned decimal in [0, max], the whole string; -1 otherwise. */
static long long number(const char *s, unsigned long long max) {
    char *end;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    return errno || *end || v > max ? -1 : (long long)v;
}

static int bad(const char *what, const char *value, const char *accepted) {
    fprintf(stderr, "delay_line: %s '%s': %s\n", what, value, accepted);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: delay_line IF_A IF_B DELAY_A_TO_B_US DELAY_B_TO_A_US "
                        "[loss=P | gemodel=P:R:LOSS_GOOD:LOSS_BAD] [seed=N] [jitter=J_US] "
                        "[PORT:A_TO_B_US:B_TO_A_US ...]\n");
        return 1;
    }
    static struct dir ab, ba;
    if (dir_init(&ab, 1) || dir_init(&ba, 0)) {
        fprintf(stderr, "delay_line: out of memory\n");
        return 1;
    }
    long long dab = number(argv[3], MAX_DELAY_US), dba = number(argv[4], MAX_DELAY_US);
    if (dab < 0) return bad("DELAY_A_TO_B_US", argv[3], "accepted: 0 to 1000000 microseconds");
    if (dba < 0) return bad("DELAY_B_TO_A_US", argv[4], "accepted: 0 to 1000000 microseconds");
    ab.q[0].delay_ns = (uint64_t)dab * 1000ull;
    ba.q[0].delay_ns = (uint64_t)dba * 1000ull;
    int first = 5;
    for (; first < argc; first++) {
        char *end;
        if (!strncmp(argv[first], "loss=", 5)) {
            errno = 0;
            double p = strtod(argv[first] + 5, &end);
            if (errno || end == argv[first] + 5 || *end || !(p >= 0 && p <= 1))
                return bad("loss", argv[first] + 5, "accepted: a probability 0 to 1");
            ab.loss = p;
        } else if (!strncmp(argv[first], "gemodel=", 8)) {
            double v[4];
            int used = 0;
            if (sscanf(argv[first] + 8, "%lf:%lf:%lf:%lf%n", &v[0], &v[1], &v[2], &v[3], &used) != 4 ||
                argv[first][8 + used] || !(v[0] > 0 && v[0] <= 1 && v[1] > 0 && v[1] <= 1) ||
                !(v[2] >= 0 && v[2] <= 1 && v[3] >= 0 && v[3] <= 1))
                return bad("gemodel", argv[first] + 8, "accepted: P:R:LOSS_GOOD:LOSS_BAD, P and R in (0, 1], "
                                                       "the losses in [0, 1]");
            ab.ge = 1;
            ab.ge_p = v[0], ab.ge_r = v[1], ab.ge_loss_good = v[2], ab.ge_loss_bad = v[3];
        } else if (!strncmp(argv[first], "seed=", 5)) {
            long long v = number(argv[first] + 5, UINT64_MAX >> 1);
            if (v < 0) return bad("seed", argv[first] + 5, "accepted: a whole number >= 0");
            ab.rng = (uint64_t)v;
        } else if (!strncmp(argv[first], "jitter=", 7)) {
            long long v = number(argv[first] + 7, MAX_DELAY_US);
            if (v < 0) return bad("jitter", argv[first] + 7, "accepted: 0 to 1000000 microseconds");
            ab.jitter_ns = ba.jitter_ns = (uint64_t)v * 1000ull;
        } else {
            break;
        }
    }
    if (argc - first > MAX_CLASSES) {
        char n[16];
        snprintf(n, sizeof n, "%d", argc - first);
        return bad("classes", n, "accepted: at most 64");
    }
    for (int i = first; i < argc; i++) {
        char field[3][16];
        long long v[3] = {-1, -1, -1};
        if (sscanf(argv[i], "%15[0-9]:%15[0-9]:%15[0-9]", field[0], field[1], field[2]) == 3 &&
            (size_t)snprintf(NULL, 0, "%s:%s:%s", field[0], field[1], field[2]) == strlen(argv[i])) {
            v[0] = number(field[0], 65535);
            v[1] = number(field[1], MAX_DELAY_US);
            v[2] = number(field[2], MAX_DELAY_US);
        }
        if (v[0] < 1 || v[1] < 0 || v[2] < 0)
            return bad("class", argv[i], "accepted: PORT:A_TO_B_US:B_TO_A_US, a port 1-65535 and delays "
                                         "0 to 1000000 microseconds");
        if (class_of[v[0]]) return bad("class", argv[i], "accepted: each port once");
        int c = ab.nfifo++;
        ba.nfifo++;
        class_of[v[0]] = (uint8_t)c;
        ab.q[c].delay_ns = (uint64_t)v[1] * 1000ull;
        ba.q[c].delay_ns = (uint64_t)v[2] * 1000ull;
    }
    /* The jitter's streams: the seed's, apart from the loss's and from each other. */
    ab.jrng = ab.rng ^ 0x6a09e667f3bcc908ull;
    ba.jrng = ab.rng ^ 0xbb67ae8584caa73bull;
    int ia, ib, a, b;
    if ((a = open_if(argv[1], &ia)) < 0 || (b = open_if(argv[2], &ib)) < 0) return 1;
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
    struct pollfd p[3] = {{a, POLLIN, 0}, {b, POLLIN, 0}, {0, POLLIN, 0}};
    while (!stop) {
        if (p[2].fd >= 0 && p[2].revents && !commands(0, &ab, &ba)) p[2].fd = -1; /* stdin closed */
        drain(a, &ab);
        drain(b, &ba);
        int64_t w1 = release(b, ib, &ab), w2 = release(a, ia, &ba);
        int64_t w = w1 < 0 ? w2 : (w2 < 0 ? w1 : (w1 < w2 ? w1 : w2));
        /* ppoll sleeps to the next due frame with ns resolution (the kernel's hrtimer slack
         * decides the real accuracy, measured in docs/linux.md). */
        struct timespec ts = {w < 0 ? 1 : w / 1000000000, w < 0 ? 0 : w % 1000000000};
        if (ppoll(p, 3, &ts, NULL) < 0 && errno != EINTR) break;
    }
    /* Frames lost here, not at the bottleneck: the socket's receive-buffer drops
     * (PACKET_STATISTICS, counted since the last read) and pool overflows. The engine reads
     * this line: a nonzero count means the run exceeded what the testbed carries honestly.
     * The second line: frames that took the default delay (with classes, a flow's frame
     * there would have had the wrong round trip). The last two: the relay's own lateness. */
    struct tpacket_stats sa = {0}, sb = {0};
    socklen_t sl = sizeof sa;
    getsockopt(a, SOL_PACKET, PACKET_STATISTICS, &sa, &sl);
    sl = sizeof sb;
    getsockopt(b, SOL_PACKET, PACKET_STATISTICS, &sb, &sl);
    fprintf(stderr, "delay_line: lost a->b %llu b->a %llu\n",
            (unsigned long long)ab.dropped + sa.tp_drops, (unsigned long long)ba.dropped + sb.tp_drops);
    fprintf(stderr, "delay_line: default class a->b %llu b->a %llu\n", (unsigned long long)ab.defaulted,
            (unsigned long long)ba.defaulted);
    fprintf(stderr, "delay_line: random loss a->b %llu bursts %llu\n", (unsigned long long)ab.random_lost,
            (unsigned long long)ab.loss_bursts);
    for (int i = 0; i < 2; i++) {
        struct dir *d = i ? &ba : &ab;
        fprintf(stderr, "delay_line: late %s frames %llu mean_ns %llu max_ns %llu over_1ms %llu\n",
                i ? "b->a" : "a->b", (unsigned long long)d->sent,
                (unsigned long long)(d->sent ? d->late_sum_ns / d->sent : 0), (unsigned long long)d->late_max_ns,
                (unsigned long long)d->late_over_1ms);
        for (uint32_t k = 0; k < d->nspell; k++)
            fprintf(stderr, "delay_line: spell %s at_ns %llu max_ns %llu\n", i ? "b->a" : "a->b",
                    (unsigned long long)d->spell[k].start_ns, (unsigned long long)d->spell[k].max_ns);
    }
    return 0;
}
