/*
 * The dispatch rules as data: which algorithm a collective call takes, on host or device
 * memory, when SHMC_ALGO_<NAME> does not force one. The rules are a text (lib/coll/dispatch.rules,
 * built into the library, whose format it describes); the first rule that matches a call
 * gives its algorithm. shmc__rules_parse checks a text whole before anything uses it: every
 * rule well formed, every algorithm one its collective has and, in a rule for device
 * memory, one that takes device buffers; for each kind of memory, every collective's last
 * rule for it matching any call of it (a barrier has no buffers: its rules are the host's).
 */
#ifndef SHMC_RULES_H
#define SHMC_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/machine.h"

#define SHMC_RULES_MAX 512 /* (room for tunings of several rank counts in both states) */

enum { SHMC_RULE_ANY_COMM, SHMC_RULE_WORLD, SHMC_RULE_OTHER };
enum { SHMC_RULE_ANY_CPUS, SHMC_RULE_SHARED, SHMC_RULE_OWN };
enum { SHMC_RULE_ANY_MACHINE, SHMC_RULE_NEAR, SHMC_RULE_FAR };
enum { SHMC_RULE_ANY_MEMORY, SHMC_RULE_HOST, SHMC_RULE_DEVICE };

struct shmc__rule {
    uint16_t nlo, nhi; /* ranks, inclusive */
    uint8_t comm;      /* SHMC_RULE_*_COMM, _WORLD, _OTHER */
    uint8_t cpus;      /* SHMC_RULE_ANY_CPUS, _SHARED, _OWN */
    uint8_t machine;   /* SHMC_RULE_ANY_MACHINE, _NEAR, _FAR */
    uint8_t maker;     /* SHMC_MAKER_AMD or _INTEL (base/machine.h); 0: any */
    uint8_t family;    /* the CPUs' family, after the maker (amd26:); 0: any */
    uint8_t memory;    /* SHMC_RULE_ANY_MEMORY, _HOST, _DEVICE */
    uint8_t per_rank;  /* max_bytes counts per rank: the call's bound is max_bytes x ranks */
    uint8_t algo;
    size_t max_bytes; /* SIZE_MAX: any */
};

struct shmc__rules {
    struct shmc__rule rule[SHMC_RULES_MAX];
    /* Each collective's rules, in order: rule[first[c]] to rule[first[c] + count[c] - 1]. */
    uint16_t first[SHMC_C_COUNT], count[SHMC_C_COUNT];
};

/* The rules the library is built with (dispatch.rules). */
extern const char shmc__rules_shipped[];

/* SHMC_TUNING_FILE's word for the built-in rules, whatever the user's tuned rules. */
#define SHMC_RULES_BUILTIN "builtin"

/* The rules to use: the built-in ones where path is SHMC_RULES_BUILTIN; those of the file
 * path (SHMC_TUNING_FILE), or where path is NULL those
 * of the user's tuned rules (shmc__rules_cache_path) if that file exists, or else the
 * built-in ones. A file whose "# machine:" line names another machine, or whose
 * "# built-in:" line another digest of the built-in rules than this library's (it was
 * tuned beside rules that have changed since), is ignored, saying so: the built-in ones
 * serve. SHMC_OK, or SHMC_ERR_ENV after saying what is wrong with the file. */
int shmc__rules_load(struct shmc__rules *out, const char *path);

/* Where bench/tune.py --install puts the user's tuned rules: $XDG_CACHE_HOME/shmcomm/rules,
 * or ~/.cache/shmcomm/rules; "" where neither variable names a directory. */
void shmc__rules_cache_path(char *out, size_t len);

/* The digest of the built-in rules (shmc__rules_digest, nothing forced), which a tuned
 * file records on its "# built-in:" line (as 16 hex digits; shmrun --info prints it). */
uint64_t shmc__rules_shipped_digest(void);

/* A digest of rules r, the forced algorithms algo (SHMC_ALGO_*), the round trip from
 * which the machine is far (SHMC_FAR_NS) and the CPUs' maker (SHMC_MAKER_*) and family:
 * equal on two ranks if, and (but for collisions) only if, they choose alike. */
uint64_t shmc__rules_digest(const struct shmc__rules *r, const uint8_t algo[SHMC_C_COUNT],
                            unsigned far_ns, int maker, unsigned family);

/* Parses text (origin names it in messages) into out. SHMC_OK, or SHMC_ERR_ENV after
 * logging the first fault with its line. */
int shmc__rules_parse(const char *text, const char *origin, struct shmc__rules *out);

/* The rules as they apply to the calls on one communicator (n ranks, the world or not):
 * each collective's steps, in order, a bound on the call's bytes and the algorithm of the
 * calls up to it, the last bound SIZE_MAX. Built once per size (coll.c keeps them), so
 * that a call's choice is a few comparisons of its bytes. */
struct shmc__step {
    size_t bound;
    uint8_t algo;
};
struct shmc__steps {
    uint16_t first[SHMC_C_COUNT];
    uint32_t ever[SHMC_C_COUNT]; /* bit a: some call of the collective takes algorithm a */
    struct shmc__step step[];    /* (as many as rules at most) */
};
_Static_assert(SHMC_A_COUNT <= 32, "struct shmc__steps' ever holds a bit per algorithm");

/* Where a communicator's calls run: its size, the world or not, whether the job's ranks
 * share CPUs and whether its CPUs run far apart (every rank finds the same: coll.c),
 * whether the call's buffers are device memory (the same on every member), who made the
 * CPUs (SHMC_MAKER_*, base/machine.h) and their family (0: not known). */
struct shmc__where {
    int n, world, shared, far, dev, maker;
    unsigned family;
};

/* The steps of rules r for calls at w, in out, which has room for every rule of r. */
void shmc__steps_build(const struct shmc__rules *r, const struct shmc__where *w,
                       struct shmc__steps *out);

/* The algorithm of a call of collective c of bytes. */
static inline int shmc__steps_pick(const struct shmc__steps *s, int c, size_t bytes)
{
    const struct shmc__step *x = &s->step[s->first[c]];
    while (bytes > x->bound) /* (the last bound is SIZE_MAX) */
        x++;
    return x->algo;
}

/* Does some call of collective c, of any size, take algorithm algo? (Asked on the
 * nonblocking calls' start: a bit, not a walk of the steps.) */
static inline int shmc__steps_ever(const struct shmc__steps *s, int c, int algo)
{
    return (int)(s->ever[c] >> algo & 1);
}
/* The same from the rules directly: what shmc__steps_build reduces. */
int shmc__rules_pick(const struct shmc__rules *r, int c, const struct shmc__where *w, size_t bytes);

#endif /* SHMC_RULES_H */
