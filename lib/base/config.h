/*
 * Every SHMC_* tuning variable, read from the environment once (at shmc_init, or by
 * shmrun for the variables that shape the arena) and validated: a malformed value is an
 * error that names the variable, never a silent default. Each is declared once, with its
 * default, in the table of settings.c (settings.h).
 * The collectives' and algorithms' names are declared here (algos.c), not in the
 * collectives, so that shmrun (which links only base and shm) can refuse a bad
 * SHMC_ALGO_* before any rank starts.
 */
#ifndef SHMC_CONFIG_H
#define SHMC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "base/algos.h"

/* The collectives, and the algorithms that implement them (base/algos.h,
 * docs/collectives.md). */
#define SHMC__ENUM_C(id, name) SHMC_C_##id,
#define SHMC__ENUM_A(id, name, device) SHMC_A_##id,
enum shmc__coll_id { SHMC_COLLECTIVES(SHMC__ENUM_C) SHMC_C_COUNT };
enum shmc__algo_id { SHMC_ALGORITHMS(SHMC__ENUM_A) SHMC_A_COUNT };
#undef SHMC__ENUM_C
#undef SHMC__ENUM_A

/* "allreduce", "tree", ...: names as the environment spells them (lower case). */
extern const char *const shmc__coll_names[SHMC_C_COUNT];
extern const char *const shmc__algo_names[SHMC_A_COUNT];
/* Is algorithm a implemented for collective c? */
int shmc__algo_valid(int c, int a);
/* Does algorithm a take device buffers (base/algos.h)? */
int shmc__algo_device(int a);
/* "SHMC_ALGO_ALLREDUCE" and the like, for collective c, into var. */
void shmc__algo_var(int c, char *var, size_t len);

/* SHMC_EAGER_LIMIT's automatic values, in bytes: where every rank has a CPU of its own on
 * Intel's CPUs or on CPUs found far apart as the job began, and elsewhere (p2p/p2p.c,
 * choose_limits, says why). Plain numbers: the setting's documentation prints them
 * (settings.c). */
#define SHMC_EAGER_AUTO_SMALL 8192
#define SHMC_EAGER_AUTO 32768

/* SHMC_SINGLE_COPY_MIN's automatic value (shmc__single_copy_min_auto in base/machine.c says
 * why): where a single copy between the job's first two CPUs took at least SHMC_SC_SLOW_PCT
 * percent of a plain copy's time as the job began, messages below SHMC_SC_SLOW_MIN
 * bytes (SHMC_SC_SLOW_MIN_FAR where those CPUs ran far apart) stream through the
 * mailboxes; elsewhere every message above the eager limit goes by single copy. Plain
 * numbers, for settings.c as above. */
#define SHMC_SC_SLOW_PCT 200
#define SHMC_SC_SLOW_MIN 16777216
#define SHMC_SC_SLOW_MIN_FAR 4194304

/* The waits' automatic budgets (shm/doorbell.h), where every rank has a CPU ("own") and
 * where ranks outnumber CPUs ("shared"); p2p/p2p.c, choose_limits, says why each. Plain
 * numbers, for settings.c as above. */
#define SHMC_SPIN_AUTO_OWN 20000
#define SHMC_SPIN_AUTO_SHARED 1
#define SHMC_YIELD_AUTO_OWN 8
#define SHMC_YIELD_AUTO_SHARED 1000
#define SHMC_SPIN_ELSEWHERE_AUTO_OWN_US 0
#define SHMC_SPIN_ELSEWHERE_AUTO_SHARED_US 20
#define SHMC_SPIN_MORE_AUTO_OWN_US 5000
#define SHMC_SPIN_MORE_AUTO_SHARED_US 0

struct shmc__config {
    int debug;                  /* SHMC_DEBUG: 0..4 */
    size_t eager_limit;         /* SHMC_EAGER_LIMIT: largest eager message, bytes; ~0: auto */
    size_t ring_bytes;          /* SHMC_RING_SIZE: data bytes per mailbox; 0 = by formula */
    int single_copy;            /* SHMC_SINGLE_COPY: 1 = use process_vm_readv if allowed */
    size_t single_copy_min;     /* SHMC_SINGLE_COPY_MIN: smallest message sent single-copy;
                                 * ~0: auto */
    unsigned spin;              /* SHMC_SPIN: polls before yielding; ~0u = automatic */
    unsigned yield;             /* SHMC_YIELD: sched_yield()s before sleeping */
    unsigned spin_elsewhere_us; /* SHMC_SPIN_ELSEWHERE: see shm/doorbell.h; ~0u: auto */
    unsigned spin_more_us;      /* SHMC_SPIN_MORE: longest extra spin (p2p/wait.c); ~0u: auto */
    unsigned attach_timeout_s;  /* SHMC_ATTACH_TIMEOUT: seconds to wait for the segment */
    unsigned hang_timeout_s;    /* SHMC_TIMEOUT: report and abort a job stuck this long; 0 off */
    int check;               /* SHMC_CHECK: 0 off; SHMC_CHECK_CALLS (default) the call's words with
                              * every synchronisation of it; SHMC_CHECK_FULL (1) that and an
                              * agreement before every call */
    int threads;             /* SHMC_THREADS: 1 = multiple (SHMC_THREAD_MULTIPLE) */
    int coll_overlap;        /* SHMC_COLL_OVERLAP: at multiple, 1 (default) = this process's
                              * threads may run collectives on different communicators at once
                              * (coll/split.c); 0 = never, one at a time */
    int memfd;               /* SHMC_MEMFD: 1 (default) = the arena is a memory file handed to
                              * the ranks as a descriptor; 0 = a name in /dev/shm */
    const char *job_id;      /* SHMC_JOB_ID: overrides the launcher's job key */
    int cuda;                /* SHMC_CUDA: 0 = treat every buffer as host memory */
    int fake_device;         /* SHMC_FAKE_DEVICE: the stand-in backend (device/fake.c), 0,
                              * 1, or SHMC_FAKE_NOIPC */
    unsigned fake_gpus;      /* SHMC_FAKE_DEVICE=gpus:K: K stand-in GPUs (0: one for all) */
    const char *tuning_file; /* SHMC_TUNING_FILE: dispatch rules; NULL: the built-in ones */
    unsigned far_ns;         /* SHMC_FAR_NS: a line round trip from which the machine is far */
    unsigned line_rtt_ns;    /* SHMC_LINE_RTT_NS: the round trip to assume; 0: measure it */
    unsigned sc_cost_pct;    /* SHMC_SINGLE_COPY_COST: the single copy's cost to assume, percent
                              * of a plain copy's; 0: measure it */
    int cpu_maker;           /* SHMC_CPU_MAKER: SHMC_MAKER_* to assume; -1: read it (init does) */
    unsigned cpu_family;     /* SHMC_CPU_FAMILY: the family to assume; ~0u: read it (init does) */
    uint8_t algo[SHMC_C_COUNT]; /* SHMC_ALGO_<NAME>: forced algorithm, or SHMC_A_AUTO */
};

#define SHMC_CHECK_FULL 1
#define SHMC_CHECK_CALLS 2

/* SHMC_FAKE_DEVICE=noipc: stand-in device memory that cannot be shared with peers. */
#define SHMC_FAKE_NOIPC 2

/* Fills cfg from the environment. Returns SHMC_OK or SHMC_ERR_ENV after logging which
 * variable is wrong and what it should look like. */
int shmc__config_load(struct shmc__config *cfg);

/* Sets one variable of cfg at run time, from its name and a value spelled as in the
 * environment: those the table of settings marks as settable at run time. Returns
 * SHMC_OK, SHMC_ERR_ENV (not a shmcomm variable, or a bad value; logged) or
 * SHMC_ERR_STATE (a variable read once, at shmc_init; logged). */
int shmc__config_set(struct shmc__config *cfg, const char *name, const char *value);

#endif /* SHMC_CONFIG_H */
