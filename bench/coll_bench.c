/*
 * Collective benchmark: every collective over a sweep of sizes, OSU style. A sample is
 * the time of `iters` back-to-back calls divided by iters, started after a barrier; its
 * value is the slowest rank's (a MAX all-reduce of the per-rank times, outside the timed
 * region); the figure printed is the median of the samples, after one warm-up sample.
 *
 * Size is the bytes of each rank's buffer: the vector of broadcast, reduce and
 * all-reduce; the whole n-block buffer of gather, all-gather, scatter, reduce-scatter
 * and all-to-all (so every size costs about the same memory per rank). Reductions are
 * float32 SUM.
 *
 *   shmrun -n 4 build/bench/coll_bench [--coll NAME|all] [--algo auto|each|NAME]
 *                                      [--min BYTES] [--max BYTES] [--samples N] [--csv]
 *                                      [--nonblocking] [--split]
 *
 * --nonblocking times each call's nonblocking form started and waited for at once
 * (shmc_iallreduce + shmc_wait ...), its rows named "nb": against the blocking rows of
 * the same run, the cost of the schedules.
 * --split runs on a communicator split from the world with the same ranks, not on the
 * world itself (the world has algorithms of its own: docs/collectives.md).
 * --algo each runs every algorithm of each collective (how the crossover points in
 * docs/collectives.md were measured); it sets the same override SHMC_ALGO_<NAME> does.
 * --picks measures nothing: it prints, for each collective and size, the algorithm the
 * dispatch rules in effect choose for such a call on this communicator, in each state of
 * the machine (near, far: bench/tune.py compares with it).
 * --by-state tells each sample's state of the machine by the round trip of a cache line
 * between ranks 0 and 1 just before and just after it (bench/pair_rtt.h; far from
 * SHMC_FAR_NS): a row per state that some samples fell in, with their count; a sample
 * between which the state changed counts in none; with more ranks than CPUs every sample
 * counts in the state the job began in. SHMC_LINE_RTT_NS sets only the state the
 * library takes the job to be in (its rules); SHMC_BENCH_LINE_RTT_NS, where set, is taken
 * as the samples' round trip instead of measuring it (for tests; several, comma-separated,
 * in turn sample by sample: a state that changes).
 */
#include <shmcomm.h>

#include "bench.h"
#include "pair_rtt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/config.h"
#include "base/settings.h"
#include "coll/coll.h"

static size_t min_bytes = 4, max_bytes = 64u << 20;
static int samples = 11, csv, only = -1, algo_mode = -1; /* -1 auto, -2 each, else algo */
static int nonblocking;                                  /* --nonblocking */
static int split;                                        /* --split */
static int picks;                                        /* --picks */
static int by_state;                                     /* --by-state */
static struct pair_rtt pair;                             /* (--by-state) */
static unsigned far_ns;                                  /* SHMC_FAR_NS (--by-state) */
enum { NEAR, FAR, CHANGED };
static const char *const state_names[] = {"near", "far"};

struct bufs {
    void *s, *r;
};

/* The nonblocking form of call(), waited for at once. */
static void call_nb(int coll, shmc_comm *w, struct bufs *b, size_t bytes, int n)
{
    size_t cnt = bytes / 4, blk = cnt / (size_t)n ? cnt / (size_t)n : 1;
    shmc_request *r = NULL;
    switch (coll) {
    case SHMC_C_BARRIER:
        CHECK(shmc_ibarrier(w, &r));
        break;
    case SHMC_C_BROADCAST:
        CHECK(shmc_ibroadcast(b->r, cnt, SHMC_FLOAT32, 0, w, &r));
        break;
    case SHMC_C_REDUCE:
        CHECK(shmc_ireduce(b->s, b->r, cnt, SHMC_FLOAT32, SHMC_SUM, 0, w, &r));
        break;
    case SHMC_C_ALLREDUCE:
        CHECK(shmc_iallreduce(b->s, b->r, cnt, SHMC_FLOAT32, SHMC_SUM, w, &r));
        break;
    case SHMC_C_GATHER:
        CHECK(shmc_igather(b->s, b->r, blk, SHMC_FLOAT32, 0, w, &r));
        break;
    case SHMC_C_ALLGATHER:
        CHECK(shmc_iallgather(b->s, b->r, blk, SHMC_FLOAT32, w, &r));
        break;
    case SHMC_C_SCATTER:
        CHECK(shmc_iscatter(b->s, b->r, blk, SHMC_FLOAT32, 0, w, &r));
        break;
    case SHMC_C_REDUCE_SCATTER:
        CHECK(shmc_ireduce_scatter(b->s, b->r, blk, SHMC_FLOAT32, SHMC_SUM, w, &r));
        break;
    case SHMC_C_ALLTOALL:
        CHECK(shmc_ialltoall(b->s, b->r, blk, SHMC_FLOAT32, w, &r));
        break;
    }
    CHECK(shmc_wait(&r, NULL));
}

static void call(int coll, shmc_comm *w, struct bufs *b, size_t bytes, int n)
{
    size_t cnt = bytes / 4, blk = cnt / (size_t)n ? cnt / (size_t)n : 1;
    if (nonblocking) {
        call_nb(coll, w, b, bytes, n);
        return;
    }
    switch (coll) {
    case SHMC_C_BARRIER:
        CHECK(shmc_barrier(w));
        break;
    case SHMC_C_BROADCAST:
        CHECK(shmc_broadcast(b->r, cnt, SHMC_FLOAT32, 0, w));
        break;
    case SHMC_C_REDUCE:
        CHECK(shmc_reduce(b->s, b->r, cnt, SHMC_FLOAT32, SHMC_SUM, 0, w));
        break;
    case SHMC_C_ALLREDUCE:
        CHECK(shmc_allreduce(b->s, b->r, cnt, SHMC_FLOAT32, SHMC_SUM, w));
        break;
    case SHMC_C_GATHER:
        CHECK(shmc_gather(b->s, b->r, blk, SHMC_FLOAT32, 0, w));
        break;
    case SHMC_C_ALLGATHER:
        CHECK(shmc_allgather(b->s, b->r, blk, SHMC_FLOAT32, w));
        break;
    case SHMC_C_SCATTER:
        CHECK(shmc_scatter(b->s, b->r, blk, SHMC_FLOAT32, 0, w));
        break;
    case SHMC_C_REDUCE_SCATTER:
        CHECK(shmc_reduce_scatter(b->s, b->r, blk, SHMC_FLOAT32, SHMC_SUM, w));
        break;
    case SHMC_C_ALLTOALL:
        CHECK(shmc_alltoall(b->s, b->r, blk, SHMC_FLOAT32, w));
        break;
    }
}

/* The state of the machine by the round trips before and after a sample (rank 0's). */
static int state_of(unsigned before, unsigned after)
{
    return (before >= far_ns) != (after >= far_ns) ? CHANGED : before >= far_ns ? FAR : NEAR;
}

/* Seconds per call on the slowest rank, one sample; with --by-state its state on rank 0
 * (*state), else NEAR. */
static double sample(int coll, shmc_comm *w, struct bufs *b, size_t bytes, int n, int iters,
                     int *state)
{
    unsigned before = by_state ? pair_rtt_measure(&pair) : 0;
    CHECK(shmc_barrier(w));
    double t0 = now_s();
    for (int i = 0; i < iters; i++)
        call(coll, w, b, bytes, n);
    double t = (now_s() - t0) / iters;
    *state = by_state ? state_of(before, pair_rtt_measure(&pair)) : NEAR;
    CHECK(shmc_allreduce(SHMC_IN_PLACE, &t, 1, SHMC_FLOAT64, SHMC_MAX, w));
    return t;
}

/* One row: the median, least and most of the k samples at v (sorted here). */
static void row(int coll, int algo, int n, size_t bytes, double *v, int k, const char *state)
{
    const char *an = nonblocking ? "nb" : algo < 0 ? "auto" : shmc__algo_names[algo];
    size_t shown = coll == SHMC_C_BARRIER ? 0 : bytes;
    qsort(v, (size_t)k, sizeof v[0], cmp_double);
    if (csv)
        printf("%s,%s,%d,%zu,%.3f,%.3f,%.3f", shmc__coll_names[coll], an, n, shown,
               v[k / 2] * 1e6, v[0] * 1e6, v[k - 1] * 1e6);
    else
        printf("%-15s %-5s %3d %10zu %12.2f %12.2f %12.2f", shmc__coll_names[coll], an, n, shown,
               v[k / 2] * 1e6, v[0] * 1e6, v[k - 1] * 1e6);
    if (state)
        printf(csv ? ",%s,%d" : " %6s %7d", state, k);
    printf("\n");
    fflush(stdout);
}

/* Forces collective coll's algorithm (SHMC_ALGO_<NAME>, through shmc_config_set). */
static void force(int coll, const char *algo)
{
    char var[64];
    size_t k = (size_t)snprintf(var, sizeof var, "SHMC_ALGO_");
    for (const char *c = shmc__coll_names[coll]; *c && k + 1 < sizeof var; c++)
        var[k++] = (char)toupper((unsigned char)*c);
    var[k] = '\0';
    CHECK(shmc_config_set(var, algo));
}

static void run(int coll, int algo, shmc_comm *w, int me, int n, struct bufs *b)
{
    force(coll, algo < 0 ? "auto" : shmc__algo_names[algo]);
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
        if (coll == SHMC_C_BARRIER && bytes > min_bytes)
            break;
        /* Iterations for about 20 ms per sample, agreed from the warm-up. */
        int st[64];
        double t = sample(coll, w, b, bytes, n, 1, st);
        int iters = t > 0 ? (int)(0.02 / t) : 1000;
        iters = iters < 1 ? 1 : iters > 20000 ? 20000 : iters;
        CHECK(shmc_broadcast(&iters, 1, SHMC_INT32, 0, w));
        double v[64];
        for (int s = 0; s < samples; s++)
            v[s] = sample(coll, w, b, bytes, n, iters, &st[s]);
        if (me == 0 && !by_state)
            row(coll, algo, n, bytes, v, samples, NULL);
        for (int state = NEAR; me == 0 && by_state && state <= FAR; state++) {
            double in[64];
            int k = 0;
            for (int s = 0; s < samples; s++)
                if (st[s] == state)
                    in[k++] = v[s];
            if (k)
                row(coll, algo, n, bytes, in, k, state_names[state]);
        }
    }
    force(coll, "auto");
}

static void usage(void)
{
    fprintf(stderr, "usage: coll_bench [--coll NAME|all] [--algo auto|each|tree|ring|shm|rd] "
                    "[--min BYTES] [--max BYTES] (4096, 64k, 16M) [--samples N] [--csv] [--nonblocking] "
                    "[--split] [--picks] [--by-state]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--nonblocking")) {
            nonblocking = 1;
        } else if (!strcmp(argv[i], "--split")) {
            split = 1;
        } else if (!strcmp(argv[i], "--picks")) {
            picks = 1;
        } else if (!strcmp(argv[i], "--by-state")) {
            by_state = 1;
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if (i + 1 < argc && !strcmp(argv[i], "--coll")) {
            const char *v = argv[++i];
            only = -1;
            for (int c = 0; c < SHMC_C_COUNT; c++)
                if (!strcasecmp(v, shmc__coll_names[c]))
                    only = c;
            if (only < 0 && strcmp(v, "all"))
                usage();
        } else if (i + 1 < argc && !strcmp(argv[i], "--algo")) {
            const char *v = argv[++i];
            algo_mode = !strcmp(v, "each") ? -2 : -3;
            for (int a = 0; a < SHMC_A_COUNT; a++)
                if (!strcasecmp(v, shmc__algo_names[a]))
                    algo_mode = a == SHMC_A_AUTO ? -1 : a;
            if (algo_mode == -3)
                usage();
        } else if (i + 1 < argc && (!strcmp(argv[i], "--min") || !strcmp(argv[i], "--max"))) {
            /* Bytes as the library reads sizes: 4096, 64k, 16M. */
            if (shmc__parse_size(argv[i + 1], argv[i][4] == 'n' ? &min_bytes : &max_bytes) != 0)
                usage();
            i++;
        } else if (i + 1 < argc && !strcmp(argv[i], "--samples")) {
            samples = atoi(argv[++i]);
            if (samples < 1 || samples > 64)
                usage();
        } else {
            usage();
        }
    }
    if (min_bytes < 4)
        min_bytes = 4;
    shmc_comm *w;
    CHECK(shmc_init(&w));
    shmc_comm *world = w;
    if (split)
        CHECK(shmc_comm_split(world, 0, shmc_comm_rank(world), &w));
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    struct bufs b = {malloc(max_bytes + 64), malloc(max_bytes + 64)};
    if (!b.s || !b.r) {
        fprintf(stderr, "coll_bench: out of memory for %zu-byte buffers\n", max_bytes);
        shmc_abort(1);
    }
    memset(b.s, 0, max_bytes + 64);
    memset(b.r, 0, max_bytes + 64);
    if (by_state) {
        struct shmc__config cfg;
        CHECK(shmc__config_load(&cfg)); /* (as the library read it at shmc_init) */
        far_ns = cfg.far_ns;
        /* With more ranks than CPUs, ranks 0 and 1 take turns with the others on theirs,
         * and their round trip is the scheduler's: every sample is taken to be in the
         * state the job began in. */
        const char *assumed = getenv("SHMC_BENCH_LINE_RTT_NS");
        char began[16];
        if (!assumed && shmc__coll.shared_cpus) {
            snprintf(began, sizeof began, "%u", shmc__coll.arena->line_rtt_ns);
            assumed = began;
        }
        pair_rtt_init(&pair, w, assumed);
    }
    /* What the job found, which the rules are matched against (bench/tune.py reads it). */
    if (me == 0 && (picks || csv))
        printf("# cpus %s\n# machine %s %u\n", shmc__coll.shared_cpus ? "shared" : "own",
               shmc__coll.far_machine ? "far" : "near", shmc__coll.arena->line_rtt_ns);
    if (picks) {
        /* What dispatch chooses (coll/dispatch.c: the rules, unless SHMC_ALGO_* forces). */
        if (me == 0)
            printf("collective,picked,ranks,bytes,state\n");
        for (int far = 0; far < 2; far++) {
            struct shmc__where at = {n, !split, shmc__coll.shared_cpus, far, 0, shmc__coll.maker,
                                     shmc__coll.family};
            for (int c = 0; c < SHMC_C_COUNT && me == 0; c++)
                for (size_t bytes = min_bytes; (only < 0 || c == only) && bytes <= max_bytes;
                     bytes *= 4) {
                    size_t as = c == SHMC_C_BARRIER ? 0 : bytes;
                    int a = shmc__rules_pick(&shmc__coll.rules, c, &at, as);
                    printf("%s,%s,%d,%zu,%s\n", shmc__coll_names[c], shmc__algo_names[a], n, as,
                           state_names[far]);
                    if (c == SHMC_C_BARRIER)
                        break;
                }
        }
        only = SHMC_C_COUNT; /* (nothing to measure) */
    }
    if (me == 0 && !csv && !picks)
        printf("%-15s %-5s %3s %10s %12s %12s %12s%s\n", "collective", "algo", "n", "bytes",
               "median_us", "min_us", "max_us", by_state ? "  state samples" : "");
    if (me == 0 && csv && !picks)
        printf("collective,algo,ranks,bytes,median_us,min_us,max_us%s\n",
               by_state ? ",state,samples" : "");
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        if (only >= 0 && c != only)
            continue;
        if (algo_mode == -2) {
            for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++)
                if (shmc__algo_valid(c, a))
                    run(c, a, w, me, n, &b);
        } else if (algo_mode == -1 || shmc__algo_valid(c, algo_mode)) {
            run(c, algo_mode, w, me, n, &b);
        }
    }
    free(b.s);
    free(b.r);
    if (by_state)
        pair_rtt_free(&pair);
    if (w != world)
        CHECK(shmc_comm_free(&w));
    CHECK(shmc_finalize());
    return 0;
}
