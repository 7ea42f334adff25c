/*
 * shmrun --cleanup (cleanup.c).
 */
#ifndef SHMRUN_CLEANUP_H
#define SHMRUN_CLEANUP_H

/* Removes this user's leftover shmcomm segments from /dev/shm, saying what it removed
 * and what it kept. Returns shmrun's exit status. */
int shmrun_cleanup(void);

#endif /* SHMRUN_CLEANUP_H */
