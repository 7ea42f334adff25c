/*
 * stderr logging with a "shmcomm[rank N]" prefix. One write() per message so that lines
 * from different ranks do not interleave mid-line.
 */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int shmc__log_level = SHMC_LOG_ERROR;
int shmc__log_rank = -1;

void shmc__log(int level, const char *fmt, ...)
{
    static const char *const names[] = {"", "error", "warning", "info", "debug"};
    char line[1024];
    int n;

    if (shmc__log_rank >= 0)
        n = snprintf(line, sizeof line, "shmcomm[rank %d] %s: ", shmc__log_rank, names[level]);
    else
        n = snprintf(line, sizeof line, "shmcomm[pid %d] %s: ", (int)getpid(), names[level]);
    if (n < 0 || (size_t)n >= sizeof line)
        return;

    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    size_t len = strlen(line);
    if (len + 1 < sizeof line) {
        line[len++] = '\n';
    } else {
        line[sizeof line - 2] = '\n';
        len = sizeof line - 1;
    }
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w; /* nothing useful to do if stderr is gone */
}
