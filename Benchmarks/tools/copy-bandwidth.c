/* Copies 1 GB (a 256 MB buffer four times) with one thread, then with two threads each copying its
 * half, and prints each run's time and rate. On the machine of the README's peer table two threads
 * copy more slowly in all than one (one core's memcpy already uses the memory bandwidth), which is
 * why the tool's serial copies (buffer fill, merge of decoded shares) gain nothing from running side
 * by side, and copying fewer bytes is what helps.
 *   cc -O2 -pthread Benchmarks/tools/copy-bandwidth.c -o /tmp/copy-bandwidth && taskset -c 0,1 /tmp/copy-bandwidth */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES (256L << 20)
#define ROUNDS 4

static char *source, *target;

struct part { long offset, length; };

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *copy(void *p) {
    struct part *part = p;
    for (int r = 0; r < ROUNDS; r++) memcpy(target + part->offset, source + part->offset, part->length);
    return NULL;
}

int main(void) {
    source = malloc(BYTES);
    target = malloc(BYTES);
    if (!source || !target) return 1;
    memset(source, 1, BYTES);
    memset(target, 2, BYTES);  /* (every page touched before timing) */
    for (int threads = 1; threads <= 2; threads++) {
        pthread_t thread[2];
        struct part part[2];
        double start = seconds();
        for (int i = 0; i < threads; i++) {
            part[i] = (struct part){BYTES / threads * i, BYTES / threads};
            pthread_create(&thread[i], NULL, copy, &part[i]);
        }
        for (int i = 0; i < threads; i++) pthread_join(thread[i], NULL);
        double s = seconds() - start;
        printf("%d thread%s: %.3f s, %.1f GB/s copied\n", threads, threads == 1 ? "" : "s", s, (double)ROUNDS * BYTES / s / 1e9);
    }
    return 0;
}
