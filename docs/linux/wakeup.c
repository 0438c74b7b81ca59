/* docs/linux.md, "Idle cores": how late this machine wakes a sleeping real-time process, and
 * how long a busy one loses its CPU.
 *
 *   gcc -O2 -o /tmp/wakeup docs/linux/wakeup.c
 *   sudo /tmp/wakeup sleep [--qos]   20,000 sleeps of 200 us at SCHED_FIFO 50: mean and worst
 *                                    lateness, wake-ups over 1 ms; --qos holds a 0 us CPU
 *                                    latency request (/dev/cpu_dma_latency) meanwhile
 *   /tmp/wakeup spin                 5 s busy loop: the longest gap between two clock reads and
 *                                    the gaps over 1 ms (time the process did not run)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int sleeps(int qos) {
    if (qos) {
        int fd = open("/dev/cpu_dma_latency", O_WRONLY), zero = 0;
        if (fd < 0 || write(fd, &zero, sizeof zero) != sizeof zero) {
            perror("/dev/cpu_dma_latency");
            return 1;
        } /* held until exit */
    }
    prctl(PR_SET_TIMERSLACK, 1UL);
    struct sched_param sp = {.sched_priority = 50};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("SCHED_FIFO (run as root)");
    uint64_t sum = 0, max = 0, over = 0;
    const int n = 20000;
    for (int i = 0; i < n; i++) {
        uint64_t t0 = now();
        struct timespec ts = {0, 200000};
        ppoll(NULL, 0, &ts, NULL);
        uint64_t late = now() - t0 - 200000;
        sum += late;
        max = late > max ? late : max;
        over += late > 1000000;
    }
    printf("sleep%s: mean %llu ns late, max %llu ns, over 1 ms %llu of %d\n", qos ? " (CPU latency request held)" : "",
           (unsigned long long)(sum / n), (unsigned long long)max, (unsigned long long)over, n);
    return 0;
}

static int spin(void) {
    uint64_t t0 = now(), last = t0, max = 0, over = 0;
    while (now() - t0 < 5000000000ull) {
        uint64_t t = now(), gap = t - last;
        max = gap > max ? gap : max;
        over += gap > 1000000;
        last = t;
    }
    printf("spin: max gap %llu ns, gaps over 1 ms %llu\n", (unsigned long long)max, (unsigned long long)over);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "sleep")) return sleeps(argc >= 3 && !strcmp(argv[2], "--qos"));
    if (argc >= 2 && !strcmp(argv[1], "spin")) return spin();
    fprintf(stderr, "usage: wakeup sleep [--qos] | spin\n");
    return 2;
}
