/*
 * shmrun's command line: parsed and validated before anything is created, so that a bad
 * option costs nothing and says exactly what was wrong.
 */
#ifndef SHMRUN_OPTIONS_H
#define SHMRUN_OPTIONS_H

#include <stddef.h>

enum shmrun_bind { SHMRUN_BIND_CORE, SHMRUN_BIND_NUMA, SHMRUN_BIND_NONE };
enum { SHMRUN_INFO_TEXT = 1, SHMRUN_INFO_MARKDOWN = 2 };

/* Environment settings for the ranks (-x VAR=value, -genv VAR value): at most this many. */
#define SHMRUN_MAX_ENV 64

struct shmrun_opts {
    int nranks;
    enum shmrun_bind bind;
    int report_bindings;
    int tag_output;
    double timeout_s; /* 0: none */
    int keep_going;   /* a failed rank does not end the job */
    int cleanup;      /* --cleanup: remove leftover segments, start no job */
    int info;         /* --info: SHMRUN_INFO_TEXT or _MARKDOWN; list settings, no job */
    int nenv;
    const char *env_name[SHMRUN_MAX_ENV];  /* set in every rank: name (may hold "=value") */
    const char *env_value[SHMRUN_MAX_ENV]; /* its value, or NULL when the name holds it */
    char **argv;                           /* the program and its arguments */
    char prog[4096];                       /* the program's resolved path */
};

/* Exit statuses of shmrun itself (the job's own status otherwise). */
enum {
    SHMRUN_EXIT_USAGE = 2,      /* a bad option */
    SHMRUN_EXIT_NOEXEC = 126,   /* the program exists but cannot be executed */
    SHMRUN_EXIT_NOTFOUND = 127, /* the program does not exist */
    SHMRUN_EXIT_TIMEOUT = 124,  /* --timeout expired */
};

/* Parses argv. Returns -1 when the job should run, or an exit status for shmrun: 0 after
 * --help or --version (printed to out), SHMRUN_EXIT_* after an error (a one-line message,
 * plus the usage for option errors, written to err). */
int shmrun_parse(int argc, char **argv, struct shmrun_opts *o, char *out, size_t outlen, char *err,
                 size_t errlen);

#endif /* SHMRUN_OPTIONS_H */
