/*
 * shmrun's main loop: waits on a signalfd (children ending, signals to forward) and on
 * the ranks' output pipes, and runs the failure policy: the first rank that exits
 * non-zero or dies by a signal is reported, the job is marked aborted in the arena (so
 * ranks blocked in shmcomm return SHMC_ERR_ABORTED at once), and whatever still runs
 * after a grace period gets SIGTERM, then SIGKILL.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "job.h"
#include "shm/hang.h"
#include "shm/job.h"

static const char *sig_name(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    snprintf(buf, len, "SIG%s", abbrev ? abbrev : "?");
    return buf;
}

/* What each rank is blocked on, and the wait-for cycles (lib/shm/hang.c). */
static void hang_report(const struct shmrun_job *j)
{
    int *alive = calloc((size_t)j->n, sizeof *alive);
    for (int r = 0; alive && r < j->n; r++)
        alive[r] = j->ranks[r].running;
    shmc__hang_report(&j->arena, j->n, alive, stderr, "shmrun: ");
    free(alive);
}

static void begin_abort(struct shmrun_job *j, int code)
{
    if (j->aborting)
        return;
    j->aborting = 1;
    j->set_abort = shmc__job_abort(&j->arena, code);
    j->term_at = shmc__now_ns() + (uint64_t)SHMRUN_GRACE_MS * 1000000u;
    if (j->nrunning > 0)
        fprintf(stderr, "shmrun: ending the job; %d rank%s still running\n", j->nrunning,
                j->nrunning == 1 ? " is" : "s are");
}

static void report_failure(struct shmrun_job *j, int r, int st)
{
    pid_t pid = j->ranks[r].pid;
    char name[32];
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        fprintf(stderr, "shmrun: rank %d (pid %d) was killed by signal %d (%s)%s\n", r, (int)pid,
                sig, sig_name(sig, name, sizeof name), WCOREDUMP(st) ? ", core dumped" : "");
        j->exit_status = 128 + sig;
    } else {
        fprintf(stderr, "shmrun: rank %d (pid %d) exited with code %d\n", r, (int)pid,
                WEXITSTATUS(st));
        j->exit_status = WEXITSTATUS(st);
    }
}

/* Rank r ended with status st, not 0. A rank's shmc_abort ends the job with its code
 * whichever rank shmrun happens to reap first: the others may leave (with codes of their
 * own) as soon as they see the abort word, before the aborting rank is reaped. */
static void on_failure(struct shmrun_job *j, int r, int st)
{
    const struct shmc__arena_hdr *h = j->arena.hdr;
    uint32_t ab = shmc__load_acquire32(&h->abort);
    int by_rank = ab && !j->set_abort;
    /* A rank writes only the flag and an exit code from 1 to 255, and its own rank: any
     * other word was scribbled there, and is no rank's request to end the job. */
    if (by_rank && ((ab & ~(SHMC_ABORT_FLAG | 255u)) != 0 || !(ab & SHMC_ABORT_FLAG) ||
                    !(ab & 255u) || shmc__load_relaxed32(&h->abort_rank) >= (uint32_t)j->n)) {
        if (!j->aborting) {
            fprintf(stderr,
                    "shmrun: the job's shared memory was overwritten (its abort word reads "
                    "0x%08x, which no rank writes); ending the job\n",
                    ab);
            j->exit_status = 1;
            begin_abort(j, 1);
        }
        return;
    }
    if (by_rank && WIFEXITED(st) && shmc__load_relaxed32(&h->abort_rank) == (uint32_t)r) {
        /* Its relaxed store of abort_rank is done: it has exited since. */
        fprintf(stderr, "shmrun: rank %d (pid %d) called shmc_abort(%d)\n", r, (int)j->ranks[r].pid,
                WEXITSTATUS(st));
        if (!j->aborting) {
            j->exit_status = WEXITSTATUS(st);
            begin_abort(j, j->exit_status);
        }
        return;
    }
    if (j->aborting)
        return;
    if (by_rank) {
        j->exit_status = (int)(ab & 255u);
        begin_abort(j, j->exit_status);
        return; /* reported when the aborting rank is reaped */
    }
    int first = j->exit_status;
    report_failure(j, r, st);
    /* --keep-going: the others go on (each failure is reported, the first one's status
     * is the job's). */
    if (j->o->keep_going) {
        if (first)
            j->exit_status = first;
    } else {
        begin_abort(j, j->exit_status);
    }
}

static void reap(struct shmrun_job *j)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        int r;
        for (r = 0; r < j->n && j->ranks[r].pid != pid; r++)
            ;
        if (r == j->n || !j->ranks[r].running)
            continue;
        j->ranks[r].running = 0;
        j->ranks[r].status = st;
        j->nrunning--;
        /* A rank that left the job cleanly and then exited non-zero chose its code: it is
         * the job's (the first such), said by shmrun's status alone, and the others, past
         * their own finalize or on their way there, are let be (as MPICH's mpiexec does).
         * Any other ending is a failure. Abort before marking it dead: a rank that sees
         * the death then sees the abort. */
        if (WIFEXITED(st) && WEXITSTATUS(st) != 0 && shmc__job_finalized(&j->arena, (unsigned)r)) {
            if (!j->exit_status)
                j->exit_status = WEXITSTATUS(st);
        } else if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            on_failure(j, r, st);
        }
        shmc__job_mark_dead(&j->arena, (unsigned)r); /* no-op if it finalized */
    }
}

static void signal_all(struct shmrun_job *j, int sig)
{
    for (int r = 0; r < j->n; r++)
        if (j->ranks[r].running)
            kill(j->ranks[r].pid, sig);
}

static void on_signal(struct shmrun_job *j, const struct signalfd_siginfo *si)
{
    int sig = (int)si->ssi_signo;
    if (sig == SIGCHLD) {
        reap(j);
        return;
    }
    if (sig == SIGUSR1) {
        hang_report(j);
        return;
    }
    char name[32];
    j->interrupts++;
    if (j->interrupts > 1) {
        fprintf(stderr, "shmrun: %s again: killing the job\n", sig_name(sig, name, sizeof name));
        signal_all(j, SIGKILL);
        return;
    }
    /* A terminal's ^C already reached the ranks (same process group); anything sent to
     * shmrun alone is passed on. */
    if (si->ssi_code != SI_KERNEL)
        signal_all(j, sig);
}

static void check_deadlines(struct shmrun_job *j)
{
    uint64_t now = shmc__now_ns();
    if (j->timeout_at && now >= j->timeout_at && !j->timed_out) {
        j->timed_out = 1;
        fprintf(stderr, "shmrun: the job ran longer than --timeout %g s; ending it\n",
                j->o->timeout_s);
        hang_report(j);
        if (!j->aborting) {
            j->exit_status = SHMRUN_EXIT_TIMEOUT;
            begin_abort(j, SHMRUN_EXIT_TIMEOUT);
        }
    }
    if (j->term_at && now >= j->term_at) {
        j->term_at = 0;
        if (j->nrunning) {
            signal_all(j, SIGTERM);
            signal_all(j, SIGCONT); /* a stopped rank acts on SIGTERM only once it runs */
            j->kill_at = now + (uint64_t)SHMRUN_KILL_MS * 1000000u;
        }
    }
    if (j->kill_at && now >= j->kill_at) {
        j->kill_at = 0;
        if (j->nrunning) {
            fprintf(stderr, "shmrun: %d rank%s ignored SIGTERM; sending SIGKILL\n", j->nrunning,
                    j->nrunning == 1 ? "" : "s");
            signal_all(j, SIGKILL);
        }
    }
}

static int poll_timeout_ms(const struct shmrun_job *j)
{
    uint64_t next = 0, now = shmc__now_ns();
    uint64_t cand[3] = {j->timed_out ? 0 : j->timeout_at, j->term_at, j->kill_at};
    for (int i = 0; i < 3; i++)
        if (cand[i] && (!next || cand[i] < next))
            next = cand[i];
    if (!next)
        return -1;
    return next <= now ? 0 : (int)((next - now) / 1000000u) + 1;
}

int shmrun_supervise(struct shmrun_job *j)
{
    struct pollfd *fds = calloc(1 + 2 * (size_t)j->n, sizeof *fds);
    struct shmrun_stream **streams = calloc(2 * (size_t)j->n, sizeof *streams);
    if (!fds || !streams) {
        fprintf(stderr, "shmrun: out of memory\n");
        signal_all(j, SIGKILL);
    }
    if (j->o->timeout_s > 0)
        j->timeout_at = shmc__now_ns() + (uint64_t)(j->o->timeout_s * 1e9);

    while (j->nrunning > 0 && fds && streams) {
        int nfds = 0, ns = 0;
        fds[nfds++] = (struct pollfd){.fd = j->sigfd, .events = POLLIN};
        for (int r = 0; r < j->n; r++) {
            struct shmrun_stream *s[2] = {&j->ranks[r].out, &j->ranks[r].err};
            for (int k = 0; k < 2; k++) {
                if (s[k]->fd < 0)
                    continue;
                streams[ns++] = s[k];
                fds[nfds++] = (struct pollfd){.fd = s[k]->fd, .events = POLLIN};
            }
        }
        int rc = poll(fds, (nfds_t)nfds, poll_timeout_ms(j));
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "shmrun: poll failed: %s\n", strerror(errno));
            break;
        }
        if (rc > 0 && (fds[0].revents & POLLIN)) {
            struct signalfd_siginfo si;
            while (read(j->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
                on_signal(j, &si);
        }
        for (int i = 1; i < nfds && rc > 0; i++)
            if (fds[i].revents)
                shmrun_stream_pump(streams[i - 1]);
        check_deadlines(j);
    }
    /* Every rank is gone: pass on what is still in the pipes (a grandchild may keep a
     * pipe open; we do not wait for it). */
    for (int r = 0; r < j->n; r++) {
        struct shmrun_stream *s[2] = {&j->ranks[r].out, &j->ranks[r].err};
        for (int k = 0; k < 2; k++) {
            while (s[k]->fd >= 0) {
                struct pollfd p = {.fd = s[k]->fd, .events = POLLIN};
                if (poll(&p, 1, 0) <= 0) {
                    shmrun_stream_close(s[k]);
                    break;
                }
                shmrun_stream_pump(s[k]);
            }
        }
    }
    free(fds);
    free(streams);
    if (j->timed_out && j->exit_status == 0)
        j->exit_status = SHMRUN_EXIT_TIMEOUT;
    return j->exit_status;
}
