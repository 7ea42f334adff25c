/*
 * Shared memory made after start-up (one-sided windows): an anonymous memory file, outside
 * /dev/shm and its size limit, so that nothing can be left behind by name; the other
 * processes of the machine open it through /proc/PID/fd/FD of the process that made it
 * (the same user's, which the kernel checks as it checks reading that process's memory).
 */
#ifndef SHMC_MEMFILE_H
#define SHMC_MEMFILE_H

#include <stddef.h>

/* A memory file of bytes bytes (zero-filled), every page reserved now so that a machine
 * or cgroup short of memory is an error here (SHMC_ERR_NOMEM, logged with the size), not
 * a SIGBUS later. SHMC_OK with *fd (close-on-exec), or SHMC_ERR_SYS (logged). */
int shmc__memfile_make(size_t bytes, const char *what, int *fd);

/* Opens descriptor fd of process pid for reading and writing: SHMC_OK with *out, or
 * SHMC_ERR_SYS (logged: a process that is gone, or a /proc that hides it). */
int shmc__memfile_open(int pid, int fd, int *out);

#endif /* SHMC_MEMFILE_H */
