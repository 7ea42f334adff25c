/*
 * Parsing the dispatch rules (rules.h), and the rules the library is built with.
 */
#include "coll/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/machine.h"
#include "base/settings.h"
#include "shmcomm.h"

/* lib/coll/dispatch.rules, as a string (made by mk/lib.mk). */
const char shmc__rules_shipped[] =
#include "coll/dispatch_rules.inc"
    ;

/* The largest SIZE of a <=SIZE/rank bound, so that SIZE x ranks cannot overflow. */
#define PER_RANK_MAX ((size_t)1 << 40)

struct line {
    const char *origin;
    int no;
};

static int fault(const struct line *l, const char *what, const char *word)
{
    SHMC_ERROR("%s, line %d: %s '%s' (lib/coll/dispatch.rules says what a rule holds)", l->origin,
               l->no, what, word);
    return SHMC_ERR_ENV;
}

static int ranks_of(const char *w, struct shmc__rule *r)
{
    char *end;
    if (!strcmp(w, "any")) {
        r->nlo = 1;
        r->nhi = UINT16_MAX;
        return 0;
    }
    errno = 0;
    unsigned long lo = strtoul(w, &end, 10), hi = lo;
    if (end == w || errno)
        return -1;
    if (*end == '-') {
        const char *h = end + 1;
        hi = *h ? strtoul(h, &end, 10) : UINT16_MAX;
        if (*h && (end == h || errno))
            return -1;
        if (!*h)
            end = (char *)h;
    }
    if (*end || lo < 1 || hi > UINT16_MAX || lo > hi)
        return -1;
    r->nlo = (uint16_t)lo;
    r->nhi = (uint16_t)hi;
    return 0;
}

static int bytes_of(const char *w, struct shmc__rule *r)
{
    char size[64];
    if (!strcmp(w, "any")) {
        r->max_bytes = SIZE_MAX;
        return 0;
    }
    if (strncmp(w, "<=", 2) != 0 || strlen(w + 2) >= sizeof size)
        return -1;
    snprintf(size, sizeof size, "%s", w + 2);
    char *slash = strchr(size, '/');
    if (slash) {
        if (strcmp(slash, "/rank") != 0)
            return -1;
        *slash = '\0';
        r->per_rank = 1;
    }
    if (shmc__parse_size(size, &r->max_bytes) != 0 || (r->per_rank && r->max_bytes > PER_RANK_MAX))
        return -1;
    return 0;
}

/* Does rule r apply to calls on memory kind m (SHMC_RULE_HOST or _DEVICE)? */
static int for_memory(const struct shmc__rule *r, int m)
{
    return r->memory == SHMC_RULE_ANY_MEMORY || r->memory == m;
}

/* Does rule r match every call on memory kind m? */
static int catch_all(const struct shmc__rule *r, int m)
{
    return r->nlo == 1 && r->nhi == UINT16_MAX && r->max_bytes == SIZE_MAX &&
           r->comm == SHMC_RULE_ANY_COMM && r->cpus == SHMC_RULE_ANY_CPUS &&
           r->machine == SHMC_RULE_ANY_MACHINE && r->maker == SHMC_MAKER_OTHER && for_memory(r, m);
}

/* The index of w in words (ended by NULL), or -1. */
static int word_index(const char *w, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (!strcmp(w, words[i]))
            return i;
    return -1;
}

/* One rule's eight words into r and its collective. */
static int rule_of(char **w, const struct line *l, struct shmc__rule *r, int *coll)
{
    memset(r, 0, sizeof *r);
    *coll = -1;
    for (int c = 0; c < SHMC_C_COUNT; c++)
        if (!strcmp(w[0], shmc__coll_names[c]))
            *coll = c;
    if (*coll < 0)
        return fault(l, "no collective is called", w[0]);
    if (ranks_of(w[1], r) != 0)
        return fault(l, "ranks are N, A-B, A- or any, not", w[1]);
    if (bytes_of(w[2], r) != 0)
        return fault(l, "bytes are <=SIZE, <=SIZE/rank or any, not", w[2]);
    /* (in the order of SHMC_RULE_ANY_COMM.., SHMC_RULE_ANY_CPUS.., SHMC_RULE_ANY_MACHINE..) */
    static const char *const comms[] = {"any", "world", "other", NULL};
    static const char *const cpus[] = {"any", "shared", "own", NULL};
    static const char *const machines[] = {"any", "near", "far", NULL};
    static const char *const memories[] = {"any", "host", "device", NULL};
    int k;
    if ((k = word_index(w[3], comms)) < 0)
        return fault(l, "comm is world, other or any, not", w[3]);
    r->comm = (uint8_t)k;
    if ((k = word_index(w[4], cpus)) < 0)
        return fault(l, "cpus is shared, own or any, not", w[4]);
    r->cpus = (uint8_t)k;
    /* The machine: its state, after the CPUs' maker (and family) where the rule is for one
     * maker's (one family's) CPUs: amd:near, amd26:near. */
    const char *colon = strchr(w[5], ':'), *state = colon ? colon + 1 : w[5];
    int maker = SHMC_MAKER_OTHER, family = 0;
    for (int m = SHMC_MAKER_AMD; colon && m <= SHMC_MAKER_INTEL; m++) {
        const char *name = shmc__cpu_maker_name(m);
        size_t len = strlen(name), word = (size_t)(colon - w[5]);
        if (word < len || strncmp(w[5], name, len) != 0)
            continue;
        size_t digits = word - len; /* (a family: 1 to 255, no leading zero) */
        if (digits > 3 || strspn(w[5] + len, "0123456789") != digits ||
            (digits && w[5][len] == '0'))
            continue;
        family = digits ? atoi(w[5] + len) : 0;
        maker = digits && (family < 1 || family > 255) ? SHMC_MAKER_OTHER : m;
    }
    if ((colon && maker == SHMC_MAKER_OTHER) || (k = word_index(state, machines)) < 0)
        return fault(l,
                     "machine is near, far or any, after amd: or intel: for one maker's "
                     "CPUs (amd26: for one family of them, 1 to 255), not",
                     w[5]);
    r->maker = (uint8_t)maker;
    r->family = (uint8_t)family;
    r->machine = (uint8_t)k;
    if ((k = word_index(w[6], memories)) < 0)
        return fault(l, "memory is host, device or any, not", w[6]);
    if (*coll == SHMC_C_BARRIER && k == SHMC_RULE_DEVICE)
        return fault(l, "a barrier has no buffers, so no rule for memory", w[6]);
    r->memory = (uint8_t)k;
    int algo = -1;
    for (int a = SHMC_A_AUTO + 1; a < SHMC_A_COUNT; a++)
        if (!strcmp(w[7], shmc__algo_names[a]) && shmc__algo_valid(*coll, a))
            algo = a;
    if (algo < 0)
        return fault(l, "the collective has no algorithm", w[7]);
    /* (a barrier's rules are the host's whatever they say: it has no buffers) */
    if (*coll != SHMC_C_BARRIER && r->memory != SHMC_RULE_HOST && !shmc__algo_device(algo))
        return fault(l, "device buffers are never taken by the algorithm", w[7]);
    r->algo = (uint8_t)algo;
    return 0;
}

int shmc__rules_parse(const char *text, const char *origin, struct shmc__rules *out)
{
    struct shmc__rule got[SHMC_RULES_MAX];
    int coll_of[SHMC_RULES_MAX], line_of[SHMC_RULES_MAX];
    int n = 0;
    struct line l = {origin, 0};
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char buf[256], *w[9], *save = NULL;
        l.no++;
        if (len >= sizeof buf) {
            SHMC_ERROR("%s, line %d: longer than %zu characters", origin, l.no, sizeof buf - 1);
            return SHMC_ERR_ENV;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        p += len + (eol ? 1 : 0);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        int k = 0;
        for (char *t = strtok_r(buf, " \t\r", &save); t && k < 9;
             t = strtok_r(NULL, " \t\r", &save))
            w[k++] = t;
        if (k == 0)
            continue;
        if (k != 8) {
            SHMC_ERROR("%s, line %d: a rule is eight words (collective ranks bytes comm cpus "
                       "machine memory algorithm), not %d%s",
                       origin, l.no, k, k == 9 ? " or more" : "");
            return SHMC_ERR_ENV;
        }
        if (n == SHMC_RULES_MAX) {
            SHMC_ERROR("%s, line %d: more than %d rules", origin, l.no, SHMC_RULES_MAX);
            return SHMC_ERR_ENV;
        }
        int rc = rule_of(w, &l, &got[n], &coll_of[n]);
        if (rc != SHMC_OK)
            return rc;
        line_of[n++] = l.no;
    }
    /* Each collective's rules, in their order. For each kind of memory its rules take
     * (a barrier's: the host's only), the last must match any call, and no rule may
     * follow one that matches every call it could take (it could never be used). */
    memset(out, 0, sizeof *out);
    int at = 0;
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        out->first[c] = (uint16_t)at;
        int last[SHMC_RULE_DEVICE + 1] = {-1, -1, -1};
        int kinds = c == SHMC_C_BARRIER ? SHMC_RULE_HOST : SHMC_RULE_DEVICE;
        for (int i = 0; i < n; i++) {
            if (coll_of[i] != c)
                continue;
            int used = 0, m;
            for (m = SHMC_RULE_HOST; m <= kinds; m++)
                used |= for_memory(&got[i], m) && (last[m] < 0 || !catch_all(&got[last[m]], m));
            if (!used) {
                m = for_memory(&got[i], SHMC_RULE_HOST) ? SHMC_RULE_HOST : SHMC_RULE_DEVICE;
                SHMC_ERROR("%s, line %d: never used, since the %s rule of line %d before it "
                           "matches every call on %s memory",
                           origin, line_of[i], shmc__coll_names[c], line_of[last[m]],
                           m == SHMC_RULE_HOST ? "host" : "device");
                return SHMC_ERR_ENV;
            }
            out->rule[at++] = got[i];
            for (m = SHMC_RULE_HOST; m <= SHMC_RULE_DEVICE; m++)
                if (for_memory(&got[i], m) && (last[m] < 0 || !catch_all(&got[last[m]], m)))
                    last[m] = i; /* (the last rule for m, until one takes every call) */
        }
        out->count[c] = (uint16_t)(at - out->first[c]);
        for (int m = SHMC_RULE_HOST; m <= kinds; m++) {
            if (last[m] < 0 || !catch_all(&got[last[m]], m)) {
                const char *mem = m == SHMC_RULE_HOST ? "host" : "device";
                SHMC_ERROR("%s: %s has no last rule for any call on %s memory (%s any any any "
                           "any any %s ALGORITHM)",
                           origin, shmc__coll_names[c], mem, shmc__coll_names[c], mem);
                return SHMC_ERR_ENV;
            }
        }
    }
    return SHMC_OK;
}

/* Does rule x apply to calls at w? */
static int applies(const struct shmc__rule *x, const struct shmc__where *w)
{
    return w->n >= x->nlo && w->n <= x->nhi &&
           x->comm != (w->world ? SHMC_RULE_OTHER : SHMC_RULE_WORLD) &&
           x->cpus != (w->shared ? SHMC_RULE_OWN : SHMC_RULE_SHARED) &&
           x->machine != (w->far ? SHMC_RULE_NEAR : SHMC_RULE_FAR) &&
           (x->maker == SHMC_MAKER_OTHER || x->maker == w->maker) &&
           (x->family == 0 || x->family == w->family) &&
           x->memory != (w->dev ? SHMC_RULE_HOST : SHMC_RULE_DEVICE);
}

int shmc__rules_pick(const struct shmc__rules *r, int c, const struct shmc__where *w,
                     size_t bytes)
{
    const struct shmc__rule *x = &r->rule[r->first[c]], *end = x + r->count[c];
    for (; x < end; x++) {
        size_t bound = x->per_rank ? x->max_bytes * (size_t)w->n : x->max_bytes;
        if (applies(x, w) && bytes <= bound)
            return x->algo;
    }
    return end[-1].algo; /* (not reached: the last rule for each memory matches any call) */
}

void shmc__steps_build(const struct shmc__rules *r, const struct shmc__where *w,
                       struct shmc__steps *out)
{
    uint16_t k = 0;
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        out->first[c] = k;
        out->ever[c] = 0;
        const struct shmc__rule *x = &r->rule[r->first[c]], *end = x + r->count[c];
        size_t reached = 0; /* the calls up to a bound already given are taken */
        for (; x < end; x++) {
            if (!applies(x, w))
                continue;
            size_t bound = x->max_bytes;
            if (x->per_rank && bound != SIZE_MAX)
                bound *= (size_t)w->n;
            if (k > out->first[c] && bound <= reached)
                continue; /* (an earlier step takes all its calls) */
            out->step[k++] = (struct shmc__step){bound, x->algo};
            out->ever[c] |= (uint32_t)1 << x->algo;
            reached = bound;
            if (bound == SIZE_MAX)
                break;
        }
    }
}

/* The value of a "# key:" line of text (at a line's start), its blanks trimmed, in out;
 * 0 if there is none. */
static int header(const char *text, const char *key, char *out, size_t len)
{
    for (const char *m = text; (m = strstr(m, key)); m++) {
        if (m != text && m[-1] != '\n')
            continue;
        m += strlen(key);
        m += strspn(m, " \t");
        snprintf(out, len, "%.*s", (int)strcspn(m, "\r\n"), m);
        return 1;
    }
    return 0;
}

static int parse_shipped(struct shmc__rules *out)
{
    return shmc__rules_parse(shmc__rules_shipped, "lib/coll/dispatch.rules", out);
}

uint64_t shmc__rules_shipped_digest(void)
{
    struct shmc__rules r; /* (on the stack: safe from any thread) */
    static const uint8_t none[SHMC_C_COUNT]; /* (SHMC_A_AUTO: nothing forced) */
    return parse_shipped(&r) == SHMC_OK ? shmc__rules_digest(&r, none, 0, SHMC_MAKER_OTHER, 0) : 0;
}

void shmc__rules_cache_path(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = xdg && *xdg == '/'     ? snprintf(out, len, "%s/shmcomm/rules", xdg)
            : home && *home == '/' ? snprintf(out, len, "%s/.cache/shmcomm/rules", home)
                                   : snprintf(out, len, "%s", "");
    if (n < 0 || (size_t)n >= len)
        out[0] = '\0'; /* (a path too long to hold is no path) */
}

/* Whether the file text, tuned on some machine against some built-in rules (its
 * "# machine:" and "# built-in:" lines, which bench/tune.py writes), may be used here:
 * one without those lines is taken as written. One that may not is said at `level`: a
 * file the job named (SHMC_TUNING_FILE) is said by default, since its user expects it to
 * serve; the user's tuned rules, which every job of theirs reads, as a warning. */
static int fits(const char *text, const char *what, int level)
{
    char here[320], there[320];
    if (header(text, "# machine:", there, sizeof there)) {
        shmc__machine_desc(here, sizeof here);
        if (strcmp(here, there) != 0) {
            SHMC_LOG(level,
                     "%s was measured on another machine (%s; this one: %s): ignored, the "
                     "built-in rules serve; run bench/tune.py again here",
                     what, there, here);
            return 0;
        }
    }
    if (header(text, "# built-in:", there, sizeof there)) {
        snprintf(here, sizeof here, "%016llx", (unsigned long long)shmc__rules_shipped_digest());
        if (strcmp(here, there) != 0) {
            SHMC_LOG(level,
                     "%s was tuned beside other built-in rules than this library's (%s; these: "
                     "%s), so it may now be slower than they are: ignored, the built-in rules "
                     "serve; run bench/tune.py again",
                     what, there, here);
            return 0;
        }
    }
    return 1;
}

int shmc__rules_load(struct shmc__rules *out, const char *path)
{
    static char text[64 << 10];
    char cache[512], what[600];
    if (path && !strcmp(path, SHMC_RULES_BUILTIN))
        return parse_shipped(out);
    int from_cache = !path;
    if (from_cache) {
        shmc__rules_cache_path(cache, sizeof cache);
        if (!*cache || access(cache, F_OK) != 0)
            return parse_shipped(out);
        path = cache;
    }
    snprintf(what, sizeof what, "%s%s", from_cache ? "the tuned rules " : "SHMC_TUNING_FILE=",
             path);
    FILE *f = fopen(path, "r");
    if (!f && from_cache) {
        /* Not named by this job: a file it cannot read leaves the built-in rules. */
        SHMC_WARN("%s cannot be read (%s): the built-in rules serve", what, strerror(errno));
        return parse_shipped(out);
    }
    if (!f) {
        SHMC_ERROR("%s cannot be read: %s", what, strerror(errno));
        return SHMC_ERR_ENV;
    }
    size_t n = fread(text, 1, sizeof text, f);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err && from_cache) {
        SHMC_WARN("%s cannot be read (%s): the built-in rules serve", what, strerror(err));
        return parse_shipped(out);
    }
    if (err || n == sizeof text) {
        SHMC_ERROR("%s: %s", what, err ? "a read failed" : "longer than 64 KiB, more than rules need");
        return SHMC_ERR_ENV;
    }
    text[n] = '\0';
    if (!fits(text, what, from_cache ? SHMC_LOG_WARN : SHMC_LOG_ERROR))
        return parse_shipped(out);
    int rc = shmc__rules_parse(text, path, out);
    if (rc == SHMC_OK)
        SHMC_INFO("dispatch rules from %s", what);
    return rc;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * 1099511628211ull; /* FNV-1a */
    return h;
}

uint64_t shmc__rules_digest(const struct shmc__rules *r, const uint8_t algo[SHMC_C_COUNT],
                            unsigned far_ns, int maker, unsigned family)
{
    uint64_t h = mix(mix(mix(1469598103934665603ull, far_ns), (uint64_t)maker), family);
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        h = mix(h, algo[c]);
        h = mix(h, r->count[c]);
        for (int i = r->first[c]; i < r->first[c] + r->count[c]; i++) {
            const struct shmc__rule *x = &r->rule[i];
            h = mix(h, (uint64_t)x->memory << 48 | (uint64_t)x->nlo << 32 | (uint64_t)x->nhi << 16 |
                           (uint64_t)x->comm << 12 | (uint64_t)x->cpus << 8 |
                           (uint64_t)x->machine << 4 | (uint64_t)x->maker << 1 | x->per_rank);
            h = mix(h, (uint64_t)x->algo << 56 ^ (uint64_t)x->family << 48 ^ x->max_bytes);
        }
    }
    return h;
}
