/*
 * Starting one rank: fork, then in the child set up what the program will see (signal
 * mask, death signal, stdio, binding, environment, the inherited arena descriptor) and
 * exec. The parent has every signal it handles blocked, so nothing is lost between fork
 * and the supervisor's first read of its signalfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "job.h"

static void set_env_int(const char *name, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    setenv(name, buf, 1);
}

/* A TCP port of 127.0.0.1 that nothing listens on now, for torch's env:// rendezvous
 * (rank 0's TCPStore binds it), or 0 if none could be found. */
static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

static void child(struct shmrun_job *j, int r, pid_t parent, int out[2], int err[2])
{
    /* Die with shmrun: if it is killed (even by SIGKILL), the ranks go too. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1); /* shmrun died before we got here */
    sigprocmask(SIG_SETMASK, &j->oldmask, NULL);
    signal(SIGPIPE, SIG_DFL);

    if (j->o->tag_output) {
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
    }
    if (r > 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            close(null);
        }
    }
    if (shmrun_bind_apply(j->bind, r) != 0)
        fprintf(stderr, "shmrun: warning: rank %d could not be bound (%s); it runs unbound\n", r,
                strerror(errno));

    set_env_int("SHMC_RANK", r);
    set_env_int("SHMC_SIZE", j->n);
    setenv("SHMC_ARENA", j->arena.name, 1);
    set_env_int("SHMC_ARENA_FD", j->arena.fd);
    int pus = shmrun_bind_pus(j->bind);
    if (pus > 0)
        set_env_int("SHMC_CPUS", pus);
    set_env_int("RANK", r);
    set_env_int("WORLD_SIZE", j->n);
    set_env_int("LOCAL_RANK", r);
    set_env_int("LOCAL_WORLD_SIZE", j->n);
    /* torch's init_method="env://" also needs the rendezvous address; one the user set
     * wins. */
    setenv("MASTER_ADDR", "127.0.0.1", 0);
    if (j->master_port > 0 && !getenv("MASTER_PORT"))
        set_env_int("MASTER_PORT", j->master_port);
    /* -x and -genv: the user's settings, after shmrun's own (a user may override them). */
    for (int e = 0; e < j->o->nenv; e++) {
        const char *name = j->o->env_name[e], *eq = strchr(name, '=');
        if (j->o->env_value[e])
            setenv(name, j->o->env_value[e], 1);
        else if (eq)
            putenv((char *)(uintptr_t)name); /* "VAR=value", from shmrun's own argv */
    }
    /* The arena descriptor is the only thing that keeps the (already unlinked) segment
     * reachable: let it cross exec. */
    fcntl(j->arena.fd, F_SETFD, 0);

    execv(j->o->prog, j->o->argv);
    fprintf(stderr, "shmrun: rank %d: cannot execute %s: %s\n", r, j->o->prog, strerror(errno));
    _exit(127);
}

int shmrun_spawn(struct shmrun_job *j, int r)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    struct shmrun_rank *rk = &j->ranks[r];
    if (j->o->tag_output && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
        fprintf(stderr, "shmrun: cannot create output pipes: %s\n", strerror(errno));
        return -1;
    }
    if (!j->master_port)
        j->master_port = getenv("MASTER_PORT") ? -1 : free_port();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "shmrun: cannot start rank %d: %s\n", r, strerror(errno));
        return -1;
    }
    if (pid == 0)
        child(j, r, parent, out, err);

    rk->pid = pid;
    j->arena.pids[r] = (int32_t)pid; /* for the hang report's look at /proc */
    rk->running = 1;
    j->nrunning++;
    shmrun_stream_init(&rk->out, -1, STDOUT_FILENO, r);
    shmrun_stream_init(&rk->err, -1, STDERR_FILENO, r);
    if (j->o->tag_output) {
        close(out[1]);
        close(err[1]);
        fcntl(out[0], F_SETFL, O_NONBLOCK);
        fcntl(err[0], F_SETFL, O_NONBLOCK);
        shmrun_stream_init(&rk->out, out[0], STDOUT_FILENO, r);
        shmrun_stream_init(&rk->err, err[0], STDERR_FILENO, r);
    }
    return 0;
}
