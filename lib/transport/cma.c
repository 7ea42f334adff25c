/*
 * Single copy between processes with process_vm_readv/writev (cross-memory attach). The
 * kernel may refuse it (Yama ptrace_scope, seccomp, a container): the probe says whether
 * it works at all, and callers treat EPERM, EACCES and ENOSYS as "not with this peer".
 * Stateless; any thread.
 */
#include <errno.h>
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
