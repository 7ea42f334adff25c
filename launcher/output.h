/*
 * --tag-output: each rank's stdout and stderr arrive on pipes; whole lines are written
 * to shmrun's own stdout/stderr with a "[rank] " prefix, so lines of different ranks
 * never mix. A line is kept whole however long it grows, up to SHMRUN_LINE_CAP bytes;
 * a longer one is passed on in pieces of that size, the first tagged "[rank] " and each
 * further piece "[rank]+ ", so the split is visible. If shmrun's own output goes away
 * (the reader of a pipe exits), the rest is dropped, the job goes on, and shmrun exits
 * with 141 (128 + SIGPIPE) unless the job failed otherwise.
 */
#ifndef SHMRUN_OUTPUT_H
#define SHMRUN_OUTPUT_H

#include <stddef.h>

#define SHMRUN_LINE_CAP (16u << 20)

struct shmrun_stream {
    int fd;     /* read end of the pipe; -1 once closed */
    int out_fd; /* where tagged lines go (1 or 2) */
    int rank;
    int continued; /* the next piece continues a line split at the cap */
    size_t used, cap;
    char *buf; /* grows to hold the longest line seen, up to SHMRUN_LINE_CAP */
};

void shmrun_stream_init(struct shmrun_stream *s, int fd, int out_fd, int rank);

/* Reads what is available and forwards complete lines. Returns 0 while open, 1 at EOF
 * (the partial last line is flushed and the fd closed). */
int shmrun_stream_pump(struct shmrun_stream *s);

/* Flushes a partial last line, closes the pipe and frees the buffer. */
void shmrun_stream_close(struct shmrun_stream *s);

/* Did writing our own stdout or stderr fail (EPIPE or another error)? */
int shmrun_output_lost(void);

#endif /* SHMRUN_OUTPUT_H */
