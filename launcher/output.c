/* Tagged output forwarding (output.h). Single-threaded: called from the supervisor. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define FIRST_CAP 8192u /* each stream's buffer to begin with */

static int lost; /* a write to our stdout or stderr failed */

int shmrun_output_lost(void)
{
    return lost;
}

void shmrun_stream_init(struct shmrun_stream *s, int fd, int out_fd, int rank)
{
    s->fd = fd;
    s->out_fd = out_fd;
    s->rank = rank;
    s->continued = 0;
    s->used = 0;
    s->cap = 0;
    s->buf = NULL;
}

/* Writes the tag and the line as one writev, so concurrent writers to the same terminal
 * or pipe see whole lines (pipes keep writes up to PIPE_BUF whole; longer ones come from
 * this one process only). */
static void emit(struct shmrun_stream *s, const char *line, size_t n, int split)
{
    if (lost)
        return;
    char tag[24];
    int h = snprintf(tag, sizeof tag, s->continued ? "[%d]+ " : "[%d] ", s->rank);
    struct iovec v[3] = {{tag, (size_t)h}, {(void *)line, n}, {"\n", 1}};
    size_t left = (size_t)h + n + 1;
    int i = 0;
    while (left) {
        ssize_t w = writev(s->out_fd, v + i, 3 - i);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            lost = 1;
            /* stderr may be the broken one too; if it is, this is lost as well. */
            fprintf(stderr,
                    "shmrun: cannot write the ranks' output (%s): dropping the rest; "
                    "the job goes on\n",
                    w < 0 ? strerror(errno) : "nothing written");
            return;
        }
        left -= (size_t)w;
        for (size_t k = (size_t)w; k;) {
            size_t take = k < v[i].iov_len ? k : v[i].iov_len;
            v[i].iov_base = (char *)v[i].iov_base + take;
            v[i].iov_len -= take;
            k -= take;
            if (!v[i].iov_len)
                i++;
        }
    }
    s->continued = split;
}

/* Room for more input: doubles the buffer up to the cap. 0 if full at the cap. */
static size_t room(struct shmrun_stream *s)
{
    if (s->used < s->cap)
        return s->cap - s->used;
    if (s->cap >= SHMRUN_LINE_CAP)
        return 0;
    size_t want = s->cap ? s->cap * 2 : FIRST_CAP;
    char *b = realloc(s->buf, want);
    if (!b)
        return s->cap - s->used; /* keep what we have; flushed in pieces below */
    s->buf = b;
    s->cap = want;
    return s->cap - s->used;
}

int shmrun_stream_pump(struct shmrun_stream *s)
{
    if (s->fd < 0)
        return 1;
    size_t free_bytes = room(s);
    if (!s->cap) { /* no memory for even the first buffer: pass on what comes, in pieces */
        char tmp[4096];
        ssize_t r = read(s->fd, tmp, sizeof tmp);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            return 0;
        if (r <= 0) {
            shmrun_stream_close(s);
            return 1;
        }
        emit(s, tmp, (size_t)r, 1);
        return 0;
    }
    if (!free_bytes) { /* a line as long as the cap (or memory allows): pass it on split */
        emit(s, s->buf, s->used, 1);
        s->used = 0;
        free_bytes = s->cap;
    }
    ssize_t r = read(s->fd, s->buf + s->used, free_bytes);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r <= 0) {
        shmrun_stream_close(s);
        return 1;
    }
    size_t start = 0, from = s->used;
    s->used += (size_t)r;
    for (size_t i = from; i < s->used; i++) {
        if (s->buf[i] == '\n') {
            emit(s, s->buf + start, i - start, 0);
            start = i + 1;
        }
    }
    memmove(s->buf, s->buf + start, s->used - start);
    s->used -= start;
    return 0;
}

void shmrun_stream_close(struct shmrun_stream *s)
{
    if (s->fd < 0)
        return;
    if (s->used)
        emit(s, s->buf, s->used, 0);
    s->used = 0;
    close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->cap = 0;
}
