/*
 * shmrun --cleanup: removes this user's shmcomm segments in /dev/shm that no running job
 * uses. shmrun's own jobs leave none (the name goes before any rank starts); a job started
 * by torchrun or mpirun leaves one only when it died before all its ranks had attached,
 * and the next job with the same key replaces it. This removes those without waiting for
 * such a job, and any other leftover: an arena whose creator is gone, or one never
 * finished and older than a few seconds (shmc__arena_leftover). A running job's segment
 * is kept and named.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cleanup.h"
#include "shm/arena.h"

int shmrun_cleanup(void)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "shmc-%u-", (unsigned)geteuid());
    DIR *d = opendir("/dev/shm");
    if (!d) {
        perror("shmrun: cannot read /dev/shm");
        return 1;
    }
    int removed = 0, kept = 0, failed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        char name[300];
        snprintf(name, sizeof name, "/%s", e->d_name);
        char why[96];
        int left = shmc__arena_leftover(name);
        if (shmc__arena_foreign(name, why, sizeof why)) {
            printf("shmrun: kept /dev/shm%s: %s, not made by shmcomm for this user; its owner "
                   "must remove it\n",
                   name, why);
            kept++;
        } else if (left == 0) {
            printf("shmrun: kept /dev/shm%s: a running job uses it\n", name);
            kept++;
        } else if (left == 1 && shm_unlink(name) == 0) {
            printf("shmrun: removed /dev/shm%s: left by a job that is gone\n", name);
            removed++;
        } else if (left == 1) {
            perror("shmrun: cannot remove a leftover");
            failed++;
        }
    }
    closedir(d);
    printf("shmrun: %d leftover segment%s removed, %d in use kept\n", removed,
           removed == 1 ? "" : "s", kept);
    return failed ? 1 : 0;
}
