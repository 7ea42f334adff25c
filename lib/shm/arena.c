/*
 * Creating, validating and mapping the arena (layout in arena.h). Creation happens once
 * per job (shmrun, or local rank 0 when embedded); attach happens once per rank. Neither
 * is on a hot path, so every check is done in full.
 */
#include "shm/arena.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "shm/doorbell.h"
#include "shmcomm.h"

/* Cross-process atomics must be lock-free (C11 7.17.5: only then are they address-free). */
static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics must be lock-free");
static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

#define PAGE 4096u

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

uint32_t shmc__ring_bytes_for(unsigned nranks, size_t requested)
{
    if (requested)
        return (uint32_t)requested;
    uint64_t pairs = (uint64_t)nranks * (nranks ? nranks - 1 : 0);
    uint32_t b = SHMC_RING_DEFAULT_MAX;
    while (b > SHMC_RING_DEFAULT_MIN && (uint64_t)b * pairs > SHMC_RING_BUDGET)
        b /= 2;
    uint32_t large = SHMC_RING_DEFAULT_LARGE;
    while (large > b && (uint64_t)large * pairs > SHMC_RING_BUDGET_LARGE)
        large /= 2;
    return large > b ? large : b;
}

int shmc__arena_stage_reserve(struct shmc__arena *a, unsigned lane, unsigned r)
{
    uint64_t off = (uint64_t)(shmc__arena_stage(a, lane, r, 0) - a->base);
    int err =
        a->fd >= 0 ? posix_fallocate(a->fd, (off_t)off, (off_t)(2 * a->lay.stage_bytes)) : EBADF;
    /* As at creation: a file system that cannot reserve is used without (tmpfs can). */
    if (err == 0 || err == EOPNOTSUPP || err == EINVAL)
        return SHMC_OK;
    SHMC_INFO("cannot reserve %.1f MiB for the all-reduce's staging buffers: %s; the large "
              "all-reduce uses the collective slots instead (free space in /dev/shm, or unset "
              "SHMC_MEMFD=0)",
              2.0 * (double)a->lay.stage_bytes / 1048576.0, strerror(err));
    return err == ENOSPC || err == ENOMEM ? SHMC_ERR_NOSHM : SHMC_ERR_SYS;
}

int shmc__arena_entries_reserve(struct shmc__arena *a, unsigned r)
{
    uint64_t off = (uint64_t)((uint8_t *)shmc__arena_entry(a, r, 0) - a->base);
    off_t len = (off_t)(SHMC_SLOT_ENTRIES * a->lay.coll_stride);
    int err = a->fd >= 0 ? posix_fallocate(a->fd, (off_t)off, len) : EBADF;
    if (err == 0 || err == EOPNOTSUPP || err == EINVAL)
        return SHMC_OK;
    SHMC_INFO("cannot reserve %.1f MiB for the collective slots of communicators other than "
              "the world: %s; their collectives go without them (free space in /dev/shm, "
              "or unset SHMC_MEMFD=0)",
              (double)len / 1048576.0, strerror(err));
    return err == ENOSPC || err == ENOMEM ? SHMC_ERR_NOSHM : SHMC_ERR_SYS;
}

uint32_t shmc__stage_bytes_for(unsigned nranks)
{
    uint32_t b = SHMC_STAGE_MAX;
    while (b > SHMC_STAGE_MIN && 2ull * b * nranks > SHMC_STAGE_BUDGET)
        b /= 2;
    return b;
}

int shmc__arena_layout(unsigned nranks, size_t ring_bytes_req, struct shmc__layout *l)
{
    if (nranks == 0)
        return SHMC_ERR_ARG;
    if (nranks > SHMC_MAX_RANKS)
        return SHMC_ERR_LIMIT;
    uint32_t rb = shmc__ring_bytes_for(nranks, ring_bytes_req);
    if (rb < SHMC_RING_MIN || rb > SHMC_RING_MAX || (rb & (rb - 1)))
        return SHMC_ERR_ARG;
    uint64_t pairs = (uint64_t)nranks * (nranks - 1);
    l->nranks = nranks;
    l->ring_bytes = rb;
    l->cb_off = PAGE;
    l->cb_stride = sizeof(struct shmc__rank_cb);
    l->ring_off = round_up(l->cb_off + (uint64_t)nranks * l->cb_stride, PAGE);
    l->ring_stride = sizeof(struct shmc__ring_ctrl) + rb;
    l->coll_off = round_up(l->ring_off + pairs * l->ring_stride, PAGE);
    l->coll_stride = SHMC_SLOT_STRIDE;
    l->wsync_off = round_up(l->coll_off + (uint64_t)SHMC_LANES * nranks * l->coll_stride, PAGE);
    l->wsync_bytes = shmc__wsync_lanes_bytes(nranks, SHMC_LANES);
    l->xdesc_off = round_up(l->wsync_off + l->wsync_bytes, PAGE);
    l->xdesc_stride = SHMC_XDESC_COUNT * sizeof(struct shmc__xdesc);
    l->stage_off = round_up(l->xdesc_off + (uint64_t)nranks * l->xdesc_stride, PAGE);
    l->stage_bytes = shmc__stage_bytes_for(nranks);
    l->entry_off =
        round_up(l->stage_off + (uint64_t)nranks * SHMC_LANES * 2 * l->stage_bytes, PAGE);
    l->total_size =
        round_up(l->entry_off + (uint64_t)nranks * SHMC_SLOT_ENTRIES * l->coll_stride, PAGE);
    return SHMC_OK;
}

/* /proc/PID/stat into buf; returns where field 3 (the state letter) starts, or NULL. The
 * command name (field 2) may hold spaces and parentheses, so fields count from its last
 * ')'. */
static const char *read_stat(int pid, char *buf, size_t len)
{
    char path[64];
    if (pid <= 0)
        return NULL;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] ? p + 2 : NULL;
}

uint64_t shmc__proc_start_time(int pid)
{
    char buf[1024];
    const char *p = read_stat(pid, buf, sizeof buf);
    /* Field 22, 19 fields after the state. */
    for (int field = 3; field < 22 && p; field++) {
        const char *sp = strchr(p, ' ');
        p = sp ? sp + 1 : NULL;
    }
    return p ? strtoull(p, NULL, 10) : 0;
}

char shmc__proc_state(int pid)
{
    char buf[1024];
    const char *p = read_stat(pid, buf, sizeof buf);
    return p ? *p : 0;
}

int shmc__arena_creator_alive(const struct shmc__arena_hdr *h)
{
    if (h->creator_pid <= 0)
        return 0;
    if (kill(h->creator_pid, 0) != 0 && errno == ESRCH)
        return 0;
    uint64_t st = shmc__proc_start_time(h->creator_pid);
    return st == 0 || h->creator_start == 0 || st == h->creator_start;
}

size_t shmc__shm_free_bytes(void)
{
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) != 0)
        return (size_t)-1;
    return (size_t)sv.f_bavail * (size_t)sv.f_frsize;
}

static void report_noshm(uint64_t need)
{
    /* Only SHMC_MEMFD=0 puts the arena in /dev/shm: the default keeps it outside. */
    const char *alt = ", or unset SHMC_MEMFD=0 (by default the job's memory is outside "
                      "/dev/shm)";
    size_t free_b = shmc__shm_free_bytes();
    if (free_b == (size_t)-1)
        SHMC_ERROR("the job needs %.1f MiB of shared memory and /dev/shm cannot provide it; "
                   "check that /dev/shm is mounted (df -h /dev/shm)%s",
                   (double)need / 1048576.0, alt);
    else
        SHMC_ERROR("the job needs %.1f MiB of shared memory, /dev/shm has %.1f MiB free; "
                   "free space in /dev/shm (df -h /dev/shm), run fewer ranks, or set a "
                   "smaller SHMC_RING_SIZE%s",
                   (double)need / 1048576.0, (double)free_b / 1048576.0, alt);
}

/* See arena.h. */
int shmc__arena_peek_ready(int fd, int *creator_alive)
{
    struct stat st;
    *creator_alive = 0;
    if (fstat(fd, &st) != 0 || st.st_size < 4096)
        return 0;
    const struct shmc__arena_hdr *h = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED)
        return 0;
    /* A0: the header is complete once magic is set. */
    int ready = shmc__load_acquire64(&((struct shmc__arena_hdr *)h)->magic) == SHMC_ARENA_MAGIC;
    if (ready)
        *creator_alive = shmc__arena_creator_alive(h);
    munmap((void *)h, 4096);
    return ready;
}

/* A segment still being set up (no magic yet) counts as a leftover only when older. */
#define STALE_AFTER_S 10

int shmc__arena_foreign(const char *name, char *why, size_t len)
{
    char path[300];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm%s", name);
    if (lstat(path, &st) != 0)
        return 0;
    const char *kind = S_ISLNK(st.st_mode)    ? "a symbolic link"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISDIR(st.st_mode)  ? "a directory"
                       : !S_ISREG(st.st_mode) ? "a special file"
                                              : "a file";
    if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077))
        return 0;
    snprintf(why, len, "%s owned by uid %u with mode %04o", kind, (unsigned)st.st_uid,
             (unsigned)(st.st_mode & 07777));
    return 1;
}

int shmc__arena_leftover(const char *name)
{
    char why[96];
    if (shmc__arena_foreign(name, why, sizeof why))
        return 0; /* not ours to judge, nor to remove */
    /* O_NONBLOCK: a FIFO put there since the look above must not block us. */
    int fd = shm_open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    struct stat st;
    int alive = 0, ready = shmc__arena_peek_ready(fd, &alive);
    int young = fstat(fd, &st) == 0 && time(NULL) - st.st_mtime < STALE_AFTER_S;
    close(fd);
    return !((ready && alive) || (!ready && young));
}

int shmc__arena_unique_name(char *buf, size_t len)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        return SHMC_ERR_SYS;
    int n = snprintf(buf, len, "/shmc-%u-%d-%016" PRIx64, (unsigned)geteuid(), (int)getpid(), r);
    return (n > 0 && (size_t)n < len) ? SHMC_OK : SHMC_ERR_ARG;
}

int shmc__arena_create(struct shmc__arena *a, const char *name, const struct shmc__layout *l,
                       int unlink_now, int launcher_pid, int memfd,
                       const struct shmc__pair_cost *pc)
{
    int rc = SHMC_ERR_SYS;
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->serve_fd = -1;
    if (strlen(name) >= sizeof a->name)
        return SHMC_ERR_ARG;
    snprintf(a->name, sizeof a->name, "%s", name);

    /* Refuse early with both numbers rather than fail half-way. The staging buffers and
     * the slot entries are reserved later, each rank its own, at its first staged
     * all-reduce (coll/stage.c) or communicator made (coll/nbcomm.c): most jobs never use
     * them, and reserving them here lengthened every start (bench/startup.py). */
    uint64_t reserve = l->stage_off;
    size_t free_b = shmc__shm_free_bytes();
    int small = free_b != (size_t)-1 && free_b < reserve;
    int fd, anon = unlink_now && memfd;
    if (anon) {
        fd = memfd_create("shmcomm", MFD_CLOEXEC);
        if (fd < 0 || fchmod(fd, 0600) != 0) {
            SHMC_ERROR("cannot create a memory file for the job: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            return SHMC_ERR_SYS;
        }
    } else {
        if (small) {
            report_noshm(reserve);
            return SHMC_ERR_NOSHM;
        }
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == EEXIST)
                return SHMC_ERR_STATE; /* the caller decides whether that is an error */
            SHMC_ERROR("cannot create shared memory %s: %s", name, strerror(errno));
            return SHMC_ERR_SYS;
        }
        if (unlink_now)
            shm_unlink(name);
        a->named = !unlink_now;
    }

    if (ftruncate(fd, (off_t)l->total_size) != 0) {
        SHMC_ERROR("cannot size shared memory %s: %s", name, strerror(errno));
        goto fail_unlink;
    }
    /* Reserve every page now (but the staging buffers') so a full /dev/shm is an error
     * here, not a SIGBUS later. */
    int err = posix_fallocate(fd, 0, (off_t)reserve);
    if ((err == ENOSPC || err == ENOMEM) && anon) {
        SHMC_ERROR("the job needs %.1f MiB of shared memory and the system cannot provide it "
                   "(free memory, or the memory limit of this cgroup)",
                   (double)reserve / 1048576.0);
        rc = SHMC_ERR_NOMEM;
        goto fail_unlink;
    } else if (err == ENOSPC || err == ENOMEM) {
        report_noshm(reserve);
        rc = SHMC_ERR_NOSHM;
        goto fail_unlink;
    } else if (err != 0 && err != EOPNOTSUPP && err != EINVAL) {
        SHMC_ERROR("cannot reserve shared memory %s: %s", name, strerror(err));
        goto fail_unlink;
    }

    void *base = mmap(NULL, l->total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        SHMC_ERROR("cannot map shared memory %s: %s", name, strerror(errno));
        goto fail_unlink;
    }
    a->base = base;
    a->size = l->total_size;
    a->fd = fd;
    a->hdr = (struct shmc__arena_hdr *)base;
    a->lay = *l;

    /* The object is fresh from ftruncate: every byte is zero, so every ring is empty and
     * every control block is SHMC_RANK_EMPTY. Only the header needs writing. */
    struct shmc__arena_hdr *h = a->hdr;
    h->version = SHMC_ARENA_VERSION;
    h->nranks = l->nranks;
    h->total_size = l->total_size;
    h->cb_off = l->cb_off;
    h->cb_stride = l->cb_stride;
    h->ring_off = l->ring_off;
    h->ring_stride = l->ring_stride;
    h->ring_bytes = l->ring_bytes;
    /* Without membarrier the wake-up handshake needs a fence on the sending side too,
     * and every rank must know it before its first message (doorbell.h). */
    h->flags = shmc__membarrier_available() ? 0 : SHMC_ARENA_F_FENCED_WAKE;
    a->flags = h->flags;
    if (getrandom(&h->nonce, sizeof h->nonce, 0) != (ssize_t)sizeof h->nonce)
        h->nonce = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
    a->nonce = h->nonce;
    a->creator_pid = (int32_t)getpid();
    h->creator_pid = (int32_t)getpid();
    h->creator_uid = (uint32_t)geteuid();
    h->launcher_pid = launcher_pid;
    h->line_rtt_ns = pc ? pc->rtt_ns : 0;
    a->line_rtt_ns = h->line_rtt_ns;
    h->sc_cost_pct = pc ? pc->sc_pct : 0;
    a->sc_cost_pct = h->sc_cost_pct;
    h->creator_start = shmc__proc_start_time((int)getpid());
    a->creator_start = h->creator_start;
    /* R0 pairs with A0 in attach: every header field above is visible before magic. */
    shmc__store_release64(&h->magic, SHMC_ARENA_MAGIC);
    return SHMC_OK;

fail_unlink:
    if (!unlink_now && !anon)
        shm_unlink(name);
    close(fd);
    a->fd = -1;
    return rc;
}

#define CORRUPT(...)                                                                               \
    do {                                                                                           \
        SHMC_ERROR(__VA_ARGS__);                                                                   \
        rc = SHMC_ERR_CORRUPT;                                                                     \
        goto fail_unmap;                                                                           \
    } while (0)

int shmc__arena_attach_fd(struct shmc__arena *a, int fd, unsigned expect_nranks)
{
    struct stat st;
    int rc = SHMC_ERR_CORRUPT;
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->serve_fd = -1;

    if (fstat(fd, &st) != 0) {
        SHMC_ERROR("cannot inspect the shared-memory fd %d: %s", fd, strerror(errno));
        return SHMC_ERR_SYS;
    }
    if (st.st_uid != geteuid()) {
        SHMC_ERROR("the shared-memory segment belongs to uid %u, not to this user (%u); "
                   "refusing to attach",
                   (unsigned)st.st_uid, (unsigned)geteuid());
        return SHMC_ERR_CORRUPT;
    }
    if (st.st_mode & 077) {
        SHMC_ERROR("the shared-memory segment has mode %03o; shmcomm creates it 0600 and "
                   "refuses any other",
                   (unsigned)(st.st_mode & 0777));
        return SHMC_ERR_CORRUPT;
    }
    if (st.st_size < (off_t)PAGE) {
        SHMC_ERROR("the shared-memory segment is %lld bytes, too small to be an arena",
                   (long long)st.st_size);
        return SHMC_ERR_CORRUPT;
    }
    size_t size = (size_t)st.st_size;
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        SHMC_ERROR("cannot map the shared-memory segment: %s", strerror(errno));
        return SHMC_ERR_SYS;
    }
    struct shmc__arena_hdr *h = base;

    /* A0 pairs with R0: once magic reads right, the rest of the header is complete. */
    if (shmc__load_acquire64(&h->magic) != SHMC_ARENA_MAGIC)
        CORRUPT("the shared-memory segment does not start with shmcomm's magic number");
    if (h->version != SHMC_ARENA_VERSION)
        CORRUPT("the segment has layout version %u; this library speaks version %u (mixing "
                "shmcomm versions in one job is not supported)",
                h->version, SHMC_ARENA_VERSION);
    if (h->nranks == 0 || h->nranks > SHMC_MAX_RANKS)
        CORRUPT("the segment claims %u ranks (1..%u allowed)", h->nranks, SHMC_MAX_RANKS);
    if (expect_nranks && h->nranks != expect_nranks)
        CORRUPT("the segment was made for %u ranks but this process was told the job has %u",
                h->nranks, expect_nranks);

    struct shmc__layout l;
    if (shmc__arena_layout(h->nranks, h->ring_bytes, &l) != SHMC_OK)
        CORRUPT("the segment's ring size %u is invalid", h->ring_bytes);
    if (h->cb_off != l.cb_off || h->cb_stride != l.cb_stride || h->ring_off != l.ring_off ||
        h->ring_stride != l.ring_stride || h->total_size != l.total_size)
        CORRUPT("the segment's region offsets do not match its rank count and ring size");
    if (h->total_size != size)
        CORRUPT("the segment is %zu bytes but its header says %" PRIu64, size, h->total_size);
    if (h->creator_uid != (uint32_t)geteuid())
        CORRUPT("the segment was created by uid %u", h->creator_uid);

    a->base = base;
    a->size = size;
    a->fd = fd;
    a->hdr = h;
    a->lay = l;
    a->flags = h->flags;
    a->nonce = h->nonce;
    a->line_rtt_ns = h->line_rtt_ns;
    a->sc_cost_pct = h->sc_cost_pct;
    a->creator_pid = h->creator_pid;
    a->creator_start = h->creator_start;
    return SHMC_OK;

fail_unmap:
    munmap(base, size);
    return rc;
}

void shmc__arena_detach(struct shmc__arena *a)
{
    if (a->base)
        munmap(a->base, a->size);
    if (a->fd >= 0)
        close(a->fd);
    if (a->serve_fd >= 0)
        close(a->serve_fd);
    a->base = NULL;
    a->hdr = NULL;
    a->fd = -1;
    a->serve_fd = -1;
}
