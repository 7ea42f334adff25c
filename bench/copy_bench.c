/*
 * copy_bench: memcpy against shmc__copy (lib/base/copy.h) for one length at each
 * distance of the destination after the source modulo 4096, in one process, buffers
 * warm in cache. Prints the CPU and one CSV line per distance: the median of 9 samples
 * of each, in microseconds per copy, alternated.
 *
 *   build/bench/copy_bench [BYTES (65536)] [DISTANCES (0,1,8,15,16,32,63,64,2048)]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy.h"
#include "bench.h"
#include "timing.h"

static double sample(int loop, uint8_t *dst, const uint8_t *src, size_t n, int iters)
{
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        if (loop)
            shmc__copy(dst, src, n);
        else
            memcpy(dst, src, n);
        __asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
    }
    return (now_s() - t0) / iters * 1e6;
}

/* "model name (family F, model M)" from /proc/cpuinfo: virtual machines often name no
 * more than the vendor's brand. */
static void cpu_model(char *buf, size_t len)
{
    char name[128] = "unknown", fam[16] = "?", mod[16] = "?", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (!c)
            continue;
        char *v = c + 2;
        v[strcspn(v, "\n")] = 0;
        if (!strncmp(line, "model name", 10))
            snprintf(name, sizeof name, "%s", v);
        else if (!strncmp(line, "cpu family", 10))
            snprintf(fam, sizeof fam, "%s", v);
        else if (!strncmp(line, "model\t", 6))
            snprintf(mod, sizeof mod, "%s", v);
        else if (line[0] == '\n' || !strncmp(line, "power management", 16))
            break; /* the first CPU is enough */
    }
    if (f)
        fclose(f);
    snprintf(buf, len, "%s (family %s, model %s)", name, fam, mod);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 65536;
    char dlist[512] = "0,1,8,15,16,32,63,64,2048";
    if (argc > 2)
        snprintf(dlist, sizeof dlist, "%s", argv[2]);
    if (n == 0 || n > (256u << 20)) {
        fprintf(stderr, "copy_bench: BYTES must be 1 to 268435456\n");
        return 2;
    }
    uint8_t *src = aligned_alloc(4096, n + 8192), *dst = aligned_alloc(4096, n + 8192);
    if (!src || !dst) {
        fprintf(stderr, "copy_bench: out of memory\n");
        return 1;
    }
    memset(src, 1, n + 8192);
    memset(dst, 2, n + 8192);
    char cpu[192];
    cpu_model(cpu, sizeof cpu);
    printf("# %s\nbytes,distance,memcpy_us,shmc_copy_us\n", cpu);
    int iters = (int)(2e8 / (double)n) + 1;
    for (char *tok = strtok(dlist, ","); tok; tok = strtok(NULL, ",")) {
        size_t d = strtoull(tok, NULL, 10) % 4096;
        double m[9], c[9];
        for (int s = 0; s < 9; s++) {
            m[s] = sample(0, dst + d, src, n, iters);
            c[s] = sample(1, dst + d, src, n, iters);
        }
        printf("%zu,%zu,%.3f,%.3f\n", n, d, median(m, 9), median(c, 9));
    }
    free(src);
    free(dst);
    return 0;
}
