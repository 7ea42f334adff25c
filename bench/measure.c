/*
 * The measurements of `make bench-compare`, OSU micro-benchmark style, written once and
 * run on every runtime through bench/rt.h: linked with rt_shmcomm.c it is
 * build/bench/measure; compiled with mpicc.openmpi or mpicc.mpich and rt_mpi.c it is
 * build/bench/measure-openmpi or measure-mpich.
 *
 *   latency  ping-pong between ranks 0 and 1, blocking send and receive: half the round
 *            trip (osu_latency)
 *   bw       rank 0 posts a window of non-blocking sends, rank 1 the receives, then a
 *            4-byte ack: bytes per second one way (osu_bw)
 *   bibw     both ranks post a window of receives and of sends: bytes per second both
 *            ways together (osu_bibw)
 *   relay    the ping-pong, each rank sending back the buffer it has just received into:
 *            half the round trip. osu_latency sends a buffer that nobody writes, whose
 *            lines stay cached on both sides after a single copy has read it once; here
 *            the data sent was just written, as a program's own results are. Not in
 *            p2p or all: ask for it by name.
 *   <coll>   one collective: seconds per call on the slowest rank (osu_allreduce etc.)
 *
 * Each figure is the median of --samples samples after two warm-up samples. A sample
 * times `iters` back-to-back operations after a barrier; iters is chosen from a run of
 * up to 1000 of them timed first (about a tenth of a sample by the time of one), so that
 * a sample lasts about --sample-ms, and agreed by all ranks (the slowest rank's
 * estimate). For collectives a sample's value is the slowest rank's time
 * (a MAX all-reduce outside the timed region).
 *
 * Sizes: p2p tests use powers of two from --min to --max; collectives use powers of four
 * from 4 bytes. --sizes LIST replaces both. A collective's size is each rank's whole
 * buffer: the vector of broadcast, reduce and all-reduce, the n blocks of gather,
 * all-gather, scatter, reduce-scatter and all-to-all. Reductions are float32 SUM, root 0.
 * p2p tests use ranks 0 and 1; any other ranks only take part in the barriers.
 *
 * Output, from rank 0, one CSV row per figure: runtime,metric,ranks,bytes,value
 * (metrics latency_us, bw_MBps, bibw_MBps, relay_us, <collective>_us).
 *
 * --per-sample: a row per sample instead, runtime,metric,ranks,bytes,value,before,after,
 * where before and after are the round trips of a cache line between ranks 0 and 1 (in
 * ns, pair_line.h) just before and just after the sample: on a host that moves the two
 * vCPUs near each other and apart every few seconds, each sample's state of the machine
 * (bench/states.py --by-sample tells them apart).
 *
 * --machine: first a line "# machine STATE RTT", the state of the machine (near, far) the
 * runtime took its settings by as the job began and the round trip it measured then (ns),
 * where it chooses by one (shmcomm: its rules and eager limit); nothing for an MPI.
 */
#include "pair_line.h"
#include "rt.h"
#include "timing.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char *const coll_names[RT_COLL_COUNT] = {
    "barrier",   "broadcast", "reduce",         "allreduce", "gather",
    "allgather", "scatter",   "reduce_scatter", "alltoall",
};

enum { T_LATENCY = RT_COLL_COUNT, T_BW, T_BIBW, T_RELAY, T_COUNT };

#define MAX_SIZES 64
#define MAX_SAMPLES 64
#define WINDOW 64                 /* osu_bw's window */
#define WINDOW_BYTES (256u << 20) /* but at most this much in flight per window */

static struct {
    size_t min, max;
    size_t sizes[MAX_SIZES];
    int nsizes; /* 0: the default sweeps */
    int samples;
    double sample_s;
    int header;
    int per_sample;
    int machine;
    int tests[T_COUNT];
} opt = {.min = 1, .max = 64u << 20, .samples = 11, .sample_s = 0.005};

static int me, nranks;
static char *sbuf, *rbuf;

/* --per-sample: the line ranks 0 and 1 time their round trip over (pair_line.h), in a
 * page of shared memory that rank 0 makes and rank 1 maps, its name unlinked as soon as
 * both have it, so that nothing outlives the run. */
static struct {
    _Atomic uint64_t *line;
    uint64_t next;
} pair;

static void pair_setup(void)
{
    char name[64];
    int fd = -1, bad = 0;
    snprintf(name, sizeof name, "/shmc-measure-rtt-%d", rt_bcast_int(me == 0 ? (int)getpid() : 0));
    if (me == 0) {
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        bad = fd < 0 || ftruncate(fd, 4096) != 0;
    }
    if (rt_max(bad) > 0) {
        if (me == 0 && fd >= 0)
            shm_unlink(name);
        fprintf(stderr, "measure: --per-sample: no shared page %s\n", name);
        exit(1);
    }
    if (me == 1)
        bad = (fd = shm_open(name, O_RDWR, 0)) < 0;
    rt_coll(RT_BARRIER, NULL, NULL, 0);
    if (me == 0)
        shm_unlink(name);
    void *m = MAP_FAILED;
    if (fd >= 0) {
        m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        bad |= m == MAP_FAILED;
    }
    if (rt_max(bad) > 0) {
        fprintf(stderr, "measure: --per-sample: the shared page %s did not map\n", name);
        exit(1);
    }
    pair.line = m == MAP_FAILED ? NULL : (_Atomic uint64_t *)m;
}

/* The round trip now, on rank 0; 0 elsewhere (ranks 0 and 1 take part). */
static unsigned pair_rtt(void)
{
    return me < 2 && pair.line ? pair_line_measure(pair.line, &pair.next, me) : 0;
}

/* ---- one sample of each test: seconds per operation ---- */

/* Ranks 0 and 1 take turns: each receives into rbuf and sends `out`, which is sbuf
 * (latency) or rbuf itself (relay: what it has just received). */
static double pingpong(size_t bytes, int iters, const char *out)
{
    rt_coll(RT_BARRIER, NULL, NULL, 0);
    double t0 = now_s();
    for (int i = 0; i < iters && me < 2; i++) {
        if (me == 0) {
            rt_send(out, bytes, 1, 1);
            rt_recv(rbuf, bytes, 1, 1);
        } else {
            rt_recv(rbuf, bytes, 0, 1);
            rt_send(out, bytes, 0, 1);
        }
    }
    return (now_s() - t0) / iters / 2;
}

static int window(size_t bytes)
{
    size_t w = WINDOW_BYTES / (bytes ? bytes : 1);
    return w < 2 ? 2 : w > WINDOW ? WINDOW : (int)w;
}

/* Seconds per window of `bytes` messages, one way. */
static double stream(size_t bytes, int iters)
{
    int w = window(bytes);
    char ack[4] = {0};
    rt_coll(RT_BARRIER, NULL, NULL, 0);
    double t0 = now_s();
    for (int i = 0; i < iters && me < 2; i++) {
        for (int k = 0; k < w; k++) {
            if (me == 0)
                rt_isend(k, sbuf, bytes, 1, 2);
            else
                rt_irecv(k, rbuf, bytes, 0, 2);
        }
        rt_waitall(w);
        if (me == 0)
            rt_recv(ack, sizeof ack, 1, 3);
        else
            rt_send(ack, sizeof ack, 0, 3);
    }
    return (now_s() - t0) / iters;
}

/* Seconds per window of `bytes` messages each way at once. */
static double bistream(size_t bytes, int iters)
{
    int w = window(bytes);
    rt_coll(RT_BARRIER, NULL, NULL, 0);
    double t0 = now_s();
    for (int i = 0; i < iters && me < 2; i++) {
        int peer = 1 - me;
        for (int k = 0; k < w; k++)
            rt_irecv(k, rbuf, bytes, peer, 4);
        for (int k = 0; k < w; k++)
            rt_isend(w + k, sbuf, bytes, peer, 4);
        rt_waitall(2 * w);
    }
    return (now_s() - t0) / iters;
}

static double coll(int c, size_t bytes, int iters)
{
    size_t count = bytes / 4;
    if (c != RT_BROADCAST && c != RT_REDUCE && c != RT_ALLREDUCE)
        count /= (size_t)nranks;
    if (count == 0)
        count = 1;
    rt_coll(RT_BARRIER, NULL, NULL, 0);
    double t0 = now_s();
    for (int i = 0; i < iters; i++)
        rt_coll((enum rt_coll)c, sbuf, rbuf, count);
    return rt_max((now_s() - t0) / iters);
}

static double one_sample(int test, size_t bytes, int iters)
{
    switch (test) {
    case T_LATENCY:
        return pingpong(bytes, iters, sbuf);
    case T_BW:
        return stream(bytes, iters);
    case T_BIBW:
        return bistream(bytes, iters);
    case T_RELAY:
        return pingpong(bytes, iters, rbuf);
    default:
        return coll(test, bytes, iters);
    }
}

static const char *metric(int test);

/* Seconds per operation as the unit the test's metric names. */
static double in_unit(int test, size_t bytes, double t)
{
    if (test == T_BW)
        return (double)bytes * window(bytes) / t / 1e6;
    if (test == T_BIBW)
        return 2.0 * (double)bytes * window(bytes) / t / 1e6;
    return t * 1e6;
}

/* The figure for one test and size, in the unit its metric names (--per-sample: each
 * sample's row printed, with the round trips around it). */
static double measure(int test, size_t bytes)
{
    /* A sample's calls are counted from the time of a run of them: the time of one call
     * alone counts the work a runtime does at its first call of a kind (setting up the
     * algorithm, its buffers), and gave a sample so few calls that the barrier before it
     * counted in each call's time (the commit that made this has the figures). */
    double t = rt_max(one_sample(test, bytes, 1));
    int first = t > 0 ? (int)(opt.sample_s / 10 / t) : 1000;
    first = rt_bcast_int(first < 1 ? 1 : first > 1000 ? 1000 : first);
    t = rt_max(one_sample(test, bytes, first));
    int iters = t > 0 ? (int)(opt.sample_s / t) : 100000;
    iters = rt_bcast_int(iters < 1 ? 1 : iters > 100000 ? 100000 : iters);
    double v[MAX_SAMPLES];
    for (int s = -2; s < opt.samples; s++) {
        unsigned before = s >= 0 && opt.per_sample ? pair_rtt() : 0;
        double x = one_sample(test, bytes, iters);
        if (s < 0)
            continue;
        v[s] = x;
        if (opt.per_sample) {
            unsigned after = pair_rtt();
            if (me == 0)
                printf("%s,%s,%d,%zu,%.4f,%u,%u\n", rt_name(), metric(test), nranks, bytes,
                       in_unit(test, bytes, x), before, after);
        }
    }
    return in_unit(test, bytes, median(v, opt.samples));
}

static const char *metric(int test)
{
    static char name[40];
    if (test == T_LATENCY)
        return "latency_us";
    if (test == T_BW)
        return "bw_MBps";
    if (test == T_BIBW)
        return "bibw_MBps";
    if (test == T_RELAY)
        return "relay_us";
    snprintf(name, sizeof name, "%s_us", coll_names[test]);
    return name;
}

static void run(int test)
{
    int p2p = test >= T_LATENCY;
    size_t list[MAX_SIZES];
    int n = 0;
    if (opt.nsizes) {
        memcpy(list, opt.sizes, sizeof list);
        n = opt.nsizes;
    } else if (test == RT_BARRIER) {
        list[n++] = 0;
    } else {
        size_t first = p2p ? opt.min : 4;
        for (size_t b = first ? first : 1; b <= opt.max && n < MAX_SIZES; b *= p2p ? 2 : 4)
            list[n++] = b;
    }
    for (int i = 0; i < n; i++) {
        size_t bytes = list[i];
        if (test == RT_BARRIER)
            bytes = 0;
        else if (!p2p && bytes < 4)
            continue;
        if (p2p && bytes == 0 && test != T_LATENCY && test != T_RELAY)
            continue;
        double v = measure(test, bytes);
        if (me == 0 && !opt.per_sample) {
            printf("%s,%s,%d,%zu,%.4f\n", rt_name(), metric(test), nranks, bytes, v);
            fflush(stdout);
        }
        if (test == RT_BARRIER)
            break;
    }
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K')
        v *= 1024;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024;
    return (size_t)v;
}

static int select_tests(char *list)
{
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
        int found = 0;
        for (int c = 0; c < RT_COLL_COUNT; c++)
            if (!strcmp(t, coll_names[c]) || !strcmp(t, "coll") || !strcmp(t, "all"))
                opt.tests[c] = found = 1;
        if (!strcmp(t, "latency") || !strcmp(t, "p2p") || !strcmp(t, "all"))
            opt.tests[T_LATENCY] = found = 1;
        if (!strcmp(t, "bw") || !strcmp(t, "p2p") || !strcmp(t, "all"))
            opt.tests[T_BW] = found = 1;
        if (!strcmp(t, "bibw") || !strcmp(t, "p2p") || !strcmp(t, "all"))
            opt.tests[T_BIBW] = found = 1;
        if (!strcmp(t, "relay"))
            opt.tests[T_RELAY] = found = 1;
        if (!found)
            return -1;
    }
    return 0;
}

static void usage(const char *why)
{
    if (rt_rank() == 0)
        fprintf(stderr,
                "measure: %s\n"
                "usage: measure [--tests LIST] [--min BYTES] [--max BYTES] [--sizes LIST]\n"
                "               [--samples N] [--sample-ms MS] [--header] [--per-sample]\n"
                "               [--machine]\n"
                "  LIST: comma-separated latency,bw,bibw,relay,p2p,coll,all or\n"
                "        collective names\n",
                why);
    rt_finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    me = rt_rank();
    nranks = rt_size();
    int any = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--header")) {
            opt.header = 1;
            continue;
        }
        if (!strcmp(a, "--per-sample")) {
            opt.per_sample = 1;
            continue;
        }
        if (!strcmp(a, "--machine")) {
            opt.machine = 1;
            continue;
        }
        if (!v)
            usage("an option needs a value");
        i++;
        if (!strcmp(a, "--tests")) {
            char copy[256];
            snprintf(copy, sizeof copy, "%s", v);
            if (select_tests(copy) != 0)
                usage("unknown test name");
            any = 1;
        } else if (!strcmp(a, "--min")) {
            opt.min = parse_size(v);
        } else if (!strcmp(a, "--max")) {
            opt.max = parse_size(v);
        } else if (!strcmp(a, "--sizes")) {
            char copy[512];
            snprintf(copy, sizeof copy, "%s", v);
            for (char *t = strtok(copy, ","); t && opt.nsizes < MAX_SIZES; t = strtok(NULL, ","))
                opt.sizes[opt.nsizes++] = parse_size(t);
        } else if (!strcmp(a, "--samples")) {
            opt.samples = atoi(v);
            if (opt.samples < 1 || opt.samples > MAX_SAMPLES)
                usage("--samples must be 1 to 64");
        } else if (!strcmp(a, "--sample-ms")) {
            opt.sample_s = atof(v) / 1000;
            if (!(opt.sample_s > 0))
                usage("--sample-ms must be positive");
        } else {
            usage("unknown option");
        }
    }
    if (!any) {
        char all[] = "all";
        select_tests(all);
    }
    if (opt.machine && me == 0) {
        unsigned rtt;
        const char *state = rt_machine(&rtt);
        if (state)
            printf("# machine %s %u\n", state, rtt);
    }
    size_t top = opt.max;
    for (int i = 0; i < opt.nsizes; i++)
        top = opt.sizes[i] > top ? opt.sizes[i] : top;
    if (top > (1u << 30))
        usage("sizes above 1 GiB are not supported (MPI counts are int)");
    size_t room = top + (size_t)nranks * 64 + 64;
    sbuf = malloc(room);
    rbuf = malloc(room);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "measure: out of memory for two %zu-byte buffers\n", room);
        exit(1);
    }
    memset(sbuf, 1, room); /* touch every page before timing */
    memset(rbuf, 0, room);
    if (nranks < 2)
        for (int t = T_LATENCY; t < T_COUNT; t++)
            opt.tests[t] = 0;
    if (opt.per_sample && nranks >= 2)
        pair_setup();
    if (me == 0 && opt.header)
        printf(opt.per_sample ? "runtime,metric,ranks,bytes,value,before,after\n"
                              : "runtime,metric,ranks,bytes,value\n");
    for (int t = T_LATENCY; t < T_COUNT; t++)
        if (opt.tests[t])
            run(t);
    for (int c = 0; c < RT_COLL_COUNT; c++)
        if (opt.tests[c])
            run(c);
    if (pair.line)
        munmap((void *)pair.line, 4096);
    free(sbuf);
    free(rbuf);
    rt_finalize();
    return 0;
}
