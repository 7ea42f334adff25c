/*
 * stderr logging with a "shmcomm[rank N]" prefix. One write() per message so that lines
 * from different ranks do not interleave mid-line. An error or warning said
 * SHMC_LOG_REPEAT_MAX times (the same message, whatever its numbers) is not said again by this
 * process: the last one says so. Shared memory that another process overwrites can make the same
 * failure recur at every call, and a line each would bury what the program says.
 */
#include "base/log.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int shmc__log_level = SHMC_LOG_ERROR;
int shmc__log_rank = -1;

/* Errors and warnings are counted by their format (one call site's message), in a table
 * of FORMATS; a format that finds the table full goes uncounted. Threads of a process may
 * log at once (a program's own threads around the library's calls, its start-up
 * measurement's): an entry is claimed and counted atomically, relaxed, since the pointer
 * and the count are all there is to see. */
enum { FORMATS = 64 };
static struct {
    const char *fmt;
    unsigned said;
} said[FORMATS];

/* Is a message of format fmt to be said: 1 yes, 2 yes and for the last time, 0 no. */
static int say(const char *fmt)
{
    size_t h = (size_t)((uintptr_t)fmt >> 3) % FORMATS;
    for (size_t i = 0; i < FORMATS; i++) {
        size_t k = (h + i) % FORMATS;
        const char *f = NULL;
        if (!__atomic_compare_exchange_n(&said[k].fmt, &f, fmt, 0, __ATOMIC_RELAXED,
                                         __ATOMIC_RELAXED) &&
            f != fmt)
            continue;
        if (__atomic_load_n(&said[k].said, __ATOMIC_RELAXED) >= SHMC_LOG_REPEAT_MAX)
            return 0;
        unsigned n = __atomic_add_fetch(&said[k].said, 1, __ATOMIC_RELAXED);
        return n < SHMC_LOG_REPEAT_MAX ? 1 : n == SHMC_LOG_REPEAT_MAX ? 2 : 0;
    }
    return 1;
}

void shmc__log(int level, const char *fmt, ...)
{
    static const char *const names[] = {"", "error", "warning", "info", "debug"};
    char line[1024];
    int n, last = 0;

    if (level <= SHMC_LOG_WARN) {
        int s = say(fmt);
        if (!s)
            return;
        last = s == 2;
    }
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
    if (last) {
        size_t at = strlen(line);
        snprintf(line + at, sizeof line - at - 1,
                 " (said %d times: this process does not say it again)", SHMC_LOG_REPEAT_MAX);
    }
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
