/*
 * Levelled diagnostics on stderr, switched by SHMC_DEBUG (config.c reads it once).
 * Level 1 (the default) prints only failures the caller cannot see otherwise, such as
 * why shmc_init failed; the success path prints nothing. Single-threaded by contract
 * (the library is serialised), so the level is a plain variable.
 */
#ifndef SHMC_LOG_H
#define SHMC_LOG_H

enum {
    SHMC_LOG_NONE = 0,
    SHMC_LOG_ERROR = 1,
    SHMC_LOG_WARN = 2,
    SHMC_LOG_INFO = 3,
    SHMC_LOG_DEBUG = 4
};

/* How many times one process says an error or warning (the same message, whatever its
 * numbers) before it stops saying it (log.c). */
#define SHMC_LOG_REPEAT_MAX 50

extern int shmc__log_level;
extern int shmc__log_rank; /* -1 until the rank is known */

void shmc__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define SHMC_LOG(level, ...)                                                                       \
    do {                                                                                           \
        if ((level) <= shmc__log_level)                                                            \
            shmc__log((level), __VA_ARGS__);                                                       \
    } while (0)

#define SHMC_ERROR(...) SHMC_LOG(SHMC_LOG_ERROR, __VA_ARGS__)
#define SHMC_WARN(...) SHMC_LOG(SHMC_LOG_WARN, __VA_ARGS__)
#define SHMC_INFO(...) SHMC_LOG(SHMC_LOG_INFO, __VA_ARGS__)
#define SHMC_DEBUG(...) SHMC_LOG(SHMC_LOG_DEBUG, __VA_ARGS__)

#endif /* SHMC_LOG_H */
