/*
 * Unit test of the dispatch rules (coll/rules.h): the rules the library is built with are
 * whole; a text with any fault is refused, naming its line; a call takes the first rule
 * that matches it, with bounds per rank scaled by the ranks and rules for the world or
 * the other communicators only, for ranks sharing CPUs or not, on a machine whose CPUs run
 * near each other or far apart, and for host or device memory, whose rules name only
 * algorithms that take device buffers.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll/rules.h"
#include "harness.h"

static struct shmc__rules r;

/* The rules' choice for collective c of bytes on n ranks, world, shared, far (0 or 1),
 * on host memory; pick_dev on device memory. */
static int pick_mem(int c, int n, size_t bytes, int world, int shared, int far, int dev)
{
    struct shmc__where w = {n, world, shared, far, dev, SHMC_MAKER_OTHER};
    return shmc__rules_pick(&r, c, &w, bytes);
}

/* A host call on the world, its CPUs their own, on CPUs of maker and family. */
static int pick_family(int c, int n, size_t bytes, int far, int maker, unsigned family)
{
    struct shmc__where w = {n, 1, 0, far, 0, maker, family};
    return shmc__rules_pick(&r, c, &w, bytes);
}

static int pick_maker(int c, int n, size_t bytes, int far, int maker)
{
    return pick_family(c, n, bytes, far, maker, 0);
}

static int pick(int c, int n, size_t bytes, int world, int shared, int far)
{
    return pick_mem(c, n, bytes, world, shared, far, 0);
}

static int pick_dev(int c, int n, size_t bytes)
{
    return pick_mem(c, n, bytes, 1, 0, 0, 1);
}

/* Every collective but one (coll) with a rule for any call, then text. */
static int parse_with(int coll, const char *text)
{
    static char all[8192];
    size_t k = 0;
    for (int c = 0; c < SHMC_C_COUNT; c++)
        if (c != coll)
            k += (size_t)snprintf(all + k, sizeof all - k, "%s any any any any any any tree\n",
                                  shmc__coll_names[c]);
    snprintf(all + k, sizeof all - k, "%s", text);
    return shmc__rules_parse(all, "test", &r);
}

START_TEST(test_rules_shipped)
{
    ck_assert_int_eq(shmc__rules_parse(shmc__rules_shipped, "shipped", &r), SHMC_OK);
    /* Each (collective, ranks, bytes, world, shared CPUs, far, device) and the algorithm
     * docs/collectives.md says it takes. */
    static const struct {
        int c, n;
        size_t bytes;
        int world, shared, far, dev, algo;
    } want[] = {
        /* The 2-rank all-reduce: on the world near, the one-step rounds up to 1 KiB, the
         * staging buffers to 16 KiB, recursive doubling to 64 KiB, the staging buffers
         * beyond; far, the one-step rounds up to 1 KiB, then the staging buffers written
         * by streaming stores (at 4 ranks too, above 64 KiB); elsewhere recursive
         * doubling for small calls. */
        {SHMC_C_ALLREDUCE, 2, 1024, 1, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_ALLREDUCE, 2, 1025, 1, 0, 0, 0, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 2, 4, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_ALLREDUCE, 2, 1024, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_ALLREDUCE, 2, 1025, 1, 0, 1, 0, SHMC_A_STREAM},
        {SHMC_C_ALLREDUCE, 2, 16384, 1, 0, 1, 0, SHMC_A_STREAM},
        {SHMC_C_ALLREDUCE, 2, 16384, 1, 0, 0, 0, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 2, 16385, 1, 0, 0, 0, SHMC_A_RD},
        {SHMC_C_ALLREDUCE, 2, 65536, 1, 0, 1, 0, SHMC_A_STREAM},
        {SHMC_C_ALLREDUCE, 2, 65536, 1, 0, 0, 0, SHMC_A_RD},
        {SHMC_C_ALLREDUCE, 2, 65537, 1, 0, 0, 0, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 3, 16384, 1, 0, 1, 0, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 2, 65537, 1, 0, 1, 0, SHMC_A_STREAM},
        {SHMC_C_ALLREDUCE, 4, 65536, 1, 0, 1, 0, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 4, 65537, 1, 0, 1, 0, SHMC_A_STREAM},
        {SHMC_C_ALLREDUCE, 4, 65537, 1, 0, 0, 0, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 3, 1 << 20, 1, 0, 1, 0, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 2, 1 << 20, 0, 0, 1, 0, SHMC_A_RING},
        {SHMC_C_ALLREDUCE, 2, 1024, 0, 0, 0, 0, SHMC_A_RD},
        {SHMC_C_ALLREDUCE, 64, SIZE_MAX, 0, 1, 0, 0, SHMC_A_RING},
        /* The 2-rank world barrier is the one-step round in both states; the 2-rank
         * broadcast direct up to 1 KiB, near the slots to 32 KiB and single copies to 1
         * MiB, far single copies to 64 KiB and the tree beyond; the all-gather through
         * the slots to 32 KiB near, the ring beyond. */
        {SHMC_C_BARRIER, 2, 0, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_BARRIER, 2, 0, 1, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 2, 1024, 0, 0, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, 1025, 0, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 2, 32768, 0, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 2, 32769, 0, 0, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, 1 << 20, 0, 0, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, (1 << 20) + 1, 0, 0, 0, 0, SHMC_A_TREE},
        {SHMC_C_BROADCAST, 2, 1 << 20, 0, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_ALLGATHER, 2, 32768, 1, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_ALLGATHER, 2, 32769, 1, 0, 0, 0, SHMC_A_RING},
        {SHMC_C_ALLGATHER, 2, 1 << 20, 1, 0, 0, 0, SHMC_A_RING},
        {SHMC_C_ALLGATHER, 2, 1 << 20, 1, 0, 1, 0, SHMC_A_RING},
        /* Far, the 2-rank calls that the slots serve near go by messages and single
         * copies, whose sender runs ahead where a slot's writer waits for its reader
         * (docs/collectives.md, "Rooted and gathering calls far apart"); but on the
         * world, past the far eager limit, by the world's rounds, which cost less than a
         * rendezvous (docs/collectives.md, after the rules). */
        {SHMC_C_BROADCAST, 2, 16384, 0, 0, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, 16384, 0, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 2, 65536, 0, 0, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, 65537, 0, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_BROADCAST, 2, 8192, 1, 0, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, 8193, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 2, 65536, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 2, 65537, 1, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 8192, 1, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 8193, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 65536, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 65537, 1, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 16384, 0, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_GATHER, 2, 4097, 1, 0, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_GATHER, 2, 16384, 1, 0, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_GATHER, 2, 16385, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_GATHER, 2, 131072, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_GATHER, 2, 131073, 1, 0, 1, 0, SHMC_A_RING},
        {SHMC_C_GATHER, 2, 65536, 0, 0, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_SCATTER, 2, 16384, 1, 0, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_SCATTER, 2, 65536, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_SCATTER, 2, 65536, 0, 0, 1, 0, SHMC_A_DIRECT},
        /* In both states the 2-rank reduce of up to 256 bytes and the small scatter go
         * by messages; the world's reduce by shared memory beyond, far to 2 KiB, near to
         * 8 KiB (another communicator's near from 4 to 8 KiB), then the tree, whose root
         * receives straight into the result; the gather by single copies to 64 KiB, then
         * the ring. */
        {SHMC_C_REDUCE, 2, 256, 1, 0, 0, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 256, 1, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 257, 1, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 2048, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 2049, 1, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 4096, 0, 0, 0, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 4097, 0, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 8192, 1, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 8193, 1, 0, 0, 0, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 1 << 24, 1, 0, 0, 0, SHMC_A_TREE},
        /* The broadcast of 4 ranks that share CPUs: direct up to 8 KiB, and far up to 64
         * KiB; near from 8 to 64 KiB through the slots; with a CPU each, direct to 4 KiB
         * and the slots to 64 KiB. */
        {SHMC_C_BROADCAST, 4, 8192, 1, 1, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 4, 8193, 1, 1, 0, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 4, 65536, 1, 1, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 4, 65536, 1, 1, 0, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 4, 8192, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 4, 4096, 1, 0, 0, 0, SHMC_A_DIRECT},
        /* Small gathers of 3 and 4 ranks that share CPUs go direct (no rank waits for
         * another to be scheduled but the root); with a CPU each, and from 5 ranks, the
         * tree. */
        {SHMC_C_GATHER, 4, 8192, 1, 1, 1, 0, SHMC_A_DIRECT},
        {SHMC_C_GATHER, 3, 64, 0, 1, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_GATHER, 4, 8192, 1, 0, 1, 0, SHMC_A_TREE},
        {SHMC_C_GATHER, 8, 64, 1, 1, 1, 0, SHMC_A_TREE},
        {SHMC_C_GATHER, 4, 8193, 1, 1, 1, 0, SHMC_A_SHM},
        {SHMC_C_GATHER, 2, 4097, 1, 0, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_GATHER, 2, 65536, 1, 0, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_GATHER, 2, 65537, 1, 0, 0, 0, SHMC_A_RING},
        {SHMC_C_SCATTER, 2, 16384, 1, 0, 0, 0, SHMC_A_DIRECT},
        {SHMC_C_SCATTER, 2, 16385, 1, 0, 0, 0, SHMC_A_SHM},
        /* The world's 2-rank all-gather, all-to-all and reduce-scatter up to 2 KiB: one
         * of the world's rounds (shm) in both states; elsewhere, far, the ring. */
        {SHMC_C_ALLGATHER, 2, 4, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_ALLGATHER, 2, 4, 0, 0, 1, 0, SHMC_A_RING},
        {SHMC_C_ALLTOALL, 2, 4, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_ALLTOALL, 2, 4, 0, 0, 1, 0, SHMC_A_RING},
        {SHMC_C_ALLTOALL, 2, 4, 1, 0, 0, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE_SCATTER, 2, 2048, 1, 0, 1, 0, SHMC_A_SHM},
        {SHMC_C_REDUCE_SCATTER, 2, 2049, 1, 0, 0, 0, SHMC_A_RING},
        {SHMC_C_REDUCE_SCATTER, 2, 4, 0, 0, 0, 0, SHMC_A_RING},
        /* Device memory (docs/collectives.md, Device buffers): the all-reduce's kernels up
         * to 16 members, then recursive doubling up to 64 KiB and the ring; trees for
         * small broadcasts and reduces (at 2 ranks, any size), rings for large ones. */
        {SHMC_C_ALLREDUCE, 16, SIZE_MAX, 1, 0, 0, 1, SHMC_A_DIRECT},
        {SHMC_C_ALLREDUCE, 17, 65536, 1, 0, 0, 1, SHMC_A_RD},
        {SHMC_C_ALLREDUCE, 17, 65537, 1, 0, 0, 1, SHMC_A_RING},
        {SHMC_C_BROADCAST, 2, SIZE_MAX, 1, 0, 0, 1, SHMC_A_TREE},
        {SHMC_C_REDUCE, 3, 65536, 1, 0, 0, 1, SHMC_A_TREE},
        {SHMC_C_REDUCE, 3, 65537, 1, 0, 0, 1, SHMC_A_RING},
        {SHMC_C_GATHER, 4, 1, 1, 0, 0, 1, SHMC_A_TREE},
        {SHMC_C_ALLTOALL, 2, 1, 1, 0, 0, 1, SHMC_A_RING},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int a = pick_mem(want[i].c, want[i].n, want[i].bytes, want[i].world, want[i].shared,
                         want[i].far, want[i].dev);
        ck_assert_msg(a == want[i].algo, "row %zu: %s n=%d %zu bytes: %s, not %s", i,
                      shmc__coll_names[want[i].c], want[i].n, want[i].bytes,
                      shmc__algo_names[a], shmc__algo_names[want[i].algo]);
    }
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        ck_assert_int_gt(r.count[c], 0);
        for (int n = 1; n <= 300; n += 7)
            for (size_t b = 0; b < ((size_t)1 << 30); b = b * 3 + 1) {
                int a = pick(c, n, b, n % 2, n % 3 == 0, 0);
                ck_assert_msg(a > SHMC_A_AUTO && shmc__algo_valid(c, a), "%s n=%d %zu: %d",
                              shmc__coll_names[c], n, b, a);
                if (c == SHMC_C_BARRIER)
                    continue;
                a = pick_mem(c, n, b, n % 2, n % 3 == 0, n % 5 == 0, 1);
                ck_assert_msg(shmc__algo_valid(c, a) && shmc__algo_device(a),
                              "device %s n=%d %zu: %d", shmc__coll_names[c], n, b, a);
            }
    }
}
END_TEST

START_TEST(test_rules_first_match)
{
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, "# a comment\n"
                                               "gather 2 <=4k any any any host shm   # two ranks\n"
                                               "gather 3- <=1k/rank world any any any ring\n"
                                               "gather 3-8 <=64k other any any host direct\n"
                                               "gather 2 any any shared any any ring\n"
                                               "gather 2 <=1M any any far host direct\n"
                                               "gather 3 <=1M any any near host shm\n"
                                               "gather 2 <=8k any any any device ring\n"
                                               "\n"
                                               "gather any any any any any any tree\n"),
                     SHMC_OK);
    int g = SHMC_C_GATHER;
    ck_assert_int_eq(pick(g, 2, 4096, 0, 0, 0), SHMC_A_SHM);
    ck_assert_int_eq(pick(g, 2, 4097, 0, 0, 0), SHMC_A_TREE);
    ck_assert_int_eq(pick(g, 4, 4096, 1, 0, 0), SHMC_A_RING); /* 1k x 4 ranks */
    ck_assert_int_eq(pick(g, 4, 4097, 1, 0, 0), SHMC_A_TREE);
    ck_assert_int_eq(pick(g, 4, 4097, 0, 0, 0), SHMC_A_DIRECT);
    ck_assert_int_eq(pick(g, 9, 4097, 0, 0, 0), SHMC_A_TREE);
    ck_assert_int_eq(pick(g, 100, 100 * 1024, 1, 0, 0), SHMC_A_RING);
    ck_assert_int_eq(pick(g, 1, 0, 0, 0, 0), SHMC_A_TREE);
    /* Ranks sharing CPUs, or each with its own. */
    ck_assert_int_eq(pick(g, 2, 8192, 0, 1, 0), SHMC_A_RING);
    ck_assert_int_eq(pick(g, 2, 8192, 0, 0, 0), SHMC_A_TREE);
    ck_assert_int_eq(pick(SHMC_C_BARRIER, 5, 0, 1, 0, 0), SHMC_A_TREE);
    /* CPUs near each other, or far apart. */
    ck_assert_int_eq(pick(g, 2, 8192, 0, 0, 1), SHMC_A_DIRECT);
    ck_assert_int_eq(pick(g, 2, 8192, 0, 1, 1), SHMC_A_RING); /* (the earlier rule) */
    ck_assert_int_eq(pick(g, 2, 2 << 20, 0, 0, 1), SHMC_A_TREE);
    ck_assert_int_eq(pick(g, 3, 8192, 1, 0, 0), SHMC_A_SHM);
    ck_assert_int_eq(pick(g, 3, 8192, 1, 0, 1), SHMC_A_TREE);
    /* Device memory skips the host's rules, and the host the device's. */
    ck_assert_int_eq(pick_dev(g, 2, 4096), SHMC_A_RING);
    ck_assert_int_eq(pick_dev(g, 2, 8192), SHMC_A_RING);
    ck_assert_int_eq(pick_dev(g, 2, 8193), SHMC_A_TREE);
    ck_assert_int_eq(pick_mem(g, 2, 8192, 0, 1, 1, 1), SHMC_A_RING); /* (any memory) */
    ck_assert_int_eq(pick_dev(g, 4, 4096), SHMC_A_RING); /* (any memory, world) */
    ck_assert_int_eq(pick_dev(g, 4, 4097), SHMC_A_TREE); /* (not the host's direct) */
}
END_TEST

START_TEST(test_rules_faults)
{
    const char *bad[] = {
        "gather 2 any any any any tree\n",                     /* seven words */
        "gather 2 any any any any any tree extra\n",           /* nine */
        "gathr any any any any any any tree\n",                /* no such collective */
        "gather 0 any any any any any tree\n",                 /* no rank 0 */
        "gather 5-3 any any any any any tree\n",               /* backwards */
        "gather x any any any any any tree\n",                 /* not a number */
        "gather 70000 any any any any any tree\n",             /* too many ranks */
        "gather 2 <4k any any any any tree\n",                 /* not <= */
        "gather 2 <=4q any any any any tree\n",                /* not a size */
        "gather 2 <=4k/node any any any any tree\n",           /* per what? */
        "gather 2 <=2000G/rank any any any any tree\n",        /* too large per rank */
        "gather 2 any local any any any tree\n",               /* no such comm */
        "gather 2 any any many any any tree\n",                /* no such cpus */
        "gather 2 any any any close any tree\n",               /* no such machine */
        "gather 2 any any any any gpu tree\n",                 /* no such memory */
        "gather 2 any any any any any rd\n",                   /* gather has no rd */
        "gather 2 any any any any any auto\n",                 /* auto is no algorithm */
        "gather 2 any any any any any shm\n",                  /* shm takes no device memory */
        "gather 2 any any any any device shm\n",               /* ... nor here */
        "gather 2 any any any any any tree\n",                 /* no rule for any call */
        "gather any any world any any any tree\n",             /* world only */
        "gather any any any own any any tree\n",               /* own CPUs only */
        "gather any any any any far any tree\n",               /* far machines only */
        "gather any any any any any host tree\n",              /* no device rule for any call */
        "gather 2 any any any arm:near any tree\n",            /* no such maker */
        "gather 2 any any any intel: any tree\n",              /* a maker, no state */
        "gather 2 any any any :far any tree\n",                /* a state after nothing */
        "gather 2 any any any intel:close any tree\n",         /* no such state */
        "gather 2 any any any amd:intel:any any tree\n",       /* two makers */
        "gather 2 any any any longmakername:any any tree\n",   /* no such maker */
        "gather any any any any intel:any any tree\n",         /* one maker's CPUs only */
        "gather 2 any any any amd0:near any tree\n",           /* no family 0 */
        "gather 2 any any any amd026:near any tree\n",         /* nor a leading zero */
        "gather 2 any any any amd256:near any tree\n",         /* nor 256 */
        "gather 2 any any any amd2600:near any tree\n",        /* nor four digits */
        "gather 2 any any any amd-1:near any tree\n",          /* nor a sign */
        "gather 2 any any any amd26x:near any tree\n",         /* nor letters after */
        "gather 2 any any any 26:near any tree\n",             /* a family, no maker */
        "gather any any any any amd26:any any tree\n",         /* one family's CPUs only */
        "gather any any any any any device tree\n",            /* no host rule for any call */
        "gather any any any any any any tree\ngather 2 any any any any host shm\n", /* unused */
        "gather any any any any any host shm\ngather any any any any any device tree\n"
        "gather 2 any any any any any ring\n",                 /* never used, either memory */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = parse_with(SHMC_C_GATHER, bad[i]);
        ck_assert_msg(rc == SHMC_ERR_ENV, "taken: %s", bad[i]);
    }
    /* A collective with no rules at all, and a line too long. */
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, ""), SHMC_ERR_ENV);
    char longline[400];
    memset(longline, ' ', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, longline), SHMC_ERR_ENV);
    /* A barrier has no buffers: a rule for its device memory is refused, and its rules
     * name host algorithms whatever memory they say. */
    ck_assert_int_eq(parse_with(SHMC_C_BARRIER, "barrier any any any any any device tree\n"),
                     SHMC_ERR_ENV);
    ck_assert_int_eq(parse_with(SHMC_C_BARRIER, "barrier any any any any any any shm\n"), SHMC_OK);
    /* The same rules without their faults are taken: a rule for host memory after the
     * device's last one, and the other way round. */
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, "gather 1-2 <=4k/rank world shared far any tree\n"
                                               "gather any any any any any device tree\n"
                                               "gather 2 <=1k any any any any ring\n"
                                               "gather 2 any any any any host shm\n"
                                               "gather any any any any any host shm\n"),
                     SHMC_OK);
    ck_assert_int_eq(pick(SHMC_C_GATHER, 2, 1 << 20, 0, 0, 0), SHMC_A_SHM);
    ck_assert_int_eq(pick_dev(SHMC_C_GATHER, 2, 1 << 20), SHMC_A_TREE);
    ck_assert_int_eq(pick_dev(SHMC_C_GATHER, 2, 1024), SHMC_A_TREE);
    ck_assert_int_eq(pick(SHMC_C_GATHER, 2, 1024, 0, 0, 0), SHMC_A_RING);
}
END_TEST

/* A rule for one maker's CPUs applies on theirs alone, in either state where it says any. */
START_TEST(test_rules_maker)
{
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, "gather 2 <=4k any any intel:any host ring\n"
                                               "gather 2 <=4k any any amd:near host shm\n"
                                               "gather 2 <=4k any any amd:far host direct\n"
                                               "gather any any any any any any tree\n"),
                     SHMC_OK);
    int g = SHMC_C_GATHER;
    ck_assert_int_eq(pick_maker(g, 2, 4096, 0, SHMC_MAKER_INTEL), SHMC_A_RING);
    ck_assert_int_eq(pick_maker(g, 2, 4096, 1, SHMC_MAKER_INTEL), SHMC_A_RING);
    ck_assert_int_eq(pick_maker(g, 2, 4096, 0, SHMC_MAKER_AMD), SHMC_A_SHM);
    ck_assert_int_eq(pick_maker(g, 2, 4096, 1, SHMC_MAKER_AMD), SHMC_A_DIRECT);
    ck_assert_int_eq(pick_maker(g, 2, 4096, 0, SHMC_MAKER_OTHER), SHMC_A_TREE);
    ck_assert_int_eq(pick_maker(g, 2, 4097, 0, SHMC_MAKER_INTEL), SHMC_A_TREE);
    /* The steps kept for a communicator say the same. */
    static union {
        struct shmc__steps s;
        char room[sizeof(struct shmc__steps) + SHMC_RULES_MAX * sizeof(struct shmc__step)];
    } u;
    struct shmc__where w = {2, 1, 0, 1, 0, SHMC_MAKER_AMD};
    shmc__steps_build(&r, &w, &u.s);
    ck_assert_int_eq(shmc__steps_pick(&u.s, g, 4096), SHMC_A_DIRECT);
    ck_assert_int_eq(shmc__steps_pick(&u.s, g, 4097), SHMC_A_TREE);
    /* The maker is part of what ranks agree on. */
    struct shmc__rules a = r;
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, "gather 2 <=4k any any amd:any host ring\n"
                                               "gather 2 <=4k any any amd:near host shm\n"
                                               "gather 2 <=4k any any amd:far host direct\n"
                                               "gather any any any any any any tree\n"),
                     SHMC_OK);
    static const uint8_t none[SHMC_C_COUNT];
    ck_assert(shmc__rules_digest(&a, none, 200, 0, 0) != shmc__rules_digest(&r, none, 200, 0, 0));
    ck_assert(shmc__rules_digest(&r, none, 200, SHMC_MAKER_AMD, 0) !=
              shmc__rules_digest(&r, none, 200, SHMC_MAKER_INTEL, 0));
    /* And the family, and which family a rule names. */
    ck_assert(shmc__rules_digest(&r, none, 200, SHMC_MAKER_AMD, 25) !=
              shmc__rules_digest(&r, none, 200, SHMC_MAKER_AMD, 26));
    a = r;
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, "gather 2 <=4k any any amd25:any host ring\n"
                                               "gather 2 <=4k any any amd:near host shm\n"
                                               "gather 2 <=4k any any amd:far host direct\n"
                                               "gather any any any any any any tree\n"),
                     SHMC_OK);
    struct shmc__rules b = r;
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, "gather 2 <=4k any any amd26:any host ring\n"
                                               "gather 2 <=4k any any amd:near host shm\n"
                                               "gather 2 <=4k any any amd:far host direct\n"
                                               "gather any any any any any any tree\n"),
                     SHMC_OK);
    ck_assert(shmc__rules_digest(&b, none, 200, 0, 0) != shmc__rules_digest(&r, none, 200, 0, 0));
    ck_assert(shmc__rules_digest(&a, none, 200, 0, 0) != shmc__rules_digest(&r, none, 200, 0, 0));
    /* The shipped rules: on Intel's CPUs the 2-rank calls take messages and single copies
     * in both states, elsewhere the rules for any maker; the world's 2-rank reduce-scatter
     * takes shared memory up to 2 KiB, and on AMD's CPUs up to 32 KiB in both states (one
     * of the world's rounds); the world's 2-rank all-gather and all-to-all far go through
     * shared memory up to 8 KiB but on Intel's; beyond 2 ranks no rule names a maker. */
    ck_assert_int_eq(shmc__rules_parse(shmc__rules_shipped, "shipped", &r), SHMC_OK);
    static const struct {
        int c, n;
        size_t bytes;
        int far, maker, algo;
    } by_maker[] = {
        {SHMC_C_ALLREDUCE, 2, 1 << 20, 0, SHMC_MAKER_INTEL, SHMC_A_DIRECT},
        {SHMC_C_ALLREDUCE, 2, 1 << 20, 1, SHMC_MAKER_INTEL, SHMC_A_DIRECT},
        {SHMC_C_ALLREDUCE, 2, 16384, 0, SHMC_MAKER_INTEL, SHMC_A_RD},
        {SHMC_C_ALLREDUCE, 2, 1 << 20, 0, SHMC_MAKER_AMD, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 2, 1 << 20, 1, SHMC_MAKER_AMD, SHMC_A_STREAM},
        {SHMC_C_BROADCAST, 2, 65536, 0, SHMC_MAKER_INTEL, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, 16384, 0, SHMC_MAKER_INTEL, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 2, 16384, 0, SHMC_MAKER_AMD, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 262144, 0, SHMC_MAKER_INTEL, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 1 << 20, 1, SHMC_MAKER_INTEL, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 16384, 0, SHMC_MAKER_INTEL, SHMC_A_TREE},
        {SHMC_C_REDUCE, 2, 8192, 0, SHMC_MAKER_AMD, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2, 16384, 0, SHMC_MAKER_AMD, SHMC_A_TREE},
        {SHMC_C_ALLGATHER, 2, 1 << 20, 0, SHMC_MAKER_INTEL, SHMC_A_RING},
        {SHMC_C_ALLGATHER, 2, 2048, 0, SHMC_MAKER_INTEL, SHMC_A_SHM},
        {SHMC_C_ALLGATHER, 2, 2048, 1, SHMC_MAKER_INTEL, SHMC_A_SHM},
        {SHMC_C_ALLGATHER, 2, 2049, 0, SHMC_MAKER_INTEL, SHMC_A_RING},
        {SHMC_C_ALLGATHER, 2, 16384, 0, SHMC_MAKER_INTEL, SHMC_A_RING},
        {SHMC_C_ALLGATHER, 2, 16384, 0, SHMC_MAKER_OTHER, SHMC_A_SHM},
        {SHMC_C_REDUCE_SCATTER, 2, 32768, 0, SHMC_MAKER_AMD, SHMC_A_SHM},
        {SHMC_C_REDUCE_SCATTER, 2, 32769, 0, SHMC_MAKER_AMD, SHMC_A_RING},
        {SHMC_C_REDUCE_SCATTER, 2, 32768, 1, SHMC_MAKER_AMD, SHMC_A_SHM},
        {SHMC_C_REDUCE_SCATTER, 2, 32769, 1, SHMC_MAKER_AMD, SHMC_A_RING},
        {SHMC_C_REDUCE_SCATTER, 2, 4096, 1, SHMC_MAKER_OTHER, SHMC_A_RING},
        {SHMC_C_ALLGATHER, 2, 65536, 1, SHMC_MAKER_AMD, SHMC_A_SHM},
        {SHMC_C_ALLGATHER, 2, 65537, 1, SHMC_MAKER_AMD, SHMC_A_RING},
        {SHMC_C_ALLTOALL, 2, 8192, 1, SHMC_MAKER_OTHER, SHMC_A_SHM},
        {SHMC_C_ALLTOALL, 2, 8193, 1, SHMC_MAKER_OTHER, SHMC_A_RING},
        {SHMC_C_ALLTOALL, 2, 8192, 1, SHMC_MAKER_INTEL, SHMC_A_RING},
        {SHMC_C_REDUCE_SCATTER, 2, 4096, 0, SHMC_MAKER_INTEL, SHMC_A_RING},
        {SHMC_C_ALLREDUCE, 4, 1 << 20, 0, SHMC_MAKER_INTEL, SHMC_A_STAGE},
    };
    for (size_t i = 0; i < sizeof by_maker / sizeof by_maker[0]; i++)
        ck_assert_msg(pick_maker(by_maker[i].c, by_maker[i].n, by_maker[i].bytes, by_maker[i].far,
                                 by_maker[i].maker) == by_maker[i].algo,
                      "row %zu: %s n=%d %zu bytes", i, shmc__coll_names[by_maker[i].c],
                      by_maker[i].n, by_maker[i].bytes);
}
END_TEST

/* A rule for one family of a maker's CPUs applies on that family's alone: the same maker's
 * other families, and a family not known (0), take the next rule. The shipped rules name
 * the family of the AMD EPYC they were measured on (family 26) for its 2-rank rules near:
 * the broadcast by single messages up to 1 MiB, the reduce's tree up to 8 KiB, the world
 * all-reduce's shared memory up to 16 KiB and its ring up to 64 KiB; far, the world
 * all-reduce's shared memory up to 32 KiB; other AMD CPUs keep the maker's rules. */
START_TEST(test_rules_family)
{
    ck_assert_int_eq(parse_with(SHMC_C_GATHER, "gather 2 <=4k any any amd26:near host ring\n"
                                               "gather 2 <=4k any any amd:any host shm\n"
                                               "gather any any any any any any tree\n"),
                     SHMC_OK);
    int g = SHMC_C_GATHER;
    ck_assert_int_eq(pick_family(g, 2, 4096, 0, SHMC_MAKER_AMD, 26), SHMC_A_RING);
    ck_assert_int_eq(pick_family(g, 2, 4096, 1, SHMC_MAKER_AMD, 26), SHMC_A_SHM);
    ck_assert_int_eq(pick_family(g, 2, 4096, 0, SHMC_MAKER_AMD, 25), SHMC_A_SHM);
    ck_assert_int_eq(pick_family(g, 2, 4096, 0, SHMC_MAKER_AMD, 0), SHMC_A_SHM);
    ck_assert_int_eq(pick_family(g, 2, 4096, 0, SHMC_MAKER_INTEL, 26), SHMC_A_TREE);
    ck_assert_int_eq(pick_family(g, 2, 4097, 0, SHMC_MAKER_AMD, 26), SHMC_A_TREE);
    ck_assert_int_eq(shmc__rules_parse(shmc__rules_shipped, "shipped", &r), SHMC_OK);
    static const struct {
        int c;
        size_t bytes;
        int far;
        unsigned family;
        int algo;
    } rows[] = {
        {SHMC_C_BROADCAST, 16384, 0, 26, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, 16384, 0, 25, SHMC_A_SHM},
        {SHMC_C_BROADCAST, 1 << 20, 0, 26, SHMC_A_DIRECT},
        {SHMC_C_BROADCAST, (1 << 20) + 1, 0, 26, SHMC_A_TREE},
        {SHMC_C_BROADCAST, 65537, 1, 26, SHMC_A_TREE},
        {SHMC_C_REDUCE, 8192, 0, 26, SHMC_A_TREE},
        {SHMC_C_REDUCE, 8192, 0, 25, SHMC_A_SHM},
        {SHMC_C_REDUCE, 2048, 1, 26, SHMC_A_SHM},
        {SHMC_C_ALLREDUCE, 4096, 0, 26, SHMC_A_SHM},
        {SHMC_C_ALLREDUCE, 4096, 0, 25, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 16385, 0, 26, SHMC_A_RING},
        {SHMC_C_ALLREDUCE, 65536, 0, 26, SHMC_A_RING},
        {SHMC_C_ALLREDUCE, 65536, 0, 25, SHMC_A_RD},
        {SHMC_C_ALLREDUCE, 65537, 0, 26, SHMC_A_STAGE},
        {SHMC_C_ALLREDUCE, 4096, 1, 26, SHMC_A_SHM},
        {SHMC_C_ALLREDUCE, 32768, 1, 26, SHMC_A_SHM},
        {SHMC_C_ALLREDUCE, 32769, 1, 26, SHMC_A_STREAM},
        {SHMC_C_ALLREDUCE, 4096, 1, 25, SHMC_A_STREAM},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        ck_assert_msg(pick_family(rows[i].c, 2, rows[i].bytes, rows[i].far, SHMC_MAKER_AMD,
                                  rows[i].family) == rows[i].algo,
                      "row %zu: %s %zu bytes, family %u", i, shmc__coll_names[rows[i].c],
                      rows[i].bytes, rows[i].family);
    /* Beyond 2 ranks, and on the other communicators' all-reduce, no family's rule. */
    ck_assert_int_eq(pick_family(SHMC_C_BROADCAST, 4, 16384, 0, SHMC_MAKER_AMD, 26),
                     pick_family(SHMC_C_BROADCAST, 4, 16384, 0, SHMC_MAKER_AMD, 25));
}
END_TEST

/* The steps built for each size are the rules' first match, for every call. */
START_TEST(test_rules_steps)
{
    ck_assert_int_eq(shmc__rules_parse(shmc__rules_shipped, "shipped", &r), SHMC_OK);
    static char room[sizeof(struct shmc__steps) + SHMC_RULES_MAX * sizeof(struct shmc__step)];
    struct shmc__steps *s = (struct shmc__steps *)(void *)room;
    /* (w: world, shared, far, the maker; then the family: none, or the one the rules name) */
    for (int w = 0; w < 2 * 8 * (SHMC_MAKER_INTEL + 1); w++)
        for (int n = 1; n <= 300; n++) {
            struct shmc__where at = {n,      w & 1, (w >> 1) & 1, (w >> 2) & 1,
                                     0,      (w >> 3) % (SHMC_MAKER_INTEL + 1),
                                     w >= 8 * (SHMC_MAKER_INTEL + 1) ? 26u : 0u};
            shmc__steps_build(&r, &at, s);
            /* each collective's algorithms: those of its steps, every one */
            for (int c = 0; c < SHMC_C_COUNT; c++) {
                uint32_t seen = 0;
                for (const struct shmc__step *t = &s->step[s->first[c]];; t++) {
                    seen |= (uint32_t)1 << t->algo;
                    if (t->bound == SIZE_MAX)
                        break;
                }
                if (s->ever[c] != seen)
                    ck_abort_msg("%s n=%d where=%d: ever %#x, steps %#x", shmc__coll_names[c], n, w,
                                 s->ever[c], seen);
                for (int a = SHMC_A_AUTO + 1; a < SHMC_A_COUNT; a++)
                    if (shmc__steps_ever(s, c, a) != (int)(seen >> a & 1))
                        ck_abort_msg("%s n=%d where=%d: ever of %s", shmc__coll_names[c], n, w,
                                     shmc__algo_names[a]);
            }
            for (int c = 0; c < SHMC_C_COUNT; c++)
                for (int e = 0; e < 40; e++)
                    for (int d = -1; d <= 1; d++) {
                        size_t b = ((size_t)1 << e) + (size_t)d;
                        /* (a passing ck_assert writes to check's pipe: millions of
                         * them took longer than check's 4 s on some machines) */
                        if (shmc__steps_pick(s, c, b) != shmc__rules_pick(&r, c, &at, b))
                            ck_abort_msg("%s n=%d where=%d %zu bytes", shmc__coll_names[c], n,
                                         w, b);
                    }
        }
}
END_TEST

/* docs/collectives.md shows the rules as the file has them, comments left out. */
START_TEST(test_rules_docs)
{
    static char doc[1 << 17], want[1 << 14];
    char path[512];
    snprintf(path, sizeof path, "%s/docs/collectives.md", SHMC_SRC_DIR);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "cannot read %s", path);
    doc[fread(doc, 1, sizeof doc - 1, f)] = '\0';
    fclose(f);
    const char *b = strstr(doc, "<!-- the rules of lib/coll/dispatch.rules");
    const char *e = strstr(doc, "\n<!-- end of the rules -->");
    ck_assert_msg(b && e && e > b, "docs/collectives.md lacks the rules' marker lines");
    b = strstr(b, "\n```\n");
    ck_assert_msg(b && b < e, "the rules in docs/collectives.md are not a code block");
    b += 5;
    /* The file's lines without comments, trailing blanks and empty lines. */
    size_t k = 0;
    for (const char *p = shmc__rules_shipped; *p;) {
        size_t len = strcspn(p, "\n"), keep = strcspn(p, "#\n");
        while (keep && (p[keep - 1] == ' ' || p[keep - 1] == '\t'))
            keep--;
        if (keep)
            k += (size_t)snprintf(want + k, sizeof want - k, "%.*s\n", (int)keep, p);
        p += len + (p[len] ? 1 : 0);
    }
    k += (size_t)snprintf(want + k, sizeof want - k, "```");
    ck_assert_msg((size_t)(e - b) == k && !strncmp(b, want, k),
                  "the rules in docs/collectives.md are not lib/coll/dispatch.rules': run make "
                  "docs-config");
}
END_TEST

static Suite *rules_suite(void)
{
    Suite *s = suite_create("rules");
    TCase *t = tcase_create("rules");
    tcase_add_test(t, test_rules_shipped);
    tcase_add_test(t, test_rules_first_match);
    tcase_add_test(t, test_rules_faults);
    tcase_add_test(t, test_rules_steps);
    tcase_add_test(t, test_rules_maker);
    tcase_add_test(t, test_rules_family);
    tcase_add_test(t, test_rules_docs);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(rules_suite());
}
