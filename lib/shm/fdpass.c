/*
 * The job's memory file, handed over an abstract Unix socket (fdpass.h). Why a socket in
 * the abstract namespace, and not /dev/shm, a file path or pidfd_getfd: docs/design.md,
 * "The arena".
 */
#include "shm/fdpass.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "shmcomm.h"

/* What a listener sends with the descriptor: one byte, so that the descriptor has a
 * message to ride on. */
#define FDPASS_BYTE 'S'

/* The message both sides pass: one byte, and room for one descriptor beside it. */
struct fdmsg {
    char byte;
    struct iovec iov;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr m;
};

static void fdmsg_init(struct fdmsg *f, char byte)
{
    memset(f, 0, sizeof *f);
    f->byte = byte;
    f->iov.iov_base = &f->byte;
    f->iov.iov_len = 1;
    f->m.msg_iov = &f->iov;
    f->m.msg_iovlen = 1;
    f->m.msg_control = f->u.buf;
    f->m.msg_controllen = sizeof f->u.buf;
}

/* The abstract address for name: a NUL, then the name without its leading '/'. */
static socklen_t address(const char *name, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    const char *n = name[0] == '/' ? name + 1 : name;
    size_t len = strlen(n);
    if (len > sizeof sa->sun_path - 1)
        len = sizeof sa->sun_path - 1;
    memcpy(sa->sun_path + 1, n, len);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

/* The process at the other end of s, as the kernel reports it; 0 if it does not, with
 * *c naming nobody (pid 0, uid -1), so that a message may still print it. */
static int peer_cred(int s, struct ucred *c)
{
    *c = (struct ucred){.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
    socklen_t len = sizeof *c;
    return getsockopt(s, SOL_SOCKET, SO_PEERCRED, c, &len) == 0 && len == sizeof *c;
}

/* Who listens on the socket called name: 1 and *c if a listener answered; 0 if none
 * does (or it accepts no connection: bound but not listening, or its queue full). */
static int listener(const char *name, struct ucred *c)
{
    struct sockaddr_un sa;
    socklen_t len = address(name, &sa);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return 0;
    int who = connect(s, (struct sockaddr *)&sa, len) == 0 && peer_cred(s, c);
    close(s);
    return who;
}

int shmc__fdpass_listen(const char *name, int *lfd)
{
    struct sockaddr_un sa;
    socklen_t len = address(name, &sa);
    for (int attempt = 0; attempt < 3; attempt++) {
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0) {
            SHMC_ERROR("cannot make a socket to hand out the job's memory: %s", strerror(errno));
            return SHMC_ERR_SYS;
        }
        if (bind(s, (struct sockaddr *)&sa, len) == 0 && listen(s, SOMAXCONN) == 0) {
            *lfd = s;
            return SHMC_OK;
        }
        int err = errno;
        close(s);
        if (err != EADDRINUSE) {
            SHMC_ERROR("cannot listen on the socket @%s to hand out the job's memory: %s",
                       sa.sun_path + 1, strerror(err));
            return SHMC_ERR_SYS;
        }
        struct ucred c;
        if (listener(name, &c)) {
            if (c.uid == geteuid())
                return SHMC_ERR_STATE;
            SHMC_ERROR("the socket name @%s is held by pid %d of uid %u, which no shmcomm job "
                       "of this user (uid %u) made: it is never used. Ask its owner to stop "
                       "it, or give this job another name with SHMC_JOB_ID (or start it with "
                       "shmrun, whose memory no name leads to)",
                       sa.sun_path + 1, (int)c.pid, (unsigned)c.uid, (unsigned)geteuid());
            return SHMC_ERR_ENV;
        }
        /* Bound but answering nobody, or gone between the two looks: look again. */
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    SHMC_ERROR("the socket name @%s is held by a socket that answers nobody (a process that "
               "is not a shmcomm job); give this job another name with SHMC_JOB_ID",
               sa.sun_path + 1);
    return SHMC_ERR_ENV;
}

int shmc__fdpass_serve(int lfd, int fd)
{
    int served = 0;
    for (;;) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return served; /* EAGAIN: nobody else waits */
        }
        struct ucred cr;
        if (!peer_cred(c, &cr) || cr.uid != geteuid()) {
            SHMC_INFO("refused the job's memory to a process of another user (pid %d, uid %u)",
                      (int)cr.pid, (unsigned)cr.uid);
            close(c);
            continue;
        }
        struct fdmsg f;
        fdmsg_init(&f, FDPASS_BYTE);
        struct cmsghdr *h = CMSG_FIRSTHDR(&f.m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof fd);
        /* A process that gave up waiting has closed its end: EPIPE, nothing served. */
        if (sendmsg(c, &f.m, MSG_NOSIGNAL) == 1)
            served++;
        close(c);
    }
}

int shmc__fdpass_fetch(const char *name, int *fd)
{
    struct sockaddr_un sa;
    socklen_t len = address(name, &sa);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        SHMC_ERROR("cannot make a socket to receive the job's memory: %s", strerror(errno));
        return SHMC_ERR_SYS;
    }
    /* Bounded: a listener busy making the arena answers within this or on the next try. */
    struct timeval tv = {.tv_sec = 1, .tv_usec = 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(s, (struct sockaddr *)&sa, len) != 0) {
        int err = errno;
        close(s);
        if (err == ECONNREFUSED || err == ENOENT || err == EAGAIN || err == EINTR ||
            err == ETIMEDOUT || err == EINPROGRESS)
            return 1;
        SHMC_ERROR("cannot connect to the socket @%s that hands out the job's memory: %s",
                   sa.sun_path + 1, strerror(err));
        return SHMC_ERR_SYS;
    }
    struct ucred cr;
    if (!peer_cred(s, &cr) || cr.uid != geteuid()) {
        SHMC_ERROR("the socket @%s that should hand out the job's memory is held by pid %d of "
                   "uid %u, not by this user (uid %u): refusing it. Ask its owner to stop it, "
                   "or give this job another name with SHMC_JOB_ID",
                   sa.sun_path + 1, (int)cr.pid, (unsigned)cr.uid, (unsigned)geteuid());
        close(s);
        return SHMC_ERR_ENV;
    }
    struct fdmsg f;
    fdmsg_init(&f, 0);
    ssize_t n = recvmsg(s, &f.m, MSG_CMSG_CLOEXEC);
    close(s);
    struct cmsghdr *h = n == 1 ? CMSG_FIRSTHDR(&f.m) : NULL;
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
        h->cmsg_len == CMSG_LEN(sizeof(int))) {
        int got;
        memcpy(&got, CMSG_DATA(h), sizeof got);
        if (f.byte == FDPASS_BYTE && !(f.m.msg_flags & MSG_CTRUNC)) {
            *fd = got;
            return SHMC_OK;
        }
        close(got);
    }
    /* Nothing yet (the listener had not served before our time-out), or not what a
     * listener of ours sends: try again. */
    return 1;
}
