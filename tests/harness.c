/*
 * The multi-rank test harness (harness.h). The supervisor loop is a small cousin of
 * shmrun's: it uses the same library calls to mark dead ranks and abort the job.
 */
#include "harness.h"

#include <check.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/settings.h"
#include "base/log.h"
#include "shm/arena.h"
#include "shm/job.h"

#ifndef SHMC_BUILD_DIR
#define SHMC_BUILD_DIR "build"
#endif

#define MAX_TEST_RANKS 64

static int last_status[MAX_TEST_RANKS];
static int cur_rank = -1;

void shmct_fail(const char *file, int line, const char *what, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rank %d: %s:%d: %s: %s\n", cur_rank, file, line, what, msg);
    fflush(stderr);
    _exit(1);
}

/* A rank ends with _exit (its parent's atexit handlers and buffers are not its own), which
 * skips LeakSanitizer's check at exit: under AddressSanitizer a rank that finalized runs
 * the check itself, and fails where the library or the test leaked. */
static void leak_check(void)
{
#ifdef __SANITIZE_ADDRESS__
    if (__lsan_do_recoverable_leak_check())
        shmct_fail(__FILE__, __LINE__, "leak check", "LeakSanitizer found leaks (above)");
#endif
}

static void rank_main(int r, int n, int fd, shmct_fn fn, void *arg, const struct shmct_opts *o,
                      pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    cur_rank = r;
    char v[32];
    snprintf(v, sizeof v, "%d", r);
    setenv("SHMC_RANK", v, 1);
    snprintf(v, sizeof v, "%d", n);
    setenv("SHMC_SIZE", v, 1);
    snprintf(v, sizeof v, "%d", fd);
    setenv("SHMC_ARENA_FD", v, 1);
    setenv("SHMC_ARENA", "test", 1);
    for (const char *const *e = o && o->env ? o->env : NULL; e && *e; e++)
        putenv((char *)*e);
    for (const char *const *e = o && o->rank_env && o->rank_env_rank == r ? o->rank_env : NULL;
         e && *e; e++)
        putenv((char *)*e);
    if (o && o->no_init) {
        fn(NULL, r, n, arg);
        _exit(0);
    }
    shmc_comm *world;
    int rc = shmc_init(&world);
    if (rc != SHMC_OK)
        shmct_fail(__FILE__, __LINE__, "shmc_init", "%s", shmc_strerror(rc));
    fn(world, r, n, arg);
    rc = shmc_finalize();
    if (rc != SHMC_OK)
        shmct_fail(__FILE__, __LINE__, "shmc_finalize", "%s", shmc_strerror(rc));
    fflush(stdout);
    leak_check();
    _exit(0);
}

int shmct_run_opts(int n, shmct_fn fn, void *arg, const struct shmct_opts *o)
{
    struct shmc__layout lay;
    struct shmc__arena a;
    char name[64];
    pid_t pids[MAX_TEST_RANKS];

    if (n < 1 || n > MAX_TEST_RANKS)
        return n;
    /* SHMC_RING_SIZE shapes the arena, and SHMC_LINE_RTT_NS and SHMC_SINGLE_COPY_COST are
     * the figures its creator records (as a launcher measures them; unset, 0: unknown,
     * taken as near and single copy from the eager limit, whatever the machine); the
     * ranks see every variable of the test. */
    size_t ring_req = 0;
    struct shmc__pair_cost pc = {0, 0};
    for (const char *const *e = o && o->env ? o->env : NULL; e && *e; e++) {
        if (!strncmp(*e, "SHMC_RING_SIZE=", 15) && shmc__parse_size(*e + 15, &ring_req) != 0)
            ring_req = 0;
        if (!strncmp(*e, "SHMC_LINE_RTT_NS=", 17))
            pc.rtt_ns = (unsigned)strtoul(*e + 17, NULL, 10);
        if (!strncmp(*e, "SHMC_SINGLE_COPY_COST=", 22))
            pc.sc_pct = (unsigned)strtoul(*e + 22, NULL, 10);
    }
    int ok = shmc__arena_layout((unsigned)n, ring_req, &lay) == SHMC_OK &&
             shmc__arena_unique_name(name, sizeof name) == SHMC_OK &&
             shmc__arena_create(&a, name, &lay, 1, (int)getpid(), 0, &pc) == SHMC_OK;
    if (!ok) {
        fprintf(stderr, "harness: cannot create an arena for %d ranks\n", n);
        return n;
    }
    fflush(NULL);
    pid_t parent = getpid();
    for (int r = 0; r < n; r++) {
        pids[r] = fork();
        if (pids[r] == 0)
            rank_main(r, n, a.fd, fn, arg, o, parent);
        last_status[r] = -1;
    }
    int left = n, failed = 0;
    while (left > 0) {
        int st;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        int r;
        for (r = 0; r < n && pids[r] != pid; r++)
            ;
        if (r == n)
            continue;
        last_status[r] = st;
        left--;
        /* As shmrun: a failure aborts the job before the rank is marked dead, so a rank
         * that sees the death already sees the abort. */
        if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            failed++;
            if (!(o && o->expect_fail)) {
                if (WIFSIGNALED(st))
                    fprintf(stderr, "harness: rank %d killed by signal %d\n", r, WTERMSIG(st));
                else
                    fprintf(stderr, "harness: rank %d exited with %d\n", r, WEXITSTATUS(st));
            }
            if (!(o && o->keep_going))
                shmc__job_abort(&a, 1);
        }
        shmc__job_mark_dead(&a, (unsigned)r);
    }
    shmc__arena_detach(&a);
    return failed;
}

int shmct_run(int n, shmct_fn fn, void *arg)
{
    return shmct_run_opts(n, fn, arg, NULL);
}

int shmct_status(int r)
{
    return r >= 0 && r < MAX_TEST_RANKS ? last_status[r] : -1;
}

double shmct_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void shmct_fill(void *buf, size_t len, uint64_t seed)
{
    uint8_t *p = buf;
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        uint64_t w = shmct_word(seed, k);
        memcpy(p + k * 8, &w, 8);
    }
    uint64_t w = shmct_word(seed, k);
    memcpy(p + k * 8, &w, len - k * 8);
}

size_t shmct_verify(const void *buf, size_t len, uint64_t seed)
{
    const uint8_t *p = buf;
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        uint64_t w = shmct_word(seed, k), got;
        memcpy(&got, p + k * 8, 8);
        if (got != w)
            break;
    }
    uint64_t w = shmct_word(seed, k);
    const uint8_t *wb = (const uint8_t *)&w;
    for (size_t i = k * 8; i < len; i++)
        if (p[i] != wb[i - k * 8])
            return i;
    return (size_t)-1;
}

const char *shmct_build_path(const char *rel, char *buf, size_t len)
{
    const char *b = getenv("SHMC_TEST_BUILD");
    snprintf(buf, len, "%s/%s", b && *b ? b : SHMC_BUILD_DIR, rel);
    return buf;
}

/* Is /dev/shm/name a job's arena whose creator, not this process, still runs (its
 * header's pid)? An embedded job's arena is named for its key, not its maker: one of a
 * suite running beside this one (make -j2 check) is live, not left behind. */
static int live_elsewhere(const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "/dev/shm/%s", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct shmc__arena_hdr h;
    ssize_t got = pread(fd, &h, sizeof h, 0);
    close(fd);
    if (got != (ssize_t)sizeof h || h.creator_pid == getpid())
        return 0;
    return shmc__arena_creator_alive(&h);
}

int shmct_shm_segments(char *buf, size_t len)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "shmc-%u-", (unsigned)geteuid());
    int n = 0;
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        /* A job's arena is named for the process that made it (lib/shm/arena.c): one whose
         * maker, not this process, still runs is another suite's, live beside this one
         * (make -j2 check), not one left behind. */
        char *end;
        long pid = strtol(e->d_name + strlen(prefix), &end, 10);
        if (end != e->d_name + strlen(prefix) && *end == '-' && pid > 0 && pid != getpid() &&
            (kill((pid_t)pid, 0) == 0 || errno == EPERM))
            continue;
        if (e->d_name[strlen(prefix)] == 'j' && live_elsewhere(e->d_name))
            continue;
        n++;
        if (used + strlen(e->d_name) + 2 < len)
            used += (size_t)snprintf(buf + used, len - used, "%s ", e->d_name);
    }
    closedir(d);
    return n;
}

const char *shmct_tail(const char *text)
{
    size_t n = strlen(text);
    return n > 3000 ? text + n - 3000 : text;
}

int shmct_sh(const char *cmd, char *out, size_t len)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], STDOUT_FILENO);
        dup2(p[1], STDERR_FILENO);
        close(p[0]);
        close(p[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    static const char gap[] = "\n[... output left out here ...]\n";
    size_t cap = len ? len - 1 : 0, head = cap / 2, used = 0, dropped = 0;
    char tmp[4096];
    ssize_t r;
    while ((r = read(p[0], tmp, sizeof tmp)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t take = (size_t)r;
        if (used + take > cap && cap > head + sizeof gap + sizeof tmp) {
            /* Full: the oldest bytes after the head go, the gap's line takes their place
             * once. */
            if (!dropped) {
                memcpy(out + head, gap, sizeof gap - 1);
                dropped = 1;
            }
            size_t keep_from = head + sizeof gap - 1, drop = used + take - cap;
            memmove(out + keep_from, out + keep_from + drop, used - keep_from - drop);
            used -= drop;
        } else if (used + take > cap) {
            take = cap - used; /* too small a buffer for a head and a tail: the head */
        }
        memcpy(out + used, tmp, take);
        used += take;
    }
    if (len)
        out[used] = '\0';
    close(p[0]);
    int st = -1;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

int shmct_shm_baseline;

void shmct_shm_snapshot(void)
{
    char names[1024];
    shmct_shm_baseline = shmct_shm_segments(names, sizeof names);
}

void shmct_shm_verify(void)
{
    char names[1024];
    int now = shmct_shm_segments(names, sizeof names);
    ck_assert_msg(now <= shmct_shm_baseline, "segments left in /dev/shm: %s", names);
}

int shmct_main(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

static int saved_stderr = -1;
static FILE *capture;

void shmct_stderr_begin(void)
{
    fflush(stderr);
    capture = tmpfile();
    saved_stderr = dup(STDERR_FILENO);
    if (capture)
        dup2(fileno(capture), STDERR_FILENO);
}

const char *shmct_stderr_end(char *buf, size_t len)
{
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    size_t n = 0;
    if (capture) {
        rewind(capture);
        n = fread(buf, 1, len - 1, capture);
        fclose(capture);
        capture = NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* A seccomp filter that makes system call nr fail with errno err, as a container or a
 * Yama policy would. */
int shmct_refuse_syscall(long nr, int err)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (uint32_t)err),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int shmct_arena_view(struct shmc__arena *a)
{
    const char *s = getenv("SHMC_ARENA_FD");
    int fd = s ? dup(atoi(s)) : -1;
    if (fd < 0 || shmc__arena_attach_fd(a, fd, 0) != SHMC_OK)
        shmct_fail(__FILE__, __LINE__, "shmct_arena_view", "cannot attach the job's arena");
    return 0;
}

void *shmct_page(void)
{
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(page != MAP_FAILED, "a shared page: %s", strerror(errno));
    return page;
}

void shmct_page_free(void *page)
{
    munmap(page, 4096);
}
