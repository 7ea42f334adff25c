/*
 * The handle tables of communicators, groups, datatypes and matched messages: arrays of
 * object pointers indexed by handle, NULL where free, grown by doubling.
 *
 * At MPI_THREAD_MULTIPLE, lookups (every call's) take no lock: a table's array and each
 * of its entries are published with release stores and read with acquire loads, and
 * changes (put, set) are made under the layer's lock (shmc_mpi__lock). A grown table's
 * old array stays allocated until MPI_Finalize, so that a lookup that loaded it just
 * before the growth still reads valid memory (every handle it can be asked about is in it:
 * a handle is only handed to another thread after its put returned).
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* An array's allocation: its capacity, then the slots (what t->slot points at). */
struct shmc_mpi_slots {
    struct shmc_mpi_slots *retired; /* the array this one replaced, kept until the end */
    intptr_t cap;
    void *slot[];
};

/* table_get reads the capacity as the entry before slot[0]. */
_Static_assert(offsetof(struct shmc_mpi_slots, slot) ==
                   offsetof(struct shmc_mpi_slots, cap) + sizeof(intptr_t),
               "cap sits just before the slots");

static struct shmc_mpi_slots *head(void **slot)
{
    return (struct shmc_mpi_slots *)((char *)slot - offsetof(struct shmc_mpi_slots, slot));
}

int shmc_mpi__table_put(struct shmc_mpi_table *t, int first, void *obj)
{
    shmc_mpi__lock();
    int h = first;
    while (h < t->cap && t->slot[h])
        h++;
    if (h >= t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        while (cap <= h)
            cap *= 2;
        struct shmc_mpi_slots *s = calloc(1, sizeof *s + (size_t)cap * sizeof(void *));
        if (!s) {
            shmc_mpi__unlock();
            return -1;
        }
        s->cap = cap;
        if (t->cap) {
            memcpy(s->slot, t->slot, (size_t)t->cap * sizeof(void *));
            s->retired = head(t->slot);
        }
        /* Publishes the copied entries with the array (table_get's acquire). */
        __atomic_store_n(&t->slot, s->slot, __ATOMIC_RELEASE);
        t->cap = cap;
    }
    /* Publishes the object's contents with its handle. */
    __atomic_store_n(&t->slot[h], obj, __ATOMIC_RELEASE);
    shmc_mpi__unlock();
    return h;
}

/* The empty tables' array (SHMC_MPI_TABLE_INIT): the retired link and a capacity of 0. */
intptr_t shmc_mpi__no_slots[2];

void shmc_mpi__table_set(struct shmc_mpi_table *t, int h, void *obj)
{
    shmc_mpi__lock();
    if (h > 0 && h < t->cap)
        __atomic_store_n(&t->slot[h], obj, __ATOMIC_RELEASE);
    shmc_mpi__unlock();
}

void shmc_mpi__table_end(struct shmc_mpi_table *t)
{
    for (struct shmc_mpi_slots *s = t->cap ? head(t->slot) : NULL, *next; s; s = next) {
        next = s->retired;
        free(s);
    }
    t->slot = (void **)&shmc_mpi__no_slots[2];
    t->cap = 0;
}
