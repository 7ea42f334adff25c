/*
 * Reads and validates the SHMC_* environment variables (see config.h). Called once per
 * process, before anything uses the values; not thread-safe (nothing else runs yet).
 */
#include "base/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "shmcomm.h"

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

/* Each parser takes the variable's value (NULL or empty: unset, nothing changes). */
static int parse_size_var(const char *name, const char *s, size_t lo, size_t hi, size_t *out)
{
    size_t v;
    if (!s || !*s)
        return SHMC_OK;
    if (shmc__parse_size(s, &v) != 0 || v < lo || v > hi) {
        SHMC_ERROR("%s='%s' is not a valid size: use a number of bytes from %zu to %zu, "
                   "optionally with a k, M or G suffix",
                   name, s, lo, hi);
        return SHMC_ERR_ENV;
    }
    *out = v;
    return SHMC_OK;
}

static int parse_uint_var(const char *name, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    if (!s || !*s)
        return SHMC_OK;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || !isdigit((unsigned char)*s) || v < lo || v > hi) {
        SHMC_ERROR("%s='%s' is not valid: use a whole number from %u to %u", name, s, lo, hi);
        return SHMC_ERR_ENV;
    }
    *out = (unsigned)v;
    return SHMC_OK;
}

static int parse_bool_var(const char *name, const char *s, int *out)
{
    if (!s || !*s)
        return SHMC_OK;
    if (!strcmp(s, "1") || !strcasecmp(s, "on") || !strcasecmp(s, "yes") ||
        !strcasecmp(s, "auto") || !strcasecmp(s, "true")) {
        *out = 1;
    } else if (!strcmp(s, "0") || !strcasecmp(s, "off") || !strcasecmp(s, "no") ||
               !strcasecmp(s, "false")) {
        *out = 0;
    } else {
        SHMC_ERROR("%s='%s' is not valid: use 1/on/auto or 0/off", name, s);
        return SHMC_ERR_ENV;
    }
    return SHMC_OK;
}

/* SHMC_CHECK: "calls" (the default: the call carried by every synchronisation of it;
 * "rounds", its name while it was opt-in, too), a boolean true or "full" (that and an
 * agreement before every call), or a boolean false (off). docs/reliability.md,
 * Mismatched collectives. */
static int parse_check_var(const char *name, const char *s, int *out)
{
    static const struct {
        const char *word;
        int v;
    } words[] = {{"calls", SHMC_CHECK_CALLS},
                 {"rounds", SHMC_CHECK_CALLS},
                 {"full", SHMC_CHECK_FULL},
                 {"1", SHMC_CHECK_FULL},
                 {"on", SHMC_CHECK_FULL},
                 {"yes", SHMC_CHECK_FULL},
                 {"true", SHMC_CHECK_FULL},
                 {"auto", SHMC_CHECK_FULL},
                 {"0", 0},
                 {"off", 0},
                 {"no", 0},
                 {"false", 0}};
    if (!s || !*s)
        return SHMC_OK;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        if (!strcasecmp(s, words[i].word)) {
            *out = words[i].v;
            return SHMC_OK;
        }
    }
    SHMC_ERROR("%s='%s' is not valid: use calls (the default), 1/full, or 0/off", name, s);
    return SHMC_ERR_ENV;
}

#define env_size(name, lo, hi, out) parse_size_var((name), getenv(name), (lo), (hi), (out))
#define env_uint(name, lo, hi, out) parse_uint_var((name), getenv(name), (lo), (hi), (out))
#define env_bool(name, out) parse_bool_var((name), getenv(name), (out))

const char *const shmc__coll_names[SHMC_C_COUNT] = {
    "barrier",   "broadcast", "reduce",         "allreduce", "gather",
    "allgather", "scatter",   "reduce_scatter", "alltoall",
};
const char *const shmc__algo_names[SHMC_A_COUNT] = {"auto", "tree",   "ring", "shm",
                                                    "rd",   "direct", "stage"};

int shmc__algo_valid(int c, int a)
{
    if (c < 0 || c >= SHMC_C_COUNT || a < 0 || a >= SHMC_A_COUNT)
        return 0;
    /* Recursive doubling exists where it is the classic latency algorithm. */
    if (a == SHMC_A_RD)
        return c == SHMC_C_BARRIER || c == SHMC_C_ALLREDUCE;
    if (a == SHMC_A_DIRECT)
        return c == SHMC_C_ALLREDUCE || c == SHMC_C_BROADCAST || c == SHMC_C_REDUCE ||
               c == SHMC_C_GATHER || c == SHMC_C_SCATTER;
    if (a == SHMC_A_STAGE)
        return c == SHMC_C_ALLREDUCE;
    return 1;
}

/* "SHMC_ALGO_ALLREDUCE" and the like, for collective c. */
static void algo_var(int c, char *var, size_t len)
{
    size_t k = (size_t)snprintf(var, len, "SHMC_ALGO_");
    for (const char *p = shmc__coll_names[c]; *p && k + 1 < len; p++)
        var[k++] = (char)toupper((unsigned char)*p);
    var[k] = '\0';
}

/* SHMC_ALGO_<NAME>=<algorithm> for collective c; anything unknown is an error that lists
 * what is allowed. */
static int parse_algo_var(int c, const char *var, const char *s, uint8_t *out)
{
    char allowed[128] = "";
    if (!s || !*s)
        return SHMC_OK;
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
        SHMC_ERROR("%s='%s' is not an algorithm of %s: use one of %s", var, s, shmc__coll_names[c],
                   allowed);
        return SHMC_ERR_ENV;
    }
    *out = (uint8_t)found;
    return SHMC_OK;
}

static int env_algos(struct shmc__config *cfg)
{
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        char var[64];
        algo_var(c, var, sizeof var);
        int rc = parse_algo_var(c, var, getenv(var), &cfg->algo[c]);
        if (rc != SHMC_OK)
            return rc;
    }
    return SHMC_OK;
}

int shmc__config_load(struct shmc__config *cfg)
{
    unsigned debug = SHMC_LOG_ERROR;
    int rc;

    memset(cfg, 0, sizeof *cfg);
    cfg->eager_limit = SHMC_DEFAULT_EAGER_LIMIT;
    cfg->single_copy = 1;
    cfg->single_copy_min = SHMC_DEFAULT_SINGLE_COPY_MIN;
    cfg->spin = ~0u;
    cfg->yield = ~0u;
    cfg->spin_elsewhere_us = ~0u;
    cfg->attach_timeout_s = SHMC_DEFAULT_ATTACH_TIMEOUT;
    cfg->cuda = 1;
    cfg->check = SHMC_CHECK_CALLS;
    cfg->coll_overlap = 1;
    cfg->memfd = 1;

    /* SHMC_DEBUG first, so that the messages about the other variables obey it. */
    if ((rc = env_uint("SHMC_DEBUG", 0, 4, &debug)) != SHMC_OK)
        return rc;
    cfg->debug = (int)debug;
    shmc__log_level = cfg->debug;

    if ((rc = env_size("SHMC_EAGER_LIMIT", 0, 1u << 20, &cfg->eager_limit)) ||
        (rc = env_size("SHMC_RING_SIZE", 4096, 1u << 24, &cfg->ring_bytes)) ||
        (rc = env_bool("SHMC_SINGLE_COPY", &cfg->single_copy)) ||
        (rc = env_size("SHMC_SINGLE_COPY_MIN", 0, SIZE_MAX, &cfg->single_copy_min)) ||
        (rc = env_uint("SHMC_SPIN", 0, 100000000u, &cfg->spin)) ||
        (rc = env_uint("SHMC_YIELD", 0, 1000000u, &cfg->yield)) ||
        (rc = env_uint("SHMC_SPIN_ELSEWHERE", 0, 1000000u, &cfg->spin_elsewhere_us)) ||
        (rc = env_uint("SHMC_ATTACH_TIMEOUT", 1, 86400u, &cfg->attach_timeout_s)) ||
        (rc = env_uint("SHMC_TIMEOUT", 0, 86400u, &cfg->hang_timeout_s)) ||
        (rc = parse_check_var("SHMC_CHECK", getenv("SHMC_CHECK"), &cfg->check)) ||
        (rc = env_bool("SHMC_COLL_OVERLAP", &cfg->coll_overlap)) ||
        (rc = env_bool("SHMC_MEMFD", &cfg->memfd)) || (rc = env_bool("SHMC_CUDA", &cfg->cuda)))
        return rc;
    /* SHMC_FAKE_DEVICE: a boolean, or "noipc": the stand-in backend's memory then cannot be
     * described to peers, as memory made without IPC support cannot; or "gpus:K": rank r's
     * memory is on stand-in GPU r % K (K from 1 to 256; gpus:1, like plain 1, puts every
     * rank on one GPU). */
    const char *fake = getenv("SHMC_FAKE_DEVICE");
    if (fake && !strcasecmp(fake, "noipc")) {
        cfg->fake_device = SHMC_FAKE_NOIPC;
    } else if (fake && !strncasecmp(fake, "gpus:", 5)) {
        char *end;
        unsigned long k = strtoul(fake + 5, &end, 10);
        if (end == fake + 5 || *end || k < 1 || k > 256) {
            SHMC_ERROR("SHMC_FAKE_DEVICE=%s: after gpus: give a number of GPUs from 1 to 256",
                       fake);
            return SHMC_ERR_ENV;
        }
        cfg->fake_device = 1;
        cfg->fake_gpus = (unsigned)k;
    } else if ((rc = env_bool("SHMC_FAKE_DEVICE", &cfg->fake_device)) != SHMC_OK)
        return rc;

    if (cfg->ring_bytes & (cfg->ring_bytes - 1)) {
        SHMC_ERROR("SHMC_RING_SIZE=%zu is not a power of two (for example 16k, 64k)",
                   cfg->ring_bytes);
        return SHMC_ERR_ENV;
    }
    if ((rc = env_algos(cfg)) != SHMC_OK)
        return rc;
    const char *th = getenv("SHMC_THREADS");
    if (th && !strcasecmp(th, "multiple"))
        cfg->threads = 1;
    else if (th && *th && strcasecmp(th, "serialized")) {
        SHMC_ERROR("SHMC_THREADS='%s' is neither 'serialized' nor 'multiple'", th);
        return SHMC_ERR_ENV;
    }
    const char *job = getenv("SHMC_JOB_ID");
    cfg->job_id = (job && *job) ? job : NULL;
    return SHMC_OK;
}

/* The variables read once, at shmc_init (they shape the arena, the mailboxes or the
 * wait policy): shmc__config_set refuses them. */
static const char *const fixed_vars[] = {
    "SHMC_EAGER_LIMIT",    "SHMC_RING_SIZE", "SHMC_SINGLE_COPY_MIN",
    "SHMC_SPIN",           "SHMC_YIELD",     "SHMC_SPIN_ELSEWHERE",
    "SHMC_ATTACH_TIMEOUT", "SHMC_TIMEOUT",   "SHMC_MEMFD",
    "SHMC_JOB_ID",         "SHMC_CUDA",      "SHMC_FAKE_DEVICE",
    "SHMC_THREADS",
};

int shmc__config_set(struct shmc__config *cfg, const char *name, const char *value)
{
    if (!name || !value || !*value) {
        SHMC_ERROR("shmc_config_set needs a variable name and a value");
        return SHMC_ERR_ENV;
    }
    if (!strcmp(name, "SHMC_CHECK"))
        return parse_check_var(name, value, &cfg->check);
    if (!strcmp(name, "SHMC_SINGLE_COPY"))
        return parse_bool_var(name, value, &cfg->single_copy);
    if (!strcmp(name, "SHMC_COLL_OVERLAP"))
        return parse_bool_var(name, value, &cfg->coll_overlap);
    if (!strcmp(name, "SHMC_DEBUG")) {
        unsigned debug = (unsigned)cfg->debug;
        int rc = parse_uint_var(name, value, 0, 4, &debug);
        if (rc == SHMC_OK) {
            cfg->debug = (int)debug;
            shmc__log_level = cfg->debug;
        }
        return rc;
    }
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        char var[64];
        algo_var(c, var, sizeof var);
        if (!strcmp(name, var))
            return parse_algo_var(c, var, value, &cfg->algo[c]);
    }
    for (size_t i = 0; i < sizeof fixed_vars / sizeof *fixed_vars; i++) {
        if (!strcmp(name, fixed_vars[i])) {
            SHMC_ERROR("%s is read once, when shmc_init runs: set it in the environment "
                       "before the job starts",
                       name);
            return SHMC_ERR_STATE;
        }
    }
    SHMC_ERROR("%s is not a shmcomm variable (the README lists them)", name);
    return SHMC_ERR_ENV;
}
