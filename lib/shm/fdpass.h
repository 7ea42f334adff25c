/*
 * Handing the job's memory file to the other ranks of the machine without a name in
 * /dev/shm (docs/design.md, "The arena"): the rank that made the arena, a memfd, listens
 * on an abstract Unix socket named after the job (no file, so nothing can be left behind,
 * and the name goes with the process) and sends the descriptor (SCM_RIGHTS) to each
 * process that connects and runs as the same user, as the kernel reports it
 * (SO_PEERCRED). A process that connects takes a descriptor only from a listener of its
 * own user: a name taken first by someone else is refused, not used.
 */
#ifndef SHMC_FDPASS_H
#define SHMC_FDPASS_H

/* Listens on the socket named name (an arena name, "/shmc-..."). SHMC_OK with *lfd
 * (non-blocking, close-on-exec); SHMC_ERR_STATE if a process of this user listens on it
 * already (another running job with the same key); SHMC_ERR_ENV if another user's does
 * (logged, naming it); SHMC_ERR_SYS otherwise (logged). */
int shmc__fdpass_listen(const char *name, int *lfd);

/* Accepts every connection waiting on lfd and sends fd to each from this user (others
 * are closed unserved, and logged). Never blocks. Returns how many were served. */
int shmc__fdpass_serve(int lfd, int fd);

/* Connects to the socket named name and receives the descriptor its listener sends.
 * SHMC_OK with *fd (close-on-exec); 1 if nobody listens yet (try again later);
 * SHMC_ERR_ENV if another user's process listens (logged); SHMC_ERR_SYS (logged). */
int shmc__fdpass_fetch(const char *name, int *fd);

#endif /* SHMC_FDPASS_H */
