/*
 * Finding the job: which launcher started this process, which rank it is, and the arena.
 *
 * Under shmrun the arena is already made and its name unlinked; the rank maps it through
 * the inherited descriptor SHMC_ARENA_FD. Under torchrun, Open MPI or MPICH there is no
 * arena yet: local rank 0 creates it, a name derived from the user and a job key that
 * every rank of the job computes alike leads the others to it (they wait for it up to
 * SHMC_ATTACH_TIMEOUT). By default the arena is an anonymous memory file and the name
 * is that of the abstract socket on which local rank 0 hands it out (shm/fdpass.h):
 * nothing is ever in /dev/shm, and the socket goes when every rank has attached or rank
 * 0 ends. With SHMC_MEMFD=0 the name is the arena's in /dev/shm, the others open it,
 * and the last rank to attach unlinks it; a leftover from a job that died during that
 * window is recognised (its creator is gone) and replaced.
 *
 * shmc_init_join names the job itself (rank, size and a key, which rank 0 usually makes
 * with shmc_job_key and shares through the caller's own channel, a torch store say): it
 * is joined like an embedded job, rank 0 creating the arena under a name derived from the
 * key. A fresh key is a fresh arena, which is what lets a process join again after
 * shmc_finalize; shmrun's arena, made once for the process, cannot be joined twice.
 *
 * Runs in shmc_init, before anything else uses the arena. Waiting for the other ranks to
 * attach is shm/job.c's (shmc__job_wait_attached).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/machine.h"
#include "boot/boot.h"
#include "shm/fdpass.h"
#include "shmcomm.h"

struct launch {
    int mode;
    long rank, size, local_rank, local_size;
    char key[512];
};

/* 1 if set and valid, 0 if not set, SHMC_ERR_ENV if set to garbage. */
static int env_long(const char *name, long lo, long hi, long *out)
{
    const char *s = getenv(name);
    char *end;
    if (!s)
        return 0;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        SHMC_ERROR("%s='%s' is not a whole number from %ld to %ld", name, s, lo, hi);
        return SHMC_ERR_ENV;
    }
    *out = v;
    return 1;
}

static int need_long(const char *name, long lo, long hi, long *out, const char *launcher)
{
    int rc = env_long(name, lo, hi, out);
    if (rc == 0) {
        SHMC_ERROR("%s is not set, though the environment looks like %s's; start the program "
                   "with %s or shmrun",
                   name, launcher, launcher);
        return SHMC_ERR_ENV;
    }
    return rc < 0 ? rc : SHMC_OK;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *s = getenv(name);
    return s && *s ? s : dflt;
}

static int detect(struct launch *l)
{
    int rc;
    memset(l, 0, sizeof *l);
    l->local_rank = -1;

    if (getenv("SHMC_RANK") || getenv("SHMC_ARENA_FD") || getenv("SHMC_ARENA")) {
        l->mode = SHMC_BOOT_SHMRUN;
        if ((rc = need_long("SHMC_SIZE", 1, SHMC_MAX_RANKS, &l->size, "shmrun")) ||
            (rc = need_long("SHMC_RANK", 0, l->size - 1, &l->rank, "shmrun")))
            return rc;
        return SHMC_OK;
    }
    if (getenv("RANK") && getenv("WORLD_SIZE")) {
        l->mode = SHMC_BOOT_TORCHRUN;
        if ((rc = need_long("WORLD_SIZE", 1, LONG_MAX, &l->size, "torchrun")) ||
            (rc = need_long("RANK", 0, l->size - 1, &l->rank, "torchrun")))
            return rc;
        if ((rc = env_long("LOCAL_WORLD_SIZE", 1, LONG_MAX, &l->local_size)) < 0 ||
            (rc = env_long("LOCAL_RANK", 0, LONG_MAX, &l->local_rank)) < 0)
            return rc;
        if (!l->local_size)
            l->local_size = l->size;
        if (l->local_rank < 0)
            l->local_rank = l->rank;
        const char *run = getenv("TORCHELASTIC_RUN_ID"), *port = getenv("MASTER_PORT");
        if (!run && !port && !getenv("SHMC_JOB_ID")) {
            SHMC_ERROR("RANK and WORLD_SIZE are set but nothing identifies the job: set "
                       "TORCHELASTIC_RUN_ID, MASTER_PORT or SHMC_JOB_ID");
            return SHMC_ERR_ENV;
        }
        snprintf(l->key, sizeof l->key, "torch:%s:%s:%s:%s", run ? run : "", port ? port : "",
                 env_or("MASTER_ADDR", ""), env_or("TORCHELASTIC_RESTART_COUNT", "0"));
        return SHMC_OK;
    }
    if (getenv("OMPI_COMM_WORLD_RANK")) {
        l->mode = SHMC_BOOT_OMPI;
        if ((rc = need_long("OMPI_COMM_WORLD_SIZE", 1, LONG_MAX, &l->size, "mpirun")) ||
            (rc = need_long("OMPI_COMM_WORLD_RANK", 0, l->size - 1, &l->rank, "mpirun")) ||
            (rc = need_long("OMPI_COMM_WORLD_LOCAL_SIZE", 1, LONG_MAX, &l->local_size, "mpirun")) ||
            (rc = need_long("OMPI_COMM_WORLD_LOCAL_RANK", 0, l->local_size - 1, &l->local_rank,
                            "mpirun")))
            return rc;
        snprintf(l->key, sizeof l->key, "ompi:%s",
                 env_or("OMPI_MCA_ess_base_jobid", env_or("PMIX_NAMESPACE", "")));
        return SHMC_OK;
    }
    if (getenv("PMI_RANK") && getenv("MPI_LOCALRANKID")) {
        l->mode = SHMC_BOOT_MPICH;
        if ((rc = need_long("PMI_SIZE", 1, LONG_MAX, &l->size, "mpiexec")) ||
            (rc = need_long("PMI_RANK", 0, l->size - 1, &l->rank, "mpiexec")) ||
            (rc = need_long("MPI_LOCALNRANKS", 1, LONG_MAX, &l->local_size, "mpiexec")) ||
            (rc = need_long("MPI_LOCALRANKID", 0, l->local_size - 1, &l->local_rank, "mpiexec")))
            return rc;
        /* Hydra exports no job id; every local rank is a child of the same proxy. */
        int pp = (int)getppid();
        snprintf(l->key, sizeof l->key, "mpich:%d:%" PRIu64, pp, shmc__proc_start_time(pp));
        return SHMC_OK;
    }
    l->mode = SHMC_BOOT_SINGLETON;
    l->rank = 0;
    l->size = 1;
    return SHMC_OK;
}

static int check_single_node(const struct launch *l)
{
    static const char *const sizes[] = {"", "", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    static const char *const ranks[] = {"", "", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"};
    if (l->local_size != l->size) {
        char host[256] = "?", where[320] = "";
        gethostname(host, sizeof host - 1);
        const char *master = getenv("MASTER_ADDR");
        if (l->mode == SHMC_BOOT_TORCHRUN && master && *master)
            snprintf(where, sizeof where, "; rank 0's host is %s (MASTER_ADDR)", master);
        SHMC_ERROR("the job's ranks are on several machines: %s=%ld but only %ld run on this "
                   "one (%s)%s. shmcomm connects the processes of one machine: run the job "
                   "on a single node, or use a backend that crosses machines (torch's "
                   "\"gloo\" or \"nccl\", or an MPI's own transport)",
                   sizes[l->mode], l->size, l->local_size, host, where);
        return SHMC_ERR_ENV;
    }
    /* On one node the local rank is the rank: anything else names a rank some other
     * process also is, and the job could only wait for one that never comes. */
    if (l->local_rank >= 0 && l->local_rank != l->rank) {
        SHMC_ERROR("%s=%ld but the local rank is %ld, on a job of one machine (%ld ranks "
                   "here, %ld in all) where the two must be equal; the launcher's variables "
                   "are inconsistent",
                   ranks[l->mode], l->rank, l->local_rank, l->local_size, l->size);
        return SHMC_ERR_ENV;
    }
    return SHMC_OK;
}

/* ---- shmrun ------------------------------------------------------------------------- */

static int attach_shmrun(struct shmc__boot *b, const struct launch *l)
{
    long fd;
    int rc = env_long("SHMC_ARENA_FD", 0, INT_MAX, &fd);
    if (rc <= 0) {
        if (rc == 0)
            SHMC_ERROR("SHMC_ARENA_FD is not set: this process was not started by shmrun, "
                       "or something cleared its environment");
        return SHMC_ERR_ENV;
    }
    if (fcntl((int)fd, F_GETFD) < 0) {
        SHMC_ERROR("SHMC_ARENA_FD=%ld is not an open file descriptor in this process: a "
                   "wrapper between shmrun and the program closed inherited descriptors",
                   fd);
        return SHMC_ERR_ENV;
    }
    rc = shmc__arena_attach_fd(&b->arena, (int)fd, (unsigned)l->size);
    if (rc != SHMC_OK)
        return rc;
    /* Programs this rank starts should not keep the job's memory alive. */
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    snprintf(b->arena.name, sizeof b->arena.name, "%s", env_or("SHMC_ARENA", ""));
    return SHMC_OK;
}

/* ---- torchrun, mpirun --------------------------------------------------------------- */

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (uint8_t)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000u, .tv_nsec = (long)(ms % 1000u) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Is the job's name taken by something no shmcomm job of this user made? Then it says so
 * (what, whose, what to do) and the job must not start: nothing is opened or removed. */
static int foreign(const char *name)
{
    char why[96];
    if (!shmc__arena_foreign(name, why, sizeof why))
        return 0;
    SHMC_ERROR("the shared-memory name /dev/shm%s is taken by %s, which no shmcomm job of "
               "this user (uid %u) made: it is never used. Ask its owner to remove it, or give "
               "this job another name with SHMC_JOB_ID (or start it with shmrun, whose names "
               "nobody can guess)",
               name, why, (unsigned)geteuid());
    return 1;
}

static int same_key(const char *name)
{
    SHMC_ERROR("another running job uses the name %s (same user and job key); give this job "
               "its own SHMC_JOB_ID",
               name);
    return SHMC_ERR_ENV;
}

/* The default: the arena is a memory file that rank 0 hands out on the socket called
 * name. Listening first claims the name, so a second job with the same key fails before
 * it takes any memory. */
static int create_memfd(struct shmc__boot *b, const char *name, const struct shmc__layout *lay)
{
    int lfd, rc = shmc__fdpass_listen(name, &lfd);
    if (rc == SHMC_ERR_STATE)
        return same_key(name);
    if (rc != SHMC_OK)
        return rc;
    struct shmc__pair_cost pc;
    shmc__pair_cost(b->cfg.line_rtt_ns, b->cfg.sc_cost_pct, lay->nranks, &pc);
    rc = shmc__arena_create(&b->arena, name, lay, 1, 0, 1, &pc);
    if (rc != SHMC_OK) {
        close(lfd);
        return rc;
    }
    b->arena.serve_fd = lfd;
    return SHMC_OK;
}

static int create_embedded(struct shmc__boot *b, const char *name, unsigned nranks)
{
    struct shmc__layout lay;
    int rc = shmc__arena_layout(nranks, b->cfg.ring_bytes, &lay);
    if (rc != SHMC_OK)
        return rc;
    if (b->cfg.memfd)
        return create_memfd(b, name, &lay);
    struct shmc__pair_cost pc;
    shmc__pair_cost(b->cfg.line_rtt_ns, b->cfg.sc_cost_pct, nranks, &pc);
    for (int attempt = 0; attempt < 3; attempt++) {
        rc = shmc__arena_create(&b->arena, name, &lay, 0, 0, 0, &pc);
        if (rc != SHMC_ERR_STATE)
            return rc;
        /* The name exists: something another user put there, a running job with the
         * same key, one being created right now (two local rank 0s), or a leftover of a
         * job that died while assembling. */
        if (foreign(name))
            return SHMC_ERR_ENV;
        if (shmc__arena_leftover(name) == 0)
            return same_key(name);
        SHMC_INFO("removing %s, left by a job that ended before all its ranks attached", name);
        shm_unlink(name);
    }
    return SHMC_ERR_SYS;
}

/* The arena from local rank 0: SHMC_OK with *fd, 1 if it is not there yet, or an error. */
static int fetch(const struct shmc__boot *b, const char *name, int *fd)
{
    if (b->cfg.memfd)
        return shmc__fdpass_fetch(name, fd);
    if (foreign(name))
        return SHMC_ERR_ENV;
    *fd = shm_open(name, O_RDWR | O_CLOEXEC | O_NONBLOCK, 0);
    if (*fd >= 0)
        return SHMC_OK;
    if (errno == ENOENT)
        return 1;
    SHMC_ERROR("cannot open shared memory %s: %s", name, strerror(errno));
    return SHMC_ERR_SYS;
}

static int attach_embedded(struct shmc__boot *b, const char *name, unsigned nranks)
{
    uint64_t deadline = shmc__now_ns() + (uint64_t)b->cfg.attach_timeout_s * 1000000000ull;
    unsigned pause = 1;
    for (;;) {
        int fd, rc = fetch(b, name, &fd);
        if (rc < 0)
            return rc;
        if (rc == SHMC_OK) {
            int alive;
            if (shmc__arena_peek_ready(fd, &alive) && alive) {
                rc = shmc__arena_attach_fd(&b->arena, fd, nranks);
                if (rc != SHMC_OK)
                    close(fd);
                /* Named: until every rank attached, any of them may remove the name. */
                b->arena.named = !b->cfg.memfd;
                return rc;
            }
            close(fd); /* not ready yet, or a leftover local rank 0 will replace */
        }
        if (shmc__now_ns() > deadline) {
            SHMC_ERROR("%s rank 0 did not hand out the shared memory %s within %u s "
                       "(SHMC_ATTACH_TIMEOUT); is it running on this machine, and calling %s?",
                       b->mode == SHMC_BOOT_JOIN ? "the job's" : "local", name,
                       b->cfg.attach_timeout_s,
                       b->mode == SHMC_BOOT_JOIN ? "shmc_init_join with the same key and size"
                                                 : "shmc_init");
            return SHMC_ERR_TIMEOUT;
        }
        sleep_ms(pause);
        pause = pause * 2 > 20 ? 20 : pause * 2;
    }
}

/* ---- claiming a rank ----------------------------------------------------------------- */

static int claim(struct shmc__boot *b)
{
    struct shmc__rank_cb *cb = shmc__arena_cb(&b->arena, (unsigned)b->rank);
    uint32_t expect = 0;
    if (!shmc__cas32(&cb->pid, &expect, (uint32_t)getpid())) {
        SHMC_ERROR("rank %d of this job was already taken by pid %u: every process needs its "
                   "own rank, and shmc_init runs once per rank",
                   b->rank, expect);
        return SHMC_ERR_ENV;
    }
    /* R14: the rules' digest and the CPUs, published by the attach count's increment
     * below. */
    shmc__store_relaxed64(&cb->rules, b->rules_digest);
    shmc__store_relaxed32(&cb->cpus, (uint32_t)shmc__job_cpus());
    struct shmc__arena_hdr *h = b->arena.hdr;
    uint32_t n = shmc__fetch_add32(&h->attached, 1) + 1;
    syscall(SYS_futex, &h->attached, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    SHMC_DEBUG("rank %d joined the job: %u of %d ranks have", b->rank, n, b->size);
    if (b->arena.named && n == (uint32_t)b->size)
        shm_unlink(b->arena.name); /* everyone has it mapped: the name is no longer needed */
    return SHMC_OK;
}

int shmc__job_key_valid(const char *key)
{
    size_t n = 0;
    for (; key[n]; n++) {
        char c = key[n];
        if (n >= SHMC_JOB_KEY_MAX ||
            !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-'))
            return 0;
    }
    return n > 0;
}

SHMC_API int shmc_machine_id(char *id, size_t len)
{
    if (!id || len < SHMC_MACHINE_ID_LEN)
        return SHMC_ERR_ARG;
    char boot[64] = "";
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, boot, sizeof boot - 1) : -1;
    if (fd >= 0)
        close(fd);
    /* Where the ranks meet: the network namespace of the socket that hands out the memory
     * file, or, with SHMC_MEMFD=0, the /dev/shm its name is in. */
    struct shmc__config cfg;
    int rc = shmc__config_load(&cfg);
    if (rc != SHMC_OK)
        return rc;
    struct stat where;
    if (n <= 0 || stat(cfg.memfd ? "/proc/self/ns/net" : "/dev/shm", &where) != 0)
        return SHMC_ERR_SYS;
    boot[n] = '\0';
    boot[strcspn(boot, "\n")] = '\0';
    if (cfg.memfd)
        snprintf(id, len, "boot:%s/net:%llu", boot, (unsigned long long)where.st_ino);
    else
        snprintf(id, len, "boot:%s/shm:%llu:%llu", boot, (unsigned long long)where.st_dev,
                 (unsigned long long)where.st_ino);
    return SHMC_OK;
}

SHMC_API int shmc_job_key(char *key, size_t len)
{
    uint64_t r[2];
    if (!key || len < SHMC_JOB_KEY_LEN)
        return SHMC_ERR_ARG;
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return SHMC_ERR_SYS;
    snprintf(key, len, "k%016" PRIx64 "%016" PRIx64, r[0], r[1]);
    return SHMC_OK;
}

int shmc__boot_launch(struct shmc__boot *b, const struct shmc__join *join, int again)
{
    struct launch l;
    int rc;
    if (join) {
        memset(&l, 0, sizeof l);
        l.mode = SHMC_BOOT_JOIN;
        l.rank = l.local_rank = join->rank;
        l.size = l.local_size = join->size;
        snprintf(l.key, sizeof l.key, "join:%s", join->key);
    } else if ((rc = detect(&l)) != SHMC_OK) {
        return rc;
    }
    if (again && l.mode == SHMC_BOOT_SHMRUN) {
        SHMC_ERROR("this process already left the job shmrun started it in (shmc_finalize), "
                   "and a process joins that job once; to start another job from the same "
                   "processes, give every rank the same new key with shmc_init_join");
        return SHMC_ERR_STATE;
    }
    if (l.mode != SHMC_BOOT_SHMRUN && l.mode != SHMC_BOOT_SINGLETON && l.mode != SHMC_BOOT_JOIN &&
        (rc = check_single_node(&l)) != SHMC_OK)
        return rc;
    if (l.size > (long)SHMC_MAX_RANKS) {
        SHMC_ERROR("the job has %ld ranks; shmcomm supports at most %u", l.size, SHMC_MAX_RANKS);
        return SHMC_ERR_LIMIT;
    }
    b->mode = l.mode;
    b->rank = (int)l.rank;
    b->size = (int)l.size;
    b->local_rank = (int)(l.local_rank >= 0 ? l.local_rank : l.rank);
    shmc__log_rank = b->rank;

    if (l.mode == SHMC_BOOT_SHMRUN) {
        rc = attach_shmrun(b, &l);
    } else if (l.mode == SHMC_BOOT_SINGLETON) {
        struct shmc__layout lay;
        char name[64];
        if ((rc = shmc__arena_layout(1, 0, &lay)) == SHMC_OK &&
            (rc = shmc__arena_unique_name(name, sizeof name)) == SHMC_OK)
            rc = shmc__arena_create(&b->arena, name, &lay, 1, 0, b->cfg.memfd, NULL);
    } else {
        char name[64];
        const char *key = b->cfg.job_id && l.mode != SHMC_BOOT_JOIN ? b->cfg.job_id : l.key;
        snprintf(name, sizeof name, "/shmc-%u-j%016" PRIx64, (unsigned)geteuid(), fnv1a(key));
        SHMC_DEBUG("job key '%s' -> %s, local rank %ld", key, name, l.local_rank);
        rc = l.local_rank == 0 ? create_embedded(b, name, (unsigned)l.size)
                               : attach_embedded(b, name, (unsigned)l.size);
        if (rc == SHMC_OK)
            snprintf(b->arena.name, sizeof b->arena.name, "%s", name);
    }
    if (rc != SHMC_OK)
        return rc;
    rc = claim(b);
    if (rc != SHMC_OK) {
        if (b->arena.named)
            shm_unlink(b->arena.name);
        shmc__arena_detach(&b->arena);
    }
    return rc;
}
