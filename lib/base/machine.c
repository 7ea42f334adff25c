/*
 * The machine's description, and what its first two CPUs cost each other: the cache
 * line's round trip, and a single copy against a plain one (machine.h).
 */
#include "base/machine.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/atomics.h"
#include "base/clock.h"
#include "base/config.h"

size_t shmc__cache_l2(void)
{
#ifdef _SC_LEVEL2_CACHE_SIZE /* (glibc's) */
    long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? (size_t)v : 0;
#else
    return 0;
#endif
}

int shmc__job_cpus(void)
{
    const char *s = getenv("SHMC_CPUS");
    if (s && atoi(s) > 0)
        return atoi(s);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int shmc__cpuinfo_at(const char *path, const char *key, char *out, size_t len)
{
    char line[512];
    int found = 0;
    FILE *f = fopen(path, "r");
    while (f && !found && fgets(line, sizeof line, f)) {
        const char *v = strchr(line, ':');
        size_t k = strlen(key);
        /* (the key whole: "model" is not "model name") */
        if (strncmp(line, key, k) != 0 || !v || line + k + strspn(line + k, " \t") != v)
            continue;
        v += 1 + strspn(v + 1, " \t");
        snprintf(out, len, "%.*s", (int)strcspn(v, "\n"), v);
        found = 1;
    }
    if (f)
        fclose(f);
    return found;
}

static int cpuinfo(const char *key, char *out, size_t len)
{
    return shmc__cpuinfo_at("/proc/cpuinfo", key, out, len);
}

void shmc__machine_desc(char *out, size_t len)
{
    char name[256], family[32], model[32], kind[96] = "";
    if (!cpuinfo("model name", name, sizeof name))
        snprintf(name, sizeof name, "%s", "unknown CPU");
    /* A hypervisor may name CPUs of different generations alike ("AMD EPYC"): the family
     * and model tell them apart, as a tuning file must. */
    if (cpuinfo("cpu family", family, sizeof family) && cpuinfo("model", model, sizeof model))
        snprintf(kind, sizeof kind, " (family %s, model %s)", family, model);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(out, len, "%s%s, %ld CPU%s", name, kind, n, n == 1 ? "" : "s");
}

int shmc__cpu_maker(int assumed)
{
    if (assumed >= SHMC_MAKER_OTHER && assumed <= SHMC_MAKER_INTEL)
        return assumed;
    char vendor[64];
    if (!cpuinfo("vendor_id", vendor, sizeof vendor))
        return SHMC_MAKER_OTHER;
    return !strcmp(vendor, "AuthenticAMD")   ? SHMC_MAKER_AMD
           : !strcmp(vendor, "GenuineIntel") ? SHMC_MAKER_INTEL
                                             : SHMC_MAKER_OTHER;
}

unsigned shmc__cpu_family(unsigned assumed)
{
    if (assumed != ~0u)
        return assumed;
    char family[64];
    if (!cpuinfo("cpu family", family, sizeof family))
        return 0;
    long f = strtol(family, NULL, 10);
    return f >= 1 && f <= 255 ? (unsigned)f : 0;
}

const char *shmc__cpu_maker_name(int maker)
{
    return maker == SHMC_MAKER_AMD ? "amd" : maker == SHMC_MAKER_INTEL ? "intel" : "other";
}

/* ---- the pair of CPUs: a line's round trip, then the copies -------------------------- */

#define RTT_BATCHES 16
#define RTT_PER_BATCH 64
#define RTT_BUDGET_NS 2000000 /* wall time for one try's round trips */
#define COPY_BUDGET_NS 1000000 /* and for its copies after them (far: about 0.1 ms) */
#define RTT_TRIES 4
/* Wall time after which no further try starts. A try that fails does so because another
 * task holds one of the two CPUs, and it overruns its budget by the scheduler's time
 * slice; tries made at once after it failed as well, so that four of them lengthened a
 * job's start on a busy machine several times over, to learn nothing. */
#define RTT_TOTAL_NS 3000000
/* Copies timed of each kind: the fastest counts, as the round trip's fastest batch does. */
#define COPY_TRIES 4
/* The first value of the copies' phase, after every batch's round trips: from it the echo
 * writes the buffer before it answers. */
#define COPY_FIRST_V (1u + 2u * RTT_BATCHES * RTT_PER_BATCH)

struct rtt {
    /* The line the two threads take turns on: odd values from the timer, even ones from
     * the echo; release-acquire on it publishes nothing else. Its own line, so that the
     * words below do not share it. */
    SHMC_ALIGNED_LINE shmc_atomic_u64 line;
    SHMC_ALIGNED_LINE shmc_atomic_u32 ready; /* the echo runs on its CPU (release-acquire) */
    shmc_atomic_u32 go;                      /* the timer runs on its CPU (release-acquire) */
    shmc_atomic_u32 stop; /* the timer is done, or one side failed (relaxed: a flag alone) */
    int cpu[2];
    uint64_t deadline;
    uint64_t best; /* the timer's fastest batch, in ns per round trip; 0 if none */
    /* The copies' phase (values from COPY_FIRST_V): the echo writes src before it answers
     * each value (its answer's release publishes src), and the timer copies src into dst
     * once it has acquired the answer. */
    uint8_t *src, *dst;
    uint64_t best_copy, best_sc; /* the fastest of each kind, ns; 0 if none */
};

static int pin_self(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* Waits for line to read want, giving up at the deadline or when told to stop. */
static int await_value(struct rtt *m, uint64_t want)
{
    for (unsigned spins = 1;; spins++) {
        if (shmc__load_acquire64(&m->line) == want)
            return 0; /* (no pause between reads: as build/bench/line_rtt measures) */
        if (!(spins & 255) &&
            (shmc__load_relaxed32(&m->stop) || shmc__now_ns() > m->deadline))
            return -1;
    }
}

/* Waits for flag to be set, yielding the CPU meanwhile: the thread that is to set it, or
 * the one making the threads, may have to run on this CPU first. */
static int await_flag(struct rtt *m, shmc_atomic_u32 *flag)
{
    while (!shmc__load_acquire32(flag)) {
        if (shmc__load_relaxed32(&m->stop) || shmc__now_ns() > m->deadline)
            return -1;
        sched_yield();
    }
    return 0;
}

/* The echo spins only once the timer runs on its own CPU: spinning before, it held the
 * CPU that the making thread (or the timer on its way to its CPU) needed for a
 * scheduler's time slice, and the measurement took milliseconds instead of a fraction
 * of one (or ran out of its budget and was tried again). */
static void *echo(void *arg)
{
    struct rtt *m = arg;
    if (pin_self(m->cpu[1]) != 0) {
        shmc__store_relaxed32(&m->stop, 1); /* (the timer need not wait out its budget) */
        return NULL;
    }
    shmc__store_release32(&m->ready, 1);
    if (await_flag(m, &m->go) != 0)
        return NULL;
    for (uint64_t v = 1;; v += 2) {
        if (await_value(m, v) != 0)
            return NULL;
        if (v >= COPY_FIRST_V && m->src)
            memset(m->src, (int)(v >> 1), SHMC_PAIR_COPY_BYTES);
        shmc__store_release64(&m->line, v + 1);
    }
}

/* The round trip's batches; the next value to store, or 0 where a wait failed. */
static uint64_t time_batches(struct rtt *m)
{
    if (pin_self(m->cpu[0]) != 0 || await_flag(m, &m->ready) != 0)
        return 0;
    shmc__store_release32(&m->go, 1);
    uint64_t v = 1;
    for (int b = 0; b < RTT_BATCHES; b++) {
        uint64_t t0 = shmc__now_ns();
        for (int k = 0; k < RTT_PER_BATCH; k++, v += 2) {
            shmc__store_release64(&m->line, v);
            if (await_value(m, v + 1) != 0)
                return 0;
        }
        uint64_t per = (shmc__now_ns() - t0) / RTT_PER_BATCH;
        if (!m->best || per < m->best)
            m->best = per ? per : 1;
    }
    return v;
}

/* The copies, in turn: each of src as the echo has just written it, so that its lines
 * come from the other CPU's cache, as a message's do. */
static void time_copies(struct rtt *m, uint64_t v)
{
    for (int k = 0; k < 2 * COPY_TRIES; k++, v += 2) {
        shmc__store_release64(&m->line, v);
        if (await_value(m, v + 1) != 0)
            return;
        uint64_t t0 = shmc__now_ns();
        if (k & 1) {
            struct iovec l = {.iov_base = m->dst, .iov_len = SHMC_PAIR_COPY_BYTES};
            struct iovec r = {.iov_base = m->src, .iov_len = SHMC_PAIR_COPY_BYTES};
            if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)SHMC_PAIR_COPY_BYTES)
                return; /* (best_sc stays 0: not known) */
        } else {
            memcpy(m->dst, m->src, SHMC_PAIR_COPY_BYTES);
        }
        uint64_t d = shmc__now_ns() - t0, *best = k & 1 ? &m->best_sc : &m->best_copy;
        d = d ? d : 1;
        if (!*best || d < *best)
            *best = d;
    }
}

/* The timer stops the echo itself as it ends, from its own CPU: the making thread, which
 * stopped it before, may be waiting for the echo's CPU, which the echo spun on until its
 * budget ran out. */
static void *timer(void *arg)
{
    struct rtt *m = arg;
    uint64_t v = time_batches(m);
    if (v && m->src)
        time_copies(m, v);
    shmc__store_relaxed32(&m->stop, 1);
    return NULL;
}

/* One try: out's figures, 0 each where none ended within the budget. */
static void pair_once(struct shmc__pair_cost *out)
{
    memset(out, 0, sizeof *out);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        return;
    static struct rtt m; /* (aligned; one measurement at a time) */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    memset(&m, 0, sizeof m);
    for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; c++)
        if (CPU_ISSET(c, &set))
            m.cpu[k++] = c;
    /* Touched here, so that no copy timed takes a page fault. (No memory: no copies.) */
    uint8_t *bufs = aligned_alloc(4096, 2 * SHMC_PAIR_COPY_BYTES);
    if (bufs) {
        memset(bufs, 0, 2 * SHMC_PAIR_COPY_BYTES);
        m.src = bufs;
        m.dst = bufs + SHMC_PAIR_COPY_BYTES;
    }
    m.deadline = shmc__now_ns() + RTT_BUDGET_NS + COPY_BUDGET_NS;
    pthread_t t[2];
    int made = 0;
    if (pthread_create(&t[0], NULL, echo, &m) == 0) {
        made = 1;
        if (pthread_create(&t[1], NULL, timer, &m) == 0) {
            made = 2;
            pthread_join(t[1], NULL);
        }
    }
    shmc__store_relaxed32(&m.stop, 1);
    if (made)
        pthread_join(t[0], NULL);
    if (made == 2) {
        out->rtt_ns = (unsigned)m.best;
        if (m.best_copy && m.best_sc) {
            uint64_t pct = m.best_sc * 100 / m.best_copy;
            out->sc_pct = (unsigned)(pct ? (pct < 1000000 ? pct : 1000000) : 1);
        }
    }
    pthread_mutex_unlock(&lock);
    free(bufs);
}

void shmc__pair_measure(struct shmc__pair_cost *out)
{
    /* A try fails now and then where a vCPU is held back for a moment: another, while
     * time is left. */
    uint64_t end = shmc__now_ns() + RTT_TOTAL_NS;
    memset(out, 0, sizeof *out);
    for (int k = 0; k < RTT_TRIES && !out->rtt_ns && (k == 0 || shmc__now_ns() < end); k++)
        pair_once(out);
}

void shmc__pair_cost(unsigned assumed_rtt_ns, unsigned assumed_sc_pct, unsigned nranks,
                     struct shmc__pair_cost *out)
{
    memset(out, 0, sizeof *out);
    if (nranks >= 2 && (!assumed_rtt_ns || !assumed_sc_pct))
        shmc__pair_measure(out);
    if (assumed_rtt_ns)
        out->rtt_ns = assumed_rtt_ns;
    if (assumed_sc_pct)
        out->sc_pct = assumed_sc_pct;
}

/* Where single copy starts, where SHMC_SINGLE_COPY_MIN leaves it to the library. The
 * kernel's copy (process_vm_readv/writev) pins each page and copies it alone; how much
 * that costs against a copy in user space is the kernel's and the hypervisor's doing, not
 * the CPU's (shmc__pair_measure measures it as the job begins). Where it is several times
 * a plain copy, a message streamed through the mailbox (both ranks copying at once, in
 * pieces) beat it up to 8 MiB near and about 1 MiB far, where every line the receiver
 * reads costs a slow round trip; beyond, two copies stream out of the cache where the
 * single copy makes one (docs/design.md, "Message protocols", has the figures). So the
 * measurement decides: a single copy costing at least twice a plain copy (the mailbox
 * crosses the cores once too, its copy into the ring staying in this core's cache) makes
 * messages below SHMC_SC_SLOW_MIN stream, below SHMC_SC_SLOW_MIN_FAR where the job began
 * far. */
size_t shmc__single_copy_min_auto(unsigned sc_pct, int far)
{
    return sc_pct < SHMC_SC_SLOW_PCT ? 0
           : far                     ? (size_t)SHMC_SC_SLOW_MIN_FAR
                                     : (size_t)SHMC_SC_SLOW_MIN;
}
