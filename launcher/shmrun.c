/*
 * shmrun: starts the ranks of a shmcomm job on this machine and supervises them.
 *
 * Order matters for cleanup: the arena is created and its name removed from /dev/shm
 * before any rank exists, so from then on it lives only as long as some process holds
 * it (shmrun or a rank). Nothing is left in /dev/shm whatever happens to the job,
 * including SIGKILL of shmrun (the ranks then get SIGKILL through PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/machine.h"
#include "base/settings.h"
#include "coll/rules.h"
#include "cleanup.h"
#include "gpus.h"
#include "job.h"
#include "output.h"
#include "shmcomm.h"

/* --info's head: this machine as a tuned file names it, who made its CPUs as the rules
 * name them, how far apart its CPUs run now (as a job starting now would find them), and
 * the built-in rules' digest and the user's tuned rules, as bench/tune.py records and the
 * library checks them (coll/rules.h). */
static void print_machine(void)
{
    char desc[320], cache[512];
    struct shmc__config cfg;
    shmc__machine_desc(desc, sizeof desc);
    printf("shmcomm %s on this machine: %s\n", shmc_version(), desc);
    /* (a bad variable, said on stderr, leaves the defaults: --info lists them all) */
    int ok = shmc__config_load(&cfg) == SHMC_OK;
    printf("its CPUs' maker and family, as the dispatch rules name them: %s%s, %u%s\n",
           shmc__cpu_maker_name(shmc__cpu_maker(ok ? cfg.cpu_maker : -1)),
           ok && cfg.cpu_maker >= 0 ? " (SHMC_CPU_MAKER)" : "",
           shmc__cpu_family(ok ? cfg.cpu_family : ~0u),
           ok && cfg.cpu_family != ~0u ? " (SHMC_CPU_FAMILY)" : "");
    struct shmc__pair_cost pc;
    shmc__pair_cost(ok ? cfg.line_rtt_ns : 0, ok ? cfg.sc_cost_pct : 0, 2, &pc);
    unsigned rtt = pc.rtt_ns;
    printf("a cache line's round trip between the first two CPUs: ");
    if (!rtt)
        printf("not measured (one CPU, or the two never ran at once): near\n");
    else if (!ok)
        printf("%u ns now\n", rtt);
    else
        printf("%u ns%s: %s (SHMC_FAR_NS %u)\n", rtt,
               cfg.line_rtt_ns ? " (SHMC_LINE_RTT_NS)" : " now",
               rtt >= cfg.far_ns ? "far" : "near", cfg.far_ns);
    printf("a single copy of %u KiB between them against a plain copy: ",
           SHMC_PAIR_COPY_BYTES >> 10);
    if (ok && !cfg.single_copy)
        printf("not consulted (SHMC_SINGLE_COPY=0: large messages through the mailboxes)\n");
    else if (ok && cfg.single_copy_min != (size_t)~0ull)
        printf("not consulted (SHMC_SINGLE_COPY_MIN=%zu: single copy from that size, above the "
               "eager limit)\n",
               cfg.single_copy_min);
    else if (!pc.sc_pct)
        printf("not measured: large messages by single copy\n");
    else {
        size_t min = shmc__single_copy_min_auto(pc.sc_pct, ok && pc.rtt_ns >= cfg.far_ns);
        printf("%u%%%s: ", pc.sc_pct, ok && cfg.sc_cost_pct ? " (SHMC_SINGLE_COPY_COST)" : " now");
        if (min)
            printf("messages below %zu bytes through the mailboxes\n", min);
        else
            printf("messages above the eager limit by single copy\n");
    }
    shmc__rules_cache_path(cache, sizeof cache);
    printf("built-in dispatch rules: %016llx; the user's tuned rules: %s%s\n\n",
           (unsigned long long)shmc__rules_shipped_digest(), *cache ? cache : "(no HOME)",
           *cache && access(cache, F_OK) == 0 ? "" : " (none)");
}

static int make_arena(struct shmrun_job *j)
{
    struct shmc__config cfg;
    struct shmc__layout lay;
    char name[64];
    /* The SHMC_* variables are checked here too, so a typo stops the job before it starts. */
    if (shmc__config_load(&cfg) != SHMC_OK)
        return -1;
    int rc = shmc__arena_layout((unsigned)j->n, cfg.ring_bytes, &lay);
    struct shmc__pair_cost pc;
    shmc__pair_cost(cfg.line_rtt_ns, cfg.sc_cost_pct, (unsigned)j->n, &pc);
    if (rc == SHMC_OK)
        rc = shmc__arena_unique_name(name, sizeof name);
    if (rc == SHMC_OK)
        rc = shmc__arena_create(&j->arena, name, &lay, 1, (int)getpid(), cfg.memfd, &pc);
    if (rc != SHMC_OK) {
        fprintf(stderr, "shmrun: cannot set up shared memory for %d ranks: %s\n", j->n,
                shmc_strerror(rc));
        return -1;
    }
    return 0;
}

static int setup_signals(struct shmrun_job *j)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1); /* the hang report, report.c */
    if (sigprocmask(SIG_BLOCK, &set, &j->oldmask) != 0)
        return -1;
    signal(SIGPIPE, SIG_IGN);
    j->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    return j->sigfd < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    static char out[4096], err[8192];
    struct shmrun_opts o;
    struct shmrun_job j;
    int status;

    shmc__log_level = SHMC_LOG_ERROR;
    int rc = shmrun_parse(argc, argv, &o, out, sizeof out, err, sizeof err);
    if (rc >= 0) {
        fputs(out, stdout);
        if (*err)
            fprintf(stderr, "%s%s", err, err[strlen(err) - 1] == '\n' ? "" : "\n");
        return rc;
    }

    if (o.cleanup)
        return shmrun_cleanup();
    if (o.info) {
        if (o.info == SHMRUN_INFO_TEXT)
            print_machine();
        shmc__settings_print(stdout, o.info == SHMRUN_INFO_MARKDOWN);
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    }
    memset(&j, 0, sizeof j);
    j.o = &o;
    j.n = o.nranks;
    j.sigfd = -1;
    j.ranks = calloc((size_t)j.n, sizeof *j.ranks);
    if (!j.ranks) {
        fprintf(stderr, "shmrun: out of memory\n");
        return 1;
    }
    if (setup_signals(&j) != 0) {
        fprintf(stderr, "shmrun: cannot set up signal handling: %s\n", strerror(errno));
        return 1;
    }
    if (o.bind != SHMRUN_BIND_NONE || o.report_bindings)
        j.bind = shmrun_bind_plan(o.bind, j.n);
    if (make_arena(&j) != 0)
        return 1;

    int targets = shmrun_bind_targets(j.bind);
    if (o.report_bindings) {
        for (int r = 0; r < j.n; r++) {
            char where[192];
            shmrun_bind_describe(o.bind == SHMRUN_BIND_NONE ? NULL : j.bind, r, where,
                                 sizeof where);
            fprintf(stderr, "shmrun: rank %d bound to %s\n", r, where);
        }
        if (targets && j.n > targets && o.bind == SHMRUN_BIND_CORE)
            fprintf(stderr, "shmrun: %d ranks share %d core%s (oversubscribed, round-robin)\n", j.n,
                    targets, targets == 1 ? "" : "s");
        shmrun_gpus_report(o.bind == SHMRUN_BIND_NONE ? NULL : j.bind, j.n, stderr);
    }

    for (int r = 0; r < j.n; r++) {
        if (shmrun_spawn(&j, r) != 0) {
            for (int k = 0; k < r; k++)
                kill(j.ranks[k].pid, SIGKILL);
            j.exit_status = 1;
            j.aborting = 1;
            break;
        }
    }
    status = shmrun_supervise(&j);
    /* Output we could not pass on is a failure a pipeline must see (as SIGPIPE would). */
    if (shmrun_output_lost() && status == 0)
        status = 128 + SIGPIPE;
    shmc__arena_detach(&j.arena);
    shmrun_bind_free(j.bind);
    free(j.ranks);
    return status;
}
