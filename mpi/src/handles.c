/*
 * The handle tables of communicators, groups and datatypes: growable arrays of object
 * pointers indexed by handle, NULL where free. One process's calls do not overlap
 * (MPI_THREAD_SERIALIZED at most), so no locks.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

int shmc_mpi__table_put(struct shmc_mpi_table *t, int first, void *obj)
{
    int h = first;
    while (h < t->cap && t->slot[h])
        h++;
    if (h >= t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        while (cap <= h)
            cap *= 2;
        void **s = realloc(t->slot, (size_t)cap * sizeof *s);
        if (!s)
            return -1;
        memset(s + t->cap, 0, (size_t)(cap - t->cap) * sizeof *s);
        t->slot = s;
        t->cap = cap;
    }
    t->slot[h] = obj;
    return h;
}

void shmc_mpi__table_end(struct shmc_mpi_table *t)
{
    free(t->slot);
    t->slot = NULL;
    t->cap = 0;
}
