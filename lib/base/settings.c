/*
 * The table of the library's settings and what reads it generically (settings.h).
 */
#include "base/settings.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "base/log.h"
#include "base/machine.h"
#include "shmcomm.h"

/* ---- parsing -------------------------------------------------------------------------- */

int shmc__parse_size(const char *s, size_t *out)
{
    char *end;
    if (!s || !*s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    default:
        return -1;
    }
    if (shift &&
        (strcasecmp(end, "") == 0 || strcasecmp(end, "b") == 0 || strcasecmp(end, "ib") == 0))
        end += strlen(end);
    if (*end != '\0')
        return -1;
    if (shift && v > (ULLONG_MAX >> shift))
        return -1;
    v <<= shift;
    if (v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* word: what else the setting takes (its default's word), for the message; NULL: none. */
static int parse_size(const char *name, const char *s, size_t lo, size_t hi, size_t *out,
                      const char *word)
{
    size_t v;
    if (shmc__parse_size(s, &v) != 0 || v < lo || v > hi) {
        SHMC_ERROR("%s='%s' is not a valid size: use a number of bytes from %zu to %zu, "
                   "optionally with a k, M or G suffix%s%s",
                   name, s, lo, hi, word ? ", or " : "", word ? word : "");
        return SHMC_ERR_ENV;
    }
    *out = v;
    return SHMC_OK;
}

static int parse_uint(const char *name, const char *s, unsigned lo, unsigned hi, unsigned *out,
                      const char *word)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || !isdigit((unsigned char)*s) || v < lo || v > hi) {
        SHMC_ERROR("%s='%s' is not valid: use a whole number from %u to %u%s%s", name, s, lo,
                   hi, word ? ", or " : "", word ? word : "");
        return SHMC_ERR_ENV;
    }
    *out = (unsigned)v;
    return SHMC_OK;
}

/* The word a number's setting documents as its default (auto, read, measured), which it
 * takes too, meaning that default; NULL where the default is a number or a phrase. */
static const char *default_word(const struct shmc__setting *s)
{
    return (s->kind == SHMC_SET_UINT || s->kind == SHMC_SET_SIZE) && s->shown &&
                   !strchr(s->shown, ' ')
               ? s->shown
               : NULL;
}

static const struct shmc__word bools[] = {
    {"1", 1}, {"on", 1},  {"yes", 1}, {"true", 1},  {"auto", 1},
    {"0", 0}, {"off", 0}, {"no", 0},  {"false", 0}, {NULL, 0},
};

static int parse_words(const char *name, const char *s, const struct shmc__word *w,
                       const char *hint, int *out)
{
    for (; w->word; w++) {
        if (!strcasecmp(s, w->word)) {
            *out = w->value;
            return SHMC_OK;
        }
    }
    SHMC_ERROR("%s='%s' is not valid: use %s", name, s, hint);
    return SHMC_ERR_ENV;
}

/* SHMC_ALGO_<NAME>=<algorithm>: the collective from the variable's name; anything unknown
 * is an error that lists what is allowed. */
static int parse_algo(const char *name, const char *s, struct shmc__config *cfg)
{
    int c = -1;
    for (int k = 0; k < SHMC_C_COUNT; k++) {
        char var[64];
        shmc__algo_var(k, var, sizeof var);
        if (!strcmp(name, var))
            c = k;
    }
    if (c < 0) {
        SHMC_ERROR("%s is not a shmcomm variable: SHMC_ALGO_ takes a collective's name "
                   "(docs/configuration.md)",
                   name);
        return SHMC_ERR_ENV;
    }
    char allowed[128] = "";
    int found = -1;
    for (int a = 0; a < SHMC_A_COUNT; a++) {
        if (!shmc__algo_valid(c, a) && a != SHMC_A_AUTO)
            continue;
        if (!strcasecmp(s, shmc__algo_names[a]))
            found = a;
        size_t used = strlen(allowed);
        snprintf(allowed + used, sizeof allowed - used, "%s%s", used ? ", " : "",
                 shmc__algo_names[a]);
    }
    if (found < 0) {
        SHMC_ERROR("%s='%s' is not an algorithm of %s: use one of %s", name, s, shmc__coll_names[c],
                   allowed);
        return SHMC_ERR_ENV;
    }
    cfg->algo[c] = (uint8_t)found;
    return SHMC_OK;
}

/* SHMC_FAKE_DEVICE: a boolean, or "noipc": the stand-in backend's memory then cannot be
 * described to peers, as memory made without IPC support cannot; or "gpus:K": rank r's
 * memory is on stand-in GPU r % K (K from 1 to 256; gpus:1, like plain 1, puts every rank
 * on one GPU). */
static int parse_fake(const char *name, const char *s, struct shmc__config *cfg)
{
    if (!strcasecmp(s, "noipc")) {
        cfg->fake_device = SHMC_FAKE_NOIPC;
        return SHMC_OK;
    }
    if (!strncasecmp(s, "gpus:", 5)) {
        char *end;
        unsigned long k = strtoul(s + 5, &end, 10);
        if (end == s + 5 || *end || k < 1 || k > 256) {
            SHMC_ERROR("%s=%s: after gpus: give a number of GPUs from 1 to 256", name, s);
            return SHMC_ERR_ENV;
        }
        cfg->fake_device = 1;
        cfg->fake_gpus = (unsigned)k;
        return SHMC_OK;
    }
    return parse_words(name, s, bools, "1/on, 0/off, noipc or gpus:K", &cfg->fake_device);
}

/* SHMC_RING_SIZE: a size within its row's range, and a power of two. */
static int parse_ring(const char *name, const char *s, struct shmc__config *cfg)
{
    const struct shmc__setting *row = shmc__setting_find(name);
    size_t v;
    int rc = parse_size(name, s, (size_t)row->lo, (size_t)row->hi, &v, NULL);
    if (rc == SHMC_OK && (v & (v - 1))) {
        SHMC_ERROR("%s=%s is not a power of two (for example 16k, 64k)", name, s);
        rc = SHMC_ERR_ENV;
    }
    if (rc == SHMC_OK)
        cfg->ring_bytes = v;
    return rc;
}

/* ---- the table ------------------------------------------------------------------------ */

static const struct shmc__word checks[] = {
    {"calls", SHMC_CHECK_CALLS},  /* the default: the call with every synchronisation */
    {"rounds", SHMC_CHECK_CALLS}, /* (its name while it was opt-in) */
    {"full", SHMC_CHECK_FULL},
    {"1", SHMC_CHECK_FULL},
    {"on", SHMC_CHECK_FULL},
    {"yes", SHMC_CHECK_FULL},
    {"true", SHMC_CHECK_FULL},
    {"auto", SHMC_CHECK_FULL},
    {"off", 0},
    {"0", 0},
    {"no", 0},
    {"false", 0},
    {NULL, 0},
};

static const struct shmc__word threads[] = {{"serialized", 0}, {"multiple", 1}, {NULL, 0}};

static const struct shmc__word makers[] = {{"read", -1},
                                           {"other", SHMC_MAKER_OTHER},
                                           {"amd", SHMC_MAKER_AMD},
                                           {"intel", SHMC_MAKER_INTEL},
                                           {NULL, 0}};

#define AT(field) offsetof(struct shmc__config, field)
#define AUTO (~0ull)
/* A number macro's digits, for the documentation. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define EAGER_AUTO_SMALL_S STR(SHMC_EAGER_AUTO_SMALL)
#define EAGER_AUTO_S STR(SHMC_EAGER_AUTO)
#define SC_SLOW_MIN_S STR(SHMC_SC_SLOW_MIN)
#define SC_SLOW_PCT_S STR(SHMC_SC_SLOW_PCT)
#define SC_SLOW_MIN_FAR_S STR(SHMC_SC_SLOW_MIN_FAR)
#define LOG_REPEAT_MAX_S STR(SHMC_LOG_REPEAT_MAX)
#define OWN_SHARED(own, shared) STR(own) ", or " STR(shared) " when ranks outnumber CPUs"

/* In the order of docs/configuration.md. SHMC_DEBUG is first: the loader reads it before
 * the others, so that their messages obey it. */
const struct shmc__setting shmc__settings[] = {
    {"SHMC_DEBUG", SHMC_SET_UINT, AT(debug), 0, 4, SHMC_LOG_ERROR, NULL, 1, NULL, NULL, NULL,
     "0 silent, 1 errors, 2 warnings, 3 info, 4 debug (stderr, prefixed with the rank; an "
     "error or warning that a process has said " LOG_REPEAT_MAX_S " times is not said again)"},
    {"SHMC_EAGER_LIMIT", SHMC_SET_SIZE, AT(eager_limit), 0, 1u << 20, AUTO, "auto", 0, NULL, NULL,
     NULL,
     "largest message sent eagerly, in bytes; auto: " EAGER_AUTO_SMALL_S " where each rank "
     "has a CPU of its own on Intel's CPUs or on CPUs found far apart as the job began "
     "(SHMC_FAR_NS), else " EAGER_AUTO_S " (docs/design.md, \"Message protocols\"); at most "
     "an eighth of a mailbox, whatever is asked: 32768 up to 8 ranks, "
     "16384 at 9 to 11, 8192 at 12 to 32, 4096 at 33 to 45, 2048 at 46 to 64, 1024 from 65"},
    {"SHMC_RING_SIZE", SHMC_SET_OWN, AT(ring_bytes), 4096, 1u << 24, 0, "by rank count", 0, NULL,
     "a power of two", parse_ring,
     "bytes of data per mailbox, a power of two; by default 1 MiB up to 4 "
     "ranks, 512 KiB at 5 and 6, 256 KiB at 7 and 8, 128 KiB at 9 to 11, 64 KiB at 12 to 32, "
     "32 KiB at 33 to 45, 16 KiB at 46 to 64, 8 KiB from 65 (docs/design.md, \"Memory "
     "formula\")"},
    {"SHMC_SINGLE_COPY", SHMC_SET_BOOL, AT(single_copy), 0, 1, 1, NULL, 1, NULL, NULL, NULL,
     "0: large messages stream through the mailboxes instead of being copied once with "
     "`process_vm_readv`, and the direct all-reduce combines through shared memory"},
    {"SHMC_SINGLE_COPY_MIN", SHMC_SET_SIZE, AT(single_copy_min), 0, (size_t)1 << 40, AUTO, "auto",
     0, NULL, NULL, NULL,
     "smallest message sent by single copy, and smallest piece that the direct all-reduce "
     "reads or writes in place (it takes `shm` where its pieces are smaller), in bytes (0: "
     "every message above the eager limit); auto: " SC_SLOW_MIN_S " where a single copy "
     "between the job's first two CPUs took at least " SC_SLOW_PCT_S "% of a plain copy's "
     "time as the job began (SHMC_SINGLE_COPY_COST), " SC_SLOW_MIN_FAR_S " where it did and "
     "they ran far apart (SHMC_FAR_NS), else 0 (docs/design.md, \"Message protocols\")"},
    {"SHMC_SPIN", SHMC_SET_UINT, AT(spin), 0, 100000000u, AUTO, "auto", 0, NULL, NULL, NULL,
     "polls before a waiting rank yields the CPU; auto: " OWN_SHARED(SHMC_SPIN_AUTO_OWN,
                                                                     SHMC_SPIN_AUTO_SHARED)},
    {"SHMC_YIELD", SHMC_SET_UINT, AT(yield), 0, 1000000u, AUTO, "auto", 0, NULL, NULL, NULL,
     "`sched_yield` calls before a waiting rank sleeps; auto: " OWN_SHARED(SHMC_YIELD_AUTO_OWN,
                                                                           SHMC_YIELD_AUTO_SHARED)},
    {"SHMC_SPIN_ELSEWHERE", SHMC_SET_UINT, AT(spin_elsewhere_us), 0, 1000000u, AUTO, "auto", 0,
     NULL, NULL, NULL,
     "µs a waiting rank polls instead of yielding while every rank it waits for runs on "
     "another CPU; auto: " OWN_SHARED(SHMC_SPIN_ELSEWHERE_AUTO_OWN_US,
                                      SHMC_SPIN_ELSEWHERE_AUTO_SHARED_US)},
    {"SHMC_SPIN_MORE", SHMC_SET_UINT, AT(spin_more_us), 0, 1000000u, AUTO, "auto", 0, NULL, NULL,
     NULL,
     "longest extra spin, µs: waits after one that slept and was woken soon spin up to this "
     "much longer before yielding (docs/design.md, \"Waiting\"); 0: never; auto: " OWN_SHARED(
         SHMC_SPIN_MORE_AUTO_OWN_US, SHMC_SPIN_MORE_AUTO_SHARED_US)},
    {"SHMC_ATTACH_TIMEOUT", SHMC_SET_UINT, AT(attach_timeout_s), 1, 86400u, 60, NULL, 0, NULL, NULL,
     NULL, "seconds to wait at start-up for the other ranks"},
    {"SHMC_TIMEOUT", SHMC_SET_UINT, AT(hang_timeout_s), 0, 86400u, 0, NULL, 0, NULL, NULL, NULL,
     "seconds (0 off): once every rank still in the job has been blocked in shmcomm that "
     "long, the lowest blocked rank prints the hang report and aborts the job with status "
     "124 (docs/guide.md, \"When a job hangs\")"},
    {"SHMC_CHECK", SHMC_SET_WORDS, AT(check), 0, 0, SHMC_CHECK_CALLS, "calls", 1, checks,
     "calls (the default), 1/full, or 0/off", NULL,
     "`calls`: every collective carries its call (collective, count, dtype, op, root) in the "
     "synchronisation it already makes, so members that made different calls return "
     "`SHMC_ERR_MISMATCH` instead of hanging; `1` (`full`): also agree on the call in a "
     "round of its own before any data moves (names which ranks called what; a small "
     "all-reduce takes about twice as long, a small rooted call several times: "
     "docs/collectives.md); `0` (`off`): neither"},
    {"SHMC_MEMFD", SHMC_SET_BOOL, AT(memfd), 0, 1, 1, NULL, 0, NULL, NULL, NULL,
     "1: the job's memory is an anonymous memory file, never in `/dev/shm`, handed to the "
     "ranks as a descriptor (docs/design.md, \"The arena\"); 0: a name in `/dev/shm`, for "
     "ranks that share `/dev/shm` but not a network namespace"},
    {"SHMC_JOB_ID", SHMC_SET_TEXT, AT(job_id), 0, 0, 0, "from the launcher", 0, NULL, NULL, NULL,
     "the job's key under torchrun, mpirun or mpiexec, when the launcher's own variables do "
     "not tell two jobs apart"},
    {"SHMC_THREADS", SHMC_SET_WORDS, AT(threads), 0, 0, 0, "serialized", 0, threads,
     "serialized or multiple", NULL,
     "`multiple`: run at `SHMC_THREAD_MULTIPLE`, as `shmc_init_thread` asks; `serialized`: "
     "calls must not overlap in time, and one that does gets `SHMC_ERR_THREAD`"},
    {"SHMC_COLL_OVERLAP", SHMC_SET_BOOL, AT(coll_overlap), 0, 1, 1, NULL, 1, NULL, NULL, NULL,
     "at `SHMC_THREAD_MULTIPLE`, 1: this process's threads may run collectives on different "
     "communicators at once, so communicators made from then on run their blocking "
     "collectives on host memory as schedules (docs/collectives.md, \"Threads\"); 0: a "
     "promise that they never do (one collective at a time per process, as the torch "
     "backend's worker runs them), which keeps the shared-memory algorithms on new "
     "communicators"},
    {"SHMC_CUDA", SHMC_SET_BOOL, AT(cuda), 0, 1, 1, NULL, 0, NULL, NULL, NULL,
     "0: treat every buffer as host memory and never ask the CUDA driver"},
    {"SHMC_FAKE_DEVICE", SHMC_SET_OWN, AT(fake_device), 0, 0, 0, NULL, 0, NULL,
     "1/on, 0/off, noipc or gpus:K", parse_fake,
     "1: the stand-in backend that imitates device memory with host memory (tests only); "
     "`noipc`: the same, with memory peers cannot map; `gpus:K`: the same, rank r's memory "
     "on stand-in GPU r % K"},
    {"SHMC_TUNING_FILE", SHMC_SET_TEXT, AT(tuning_file), 0, 0, 0,
     "the user's tuned rules, else the built-in ones", 0, NULL, NULL, NULL,
     "a file of dispatch rules (the format of lib/coll/dispatch.rules; bench/tune.py writes "
     "one from measurements on this machine) that replaces the built-in ones: each call "
     "takes the algorithm of its first matching rule. Unset, the user's tuned "
     "rules (`bench/tune.py --install`; `shmrun --info` names the file) serve where they "
     "exist; `builtin` takes the built-in rules whatever the user's. A fault in either "
     "stops `shmc_init`, naming the line (a user's file that cannot be read is passed over, "
     "saying so); a file whose `# machine:` "
     "line names another machine than this one, or whose `# built-in:` line another digest "
     "of the built-in rules than this library's (both as `shmrun --info` prints them), is "
     "ignored, saying so (at once where SHMC_TUNING_FILE names it, under SHMC_DEBUG=2 for "
     "the user's tuned rules, which every job reads); ranks whose rules differ all fail "
     "`shmc_init` with `SHMC_ERR_MISMATCH`"},
    {"SHMC_FAR_NS", SHMC_SET_UINT, AT(far_ns), 1, 1000000u, 200, NULL, 0, NULL, NULL, NULL,
     "nanoseconds of a cache line's round trip between the job's first two CPUs from which "
     "the dispatch rules' `far` apply instead of `near` (docs/collectives.md): on a shared "
     "host the hypervisor runs the vCPUs near each other in some minutes and far apart in "
     "others (docs/performance.md, \"Machine\"). Measured once, in under a millisecond (a few "
     "where another task holds one of the CPUs, "
     "which then counts as near), by "
     "the process that makes the job's shared memory, so every rank finds the same; "
     "`shmrun --info` prints this machine's now. Every rank must have the same value"},
    {"SHMC_LINE_RTT_NS", SHMC_SET_UINT, AT(line_rtt_ns), 0, 1000000u, 0, "measured", 0, NULL, NULL,
     NULL,
     "the cache line's round trip to assume instead of measuring it (0: measure), read by "
     "the process that makes the job's shared memory (shmrun, or local rank 0)"},
    {"SHMC_SINGLE_COPY_COST", SHMC_SET_UINT, AT(sc_cost_pct), 0, 1000000u, 0, "measured", 0, NULL,
     NULL, NULL,
     "a single copy's time over a plain copy's between the job's first two CPUs, in percent, "
     "to assume instead of measuring it with the round trip (0: measure; `shmrun --info` "
     "prints this machine's now), read by the process that makes the job's shared memory"},
    {"SHMC_CPU_MAKER", SHMC_SET_WORDS, AT(cpu_maker), 0, 0, ~0ull, "read", 0, makers,
     "read, other, amd or intel", NULL,
     "whose CPUs the dispatch rules take these for (their machine column's `amd:` and "
     "`intel:`, docs/collectives.md): `read` from `/proc/cpuinfo`; `other` takes only the "
     "rules for any maker. Every rank must have the same value"},
    {"SHMC_CPU_FAMILY", SHMC_SET_UINT, AT(cpu_family), 0, 255, AUTO, "read", 0, NULL, NULL, NULL,
     "the CPUs' family the dispatch rules take these for (their machine column's `amd26:` "
     "and the like, docs/collectives.md): `read` from `/proc/cpuinfo`'s `cpu family`; 0 "
     "takes only the rules for any family. Every rank must have the same value"},
    {"SHMC_ALGO_<NAME>", SHMC_SET_OWN, AT(algo), 0, 0, 0, "auto", 1, NULL, NULL, parse_algo,
     "force a collective's algorithm (docs/collectives.md); NAME and the algorithms each "
     "takes:"},
};
const size_t shmc__nsettings = sizeof shmc__settings / sizeof *shmc__settings;

/* ---- reading the table ---------------------------------------------------------------- */

const struct shmc__setting *shmc__setting_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < shmc__nsettings; i++) {
        const struct shmc__setting *s = &shmc__settings[i];
        const char *family = strstr(s->name, "<NAME>");
        if (family ? !strncmp(name, s->name, (size_t)(family - s->name)) && name[family - s->name]
                   : !strcmp(name, s->name))
            return s;
    }
    return NULL;
}

void shmc__setting_default(const struct shmc__setting *s, struct shmc__config *cfg)
{
    void *p = (char *)cfg + s->at;
    switch (s->kind) {
    case SHMC_SET_UINT:
        *(unsigned *)p = (unsigned)s->def;
        break;
    case SHMC_SET_SIZE:
        *(size_t *)p = (size_t)s->def;
        break;
    case SHMC_SET_BOOL:
    case SHMC_SET_WORDS:
        *(int *)p = (int)s->def;
        break;
    case SHMC_SET_TEXT:
        *(const char **)p = NULL;
        break;
    case SHMC_SET_OWN:
        break; /* (their defaults are the zeroed configuration's) */
    }
}

int shmc__setting_parse(const struct shmc__setting *s, const char *name, const char *value,
                        struct shmc__config *cfg)
{
    void *p = (char *)cfg + s->at;
    if (!value || !*value)
        return SHMC_OK;
    const char *word = default_word(s);
    if (word && !strcasecmp(value, word)) {
        shmc__setting_default(s, cfg);
        return SHMC_OK;
    }
    switch (s->kind) {
    case SHMC_SET_UINT:
        return parse_uint(name, value, (unsigned)s->lo, (unsigned)s->hi, (unsigned *)p, word);
    case SHMC_SET_SIZE:
        return parse_size(name, value, (size_t)s->lo, (size_t)s->hi, (size_t *)p, word);
    case SHMC_SET_BOOL:
        return parse_words(name, value, bools, "1/on/auto or 0/off", (int *)p);
    case SHMC_SET_WORDS:
        return parse_words(name, value, s->words, s->hint, (int *)p);
    case SHMC_SET_TEXT:
        *(const char **)p = value;
        return SHMC_OK;
    case SHMC_SET_OWN:
        return s->own(name, value, cfg);
    }
    return SHMC_ERR_ENV;
}

/* ---- printing ------------------------------------------------------------------------- */

static void print_default(FILE *f, const struct shmc__setting *s)
{
    if (s->shown)
        fputs(s->shown, f);
    else
        fprintf(f, "%llu", s->def);
}

/* What the variable takes, where the kind says more than the doc line. */
static void print_range(FILE *f, const struct shmc__setting *s)
{
    if (s->kind == SHMC_SET_UINT)
        fprintf(f, "; a whole number from %llu to %llu", s->lo, s->hi);
    else if ((s->kind == SHMC_SET_SIZE || (s->kind == SHMC_SET_OWN && s->hi)) && s->hi != SIZE_MAX)
        fprintf(f, "; bytes from %llu to %llu, or with k, M or G", s->lo, s->hi);
    else if (s->kind == SHMC_SET_SIZE)
        fprintf(f, "; bytes, or with k, M or G");
}

/* The collectives and the algorithms each takes, for the SHMC_ALGO_<NAME> row. */
static void print_algos(FILE *f, int markdown)
{
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        fputs(c ? "; " : " ", f);
        for (const char *p = shmc__coll_names[c]; *p; p++)
            fputc(toupper((unsigned char)*p), f);
        fputs(":", f);
        for (int a = 1; a < SHMC_A_COUNT; a++)
            if (shmc__algo_valid(c, a))
                fprintf(f, markdown ? " `%s`" : " %s", shmc__algo_names[a]);
    }
}

void shmc__settings_print(FILE *f, int markdown)
{
    if (markdown)
        fputs("| variable | default | at run time | meaning |\n|---|---|---|---|\n", f);
    for (size_t i = 0; i < shmc__nsettings; i++) {
        const struct shmc__setting *s = &shmc__settings[i];
        int family = strstr(s->name, "<NAME>") != NULL;
        if (markdown) {
            fprintf(f, "| `%s` | ", s->name);
            print_default(f, s);
            fprintf(f, " | %s | %s", s->runtime ? "yes" : "no", s->doc);
            print_range(f, s);
            if (family)
                print_algos(f, 1);
            fputs(" |\n", f);
            continue;
        }
        fprintf(f, "%s\n    default: ", s->name);
        print_default(f, s);
        if (family) {
            for (int c = 0; c < SHMC_C_COUNT; c++) {
                char var[64];
                shmc__algo_var(c, var, sizeof var);
                const char *v = getenv(var);
                if (v && *v)
                    fprintf(f, "; here %s=%s", var, v);
            }
        } else {
            const char *v = getenv(s->name);
            if (v && *v)
                fprintf(f, "; here: %s", v);
        }
        fprintf(f, "\n    %s\n    ",
                s->runtime ? "shmc_config_set may change it while the program runs"
                           : "read once, at shmc_init");
        fputs(s->doc, f);
        print_range(f, s);
        if (family)
            print_algos(f, 0);
        fputs("\n", f);
    }
}
