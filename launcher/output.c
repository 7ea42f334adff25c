/* Tagged output forwarding (output.h). Single-threaded: called from the supervisor. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void shmrun_stream_init(struct shmrun_stream *s, int fd, int out_fd, int rank)
{
    s->fd = fd;
    s->out_fd = out_fd;
    s->rank = rank;
    s->used = 0;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* our own output is gone (EPIPE); drop, keep supervising */
        p += w;
        n -= (size_t)w;
    }
}

static void emit(struct shmrun_stream *s, const char *line, size_t n)
{
    char out[SHMRUN_LINE_MAX + 32];
    int h = snprintf(out, sizeof out, "[%d] ", s->rank);
    memcpy(out + h, line, n);
    out[(size_t)h + n] = '\n';
    write_all(s->out_fd, out, (size_t)h + n + 1);
}

int shmrun_stream_pump(struct shmrun_stream *s)
{
    if (s->fd < 0)
        return 1;
    ssize_t r = read(s->fd, s->buf + s->used, sizeof s->buf - s->used);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r > 0) {
        s->used += (size_t)r;
        size_t start = 0;
        for (size_t i = 0; i < s->used; i++) {
            if (s->buf[i] == '\n') {
                emit(s, s->buf + start, i - start);
                start = i + 1;
            }
        }
        memmove(s->buf, s->buf + start, s->used - start);
        s->used -= start;
        if (s->used == sizeof s->buf) { /* a line longer than the buffer */
            emit(s, s->buf, s->used);
            s->used = 0;
        }
        return 0;
    }
    shmrun_stream_close(s);
    return 1;
}

void shmrun_stream_close(struct shmrun_stream *s)
{
    if (s->fd < 0)
        return;
    if (s->used)
        emit(s, s->buf, s->used);
    s->used = 0;
    close(s->fd);
    s->fd = -1;
}
