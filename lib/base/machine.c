/*
 * The machine's description (machine.h).
 */
#include "base/machine.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int shmc__job_cpus(void)
{
    const char *s = getenv("SHMC_CPUS");
    if (s && atoi(s) > 0)
        return atoi(s);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void shmc__machine_desc(char *out, size_t len)
{
    char line[512], model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *v = strchr(line, ':');
        if (!v)
            continue;
        v += 1 + strspn(v + 1, " \t");
        snprintf(model, sizeof model, "%.*s", (int)strcspn(v, "\n"), v);
        break;
    }
    if (f)
        fclose(f);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(out, len, "%s, %ld CPU%s", model, n, n == 1 ? "" : "s");
}
