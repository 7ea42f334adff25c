/*
 * What the point-to-point suites run every case under: the rank counts, and the
 * environments that select each large-message protocol (single copy, the default for big
 * messages; the mailbox stream, single copy off; single copy from the first byte past
 * the eager limit).
 */
#ifndef SHMC_TEST_P2P_PROTOCOLS_H
#define SHMC_TEST_P2P_PROTOCOLS_H

#include "harness.h"

/* The eager limit (SHMC_EAGER_LIMIT) these environments leave in force up to 8 ranks: the
 * default where the library has no sizes of its own for the CPUs' maker, which every
 * environment below names (on Intel's it is 8 KiB where ranks have CPUs of their own:
 * check_ssend and check_p2p test that); from 16 ranks the rings' size makes it 8 KiB, and
 * E and E + 1 are then both rendezvous sizes. */
#define E 32768u
#define MiB (1024u * 1024u)

static const int rank_counts[] = {2, 3, 4, 8, 16};
#define NRANK_COUNTS (int)(sizeof rank_counts / sizeof rank_counts[0])

#define SHMC_TEST_MAKER "SHMC_CPU_MAKER=other"
static const char *const env_default[] = {SHMC_TEST_MAKER, NULL};
static const char *const env_stream[] = {SHMC_TEST_MAKER, "SHMC_SINGLE_COPY=0", NULL};
static const char *const env_all_cma[] = {SHMC_TEST_MAKER, "SHMC_SINGLE_COPY_MIN=0", NULL};
static const char *const *const protocol_envs[] = {env_default, env_stream, env_all_cma};
#define NPROTO (int)(sizeof protocol_envs / sizeof protocol_envs[0])

/* shmct_run_opts with env set in every rank. */
static inline int run_env(int n, shmct_fn fn, void *arg, const char *const *env)
{
    struct shmct_opts o = {.env = env};
    return shmct_run_opts(n, fn, arg, &o);
}

#endif /* SHMC_TEST_P2P_PROTOCOLS_H */
