/*
 * Single copy between processes with process_vm_readv/writev (cross-memory attach). The
 * kernel may refuse it (Yama ptrace_scope, seccomp, a container): the probe says whether
 * it works at all, and callers treat EPERM, EACCES and ENOSYS as "not with this peer".
 * Stateless; any thread.
 */
#include <errno.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/transport.h"

int shmc__cma_probe(void)
{
    uint64_t src = 0x5348434d434d41ull, dst = 0;
    struct iovec l = {.iov_base = &dst, .iov_len = sizeof dst};
    struct iovec r = {.iov_base = &src, .iov_len = sizeof src};
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)sizeof dst && dst == src;
}

uint64_t shmc__cma_copy(int pid, int write, void *local, uint64_t remote, uint64_t len, int *err)
{
    uint64_t got = 0;
    *err = 0;
    while (got < len) {
        struct iovec l = {.iov_base = (uint8_t *)local + got, .iov_len = len - got};
        struct iovec r = {.iov_base = (void *)(uintptr_t)(remote + got), .iov_len = len - got};
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n > 0) {
            got += (uint64_t)n;
        } else if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        } else {
            *err = n < 0 ? errno : EFAULT;
            break;
        }
    }
    return got;
}

/* Remote iovecs per system call: the kernel takes up to IOV_MAX; a stack's worth here. */
#define CMA_BATCH 256

uint64_t shmc__cma_copyv(int pid, int write, void *local, const struct shmc__rblock *b, size_t n,
                         int *err)
{
    uint64_t done = 0;
    struct iovec r[CMA_BATCH];
    *err = 0;
    size_t i = 0;
    while (i < n) {
        size_t k = 0;
        uint64_t want = 0;
        for (; i + k < n && k < CMA_BATCH && k < IOV_MAX; k++) {
            r[k] = (struct iovec){.iov_base = (void *)(uintptr_t)b[i + k].addr,
                                  .iov_len = b[i + k].len};
            want += b[i + k].len;
        }
        struct iovec l = {.iov_base = (uint8_t *)local + done, .iov_len = want};
        ssize_t got = write ? process_vm_writev(pid, &l, 1, r, k, 0)
                            : process_vm_readv(pid, &l, 1, r, k, 0);
        if (got == (ssize_t)want) {
            done += want;
            i += k;
            continue;
        }
        if (got < 0 && errno != EINTR && errno != EAGAIN) {
            *err = errno;
            return done;
        }
        /* Interrupted or partial: the blocks it finished count, the rest goes block by
         * block (a partial copy stops at a block it could not finish). */
        uint64_t part = got > 0 ? (uint64_t)got : 0;
        for (; i < n && part >= b[i].len; i++) {
            part -= b[i].len;
            done += b[i].len;
        }
        if (i < n) {
            uint64_t rest = b[i].len - part, c =
                shmc__cma_copy(pid, write, (uint8_t *)local + done + part, b[i].addr + part,
                               rest, err);
            if (c < rest)
                return done + part + c;
            done += b[i].len;
            i++;
        }
    }
    return done;
}
