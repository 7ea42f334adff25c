/*
 * The dispatch rules as data: which algorithm a collective call on host memory takes,
 * when SHMC_ALGO_<NAME> does not force one. The rules are a text (lib/coll/dispatch.rules,
 * built into the library, whose format it describes); the first rule that matches a call
 * gives its algorithm. shmc__rules_parse checks a text whole before anything uses it: every
 * rule well formed, every algorithm one its collective has, every collective ending with a
 * rule that matches any call.
 */
#ifndef SHMC_RULES_H
#define SHMC_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"

#define SHMC_RULES_MAX 128

enum { SHMC_RULE_ANY_COMM, SHMC_RULE_WORLD, SHMC_RULE_OTHER };
enum { SHMC_RULE_ANY_CPUS, SHMC_RULE_SHARED, SHMC_RULE_OWN };

struct shmc__rule {
    uint16_t nlo, nhi; /* ranks, inclusive */
    uint8_t comm;      /* SHMC_RULE_*_COMM, _WORLD, _OTHER */
    uint8_t cpus;      /* SHMC_RULE_ANY_CPUS, _SHARED, _OWN */
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

/* The rules to use: the built-in ones, or those of the file path (SHMC_TUNING_FILE; NULL:
 * none) unless its "# machine:" line names another machine (then the built-in ones,
 * saying so). SHMC_OK, or SHMC_ERR_ENV after saying what is wrong with the file. */
int shmc__rules_load(struct shmc__rules *out, const char *path);

/* A digest of rules r and the forced algorithms algo (SHMC_ALGO_*): equal on two ranks
 * if, and (but for collisions) only if, they choose alike. */
uint64_t shmc__rules_digest(const struct shmc__rules *r, const uint8_t algo[SHMC_C_COUNT]);

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
    struct shmc__step step[]; /* (as many as rules at most) */
};

/* The steps of rules r for n ranks, the world or not (world non-zero), in a job whose
 * ranks share CPUs or not (shared non-zero), in out, which has room for every rule of r. */
void shmc__steps_build(const struct shmc__rules *r, int n, int world, int shared,
                       struct shmc__steps *out);

/* The algorithm of a call of collective c of bytes. */
static inline int shmc__steps_pick(const struct shmc__steps *s, int c, size_t bytes)
{
    const struct shmc__step *x = &s->step[s->first[c]];
    while (bytes > x->bound) /* (the last bound is SIZE_MAX) */
        x++;
    return x->algo;
}

/* The same from the rules directly: what shmc__steps_build reduces. */
int shmc__rules_pick(const struct shmc__rules *r, int c, int n, size_t bytes, int world,
                     int shared);

#endif /* SHMC_RULES_H */
