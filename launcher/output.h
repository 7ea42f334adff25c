/*
 * --tag-output: each rank's stdout and stderr arrive on pipes; whole lines are written
 * to shmrun's own stdout/stderr with a "[rank] " prefix, so lines of different ranks
 * never mix. A line longer than the buffer is passed on in pieces, each tagged.
 */
#ifndef SHMRUN_OUTPUT_H
#define SHMRUN_OUTPUT_H

#include <stddef.h>

#define SHMRUN_LINE_MAX 8192

struct shmrun_stream {
    int fd;     /* read end of the pipe; -1 once closed */
    int out_fd; /* where tagged lines go (1 or 2) */
    int rank;
    size_t used;
    char buf[SHMRUN_LINE_MAX];
};

void shmrun_stream_init(struct shmrun_stream *s, int fd, int out_fd, int rank);

/* Reads what is available and forwards complete lines. Returns 0 while open, 1 at EOF
 * (the partial last line is flushed and the fd closed). */
int shmrun_stream_pump(struct shmrun_stream *s);

/* Flushes a partial last line and closes the pipe. */
void shmrun_stream_close(struct shmrun_stream *s);

#endif /* SHMRUN_OUTPUT_H */
