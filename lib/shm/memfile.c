/*
 * Memory files made after start-up (memfile.h).
 */
#include "shm/memfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "shmcomm.h"

/* A number after key in file (MemAvailable in kB, a cgroup's bytes), or (size_t)-1. */
static size_t read_number(const char *file, const char *key, size_t scale)
{
    FILE *f = fopen(file, "re");
    if (!f)
        return (size_t)-1;
    char line[256];
    size_t v = (size_t)-1;
    unsigned long long n;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)) && sscanf(line + strlen(key), "%llu", &n) == 1) {
            v = (size_t)n * scale;
            break;
        }
    fclose(f);
    return v;
}

/* The memory a new file may still take: the kernel's estimate of what is available, or
 * less where this process's cgroup (v2) is nearer its limit; (size_t)-1 if unknown.
 * Filling a memory file past it does not fail cleanly: the kernel kills processes. */
static size_t available(void)
{
    size_t avail = read_number("/proc/meminfo", "MemAvailable:", 1024);
    char cg[512] = "", path[600];
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "0::", 3)) {
                snprintf(cg, sizeof cg, "%s", line + 3);
                cg[strcspn(cg, "\n")] = 0;
            }
        fclose(f);
    }
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", cg);
    size_t max = read_number(path, "", 1);
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", cg);
    size_t cur = read_number(path, "", 1);
    if (max != (size_t)-1 && cur != (size_t)-1 && max > cur && max - cur < avail)
        avail = max - cur;
    return avail;
}

/* What is kept free for everything else when a file is made. */
#define HEADROOM ((size_t)256 << 20)

int shmc__memfile_make(size_t bytes, const char *what, int *fd)
{
    size_t avail = available();
    if (avail != (size_t)-1 && (bytes > avail || avail - bytes < HEADROOM)) {
        SHMC_ERROR("%s needs %.1f GiB of shared memory and %.1f GiB are available (free "
                   "memory, or the memory limit of this cgroup, less %zu MiB kept free)",
                   what, (double)bytes / 1073741824.0, (double)avail / 1073741824.0,
                   HEADROOM >> 20);
        *fd = -1;
        return SHMC_ERR_NOMEM;
    }
    *fd = memfd_create("shmcomm-win", MFD_CLOEXEC);
    if (*fd < 0) {
        SHMC_ERROR("cannot create a memory file for %s: %s", what, strerror(errno));
        return SHMC_ERR_SYS;
    }
    int err = fchmod(*fd, 0600) != 0 || ftruncate(*fd, (off_t)bytes) != 0 ? errno : 0;
    if (!err && bytes)
        err = posix_fallocate(*fd, 0, (off_t)bytes);
    if (err == EOPNOTSUPP || err == EINVAL)
        err = 0; /* (a file system that cannot reserve: the pages come when touched) */
    if (!err)
        return SHMC_OK;
    close(*fd);
    *fd = -1;
    if (err == ENOSPC || err == ENOMEM || err == EFBIG) {
        SHMC_ERROR("%s needs %.1f MiB of shared memory and the system cannot provide it (free "
                   "memory, or the memory limit of this cgroup)",
                   what, (double)bytes / 1048576.0);
        return SHMC_ERR_NOMEM;
    }
    SHMC_ERROR("cannot size the memory file for %s: %s", what, strerror(err));
    return SHMC_ERR_SYS;
}

int shmc__memfile_open(int pid, int fd, int *out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    *out = open(path, O_RDWR | O_CLOEXEC);
    if (*out >= 0)
        return SHMC_OK;
    SHMC_ERROR("cannot open the shared memory of process %d (%s): %s", pid, path, strerror(errno));
    return SHMC_ERR_SYS;
}
