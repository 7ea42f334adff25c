/*
 * libFuzzer target: shmrun's option parser. The input is split at NUL bytes into
 * arguments after "shmrun"; every input must end in a parse (a job to start, help text,
 * or an error message and status), never a crash, a read past an argument or a hang.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum { MAX_ARGS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private, NUL-terminated copy: each argument ends at a NUL or at the end. */
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "shmrun";
    for (size_t i = 0; i <= size && argc < MAX_ARGS + 1;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    struct shmrun_opts o;
    char out[4096], err[1024];
    memset(&o, 0, sizeof o);
    int rc = shmrun_parse(argc, argv, &o, out, sizeof out, err, sizeof err);
    /* A job to start (rc < 0) must be usable: a program path within its buffer. */
    if (rc < 0 && !o.cleanup) {
        if (!memchr(o.prog, '\0', sizeof o.prog))
            abort();
        if (o.nranks < 1 || o.nranks > 256)
            abort();
    }
    free(buf);
    return 0;
}
