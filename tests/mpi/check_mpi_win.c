/*
 * The MPI interface's windows: MPI_Win_allocate_shared laid out back to back and read by
 * load and store, MPI_Win_shared_query (MPI_PROC_NULL too); MPI_Put and MPI_Get with
 * strided datatypes on both sides across fences; accumulates that add up exactly,
 * contiguous accesses of 200 KB, overlapping ones on a rank's own part included,
 * fetch-and-op tickets all different (on lone elements of every size too), one
 * compare-and-swap winner, MPI_REPLACE and
 * MPI_NO_OP; an exclusive lock around read-modify-write by get and put, lock_all with
 * flushes, the request forms; post-start-complete-wait with groups; the window's
 * attributes, name, group and error handlers; the refusals with their classes.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define ROUNDS 40

static void shared(int me, int n)
{
    MPI_Win win;
    int *mine;
    MPI_Aint bytes = (MPI_Aint)(me + 1) * 8 * (MPI_Aint)sizeof(int);
    M_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    for (int i = 0; i < (me + 1) * 8; i++)
        mine[i] = me * 100 + i;
    M_OK(MPI_Win_fence(0, win));
    char *expect = NULL;
    for (int r = 0; r < n; r++) {
        MPI_Aint sz;
        int unit;
        int *p;
        M_OK(MPI_Win_shared_query(win, r, &sz, &unit, &p));
        ck_assert_int_eq((int)sz, (r + 1) * 8 * (int)sizeof(int));
        ck_assert_int_eq(unit, (int)sizeof(int));
        ck_assert_msg(!expect || (char *)p == expect, "rank %d's part is not after rank %d's", r,
                      r - 1);
        expect = (char *)p + sz;
        for (int i = 0; i < (r + 1) * 8; i++)
            ck_assert_int_eq(p[i], r * 100 + i);
    }
    MPI_Aint sz;
    int unit, *p0, *p;
    M_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &unit, &p));
    M_OK(MPI_Win_shared_query(win, 0, &sz, &unit, &p0));
    ck_assert_ptr_eq(p, p0);
    M_OK(MPI_Win_fence(0, win));
    M_OK(MPI_Win_free(&win));
    ck_assert_int_eq(win, MPI_WIN_NULL);
}

/* Every other int of rank me's send buffer into every third int of the next rank's part. */
static void strided(int me, int n)
{
    MPI_Win win;
    int *mine;
    M_OK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine,
                          &win));
    MPI_Datatype every2, every3;
    M_OK(MPI_Type_vector(5, 1, 2, MPI_INT, &every2));
    M_OK(MPI_Type_vector(5, 1, 3, MPI_INT, &every3));
    M_OK(MPI_Type_commit(&every2));
    M_OK(MPI_Type_commit(&every3));
    int src[10], back[10];
    for (int i = 0; i < 10; i++)
        src[i] = i % 2 ? -1 : me * 1000 + i;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    M_OK(MPI_Win_fence(0, win));
    M_OK(MPI_Put(src, 1, every2, next, 4, 1, every3, win));
    M_OK(MPI_Win_fence(0, win));
    for (int k = 0; k < 5; k++)
        ck_assert_int_eq(mine[4 + 3 * k], prev * 1000 + 2 * k);
    ck_assert_int_eq(mine[5], 0); /* a hole of the target type: untouched */
    memset(back, 0, sizeof back);
    M_OK(MPI_Get(back, 1, every2, next, 4, 1, every3, win));
    M_OK(MPI_Win_fence(0, win));
    for (int k = 0; k < 5; k++)
        ck_assert_int_eq(back[2 * k], me * 1000 + 2 * k);
    ck_assert_int_eq(back[1], 0);
    M_OK(MPI_Type_free(&every2));
    M_OK(MPI_Type_free(&every3));
    M_OK(MPI_Win_free(&win));
}

static void atomics(int me, int n)
{
    MPI_Win win;
    long *mine;
    M_OK(MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mine,
                          &win));
    M_OK(MPI_Win_lock_all(0, win));
    long one = 1, tickets[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        M_OK(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
        M_OK(MPI_Fetch_and_op(&one, &tickets[i], MPI_LONG, n - 1, 1, MPI_SUM, win));
    }
    long claim = me + 1, zero = 0, old = -1;
    M_OK(MPI_Compare_and_swap(&claim, &zero, &old, MPI_LONG, 0, 2, win));
    M_OK(MPI_Win_flush_all(win));
    M_OK(MPI_Win_unlock_all(win));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    long total, wins, w = old == 0;
    M_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    M_OK(MPI_Get(&total, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
    M_OK(MPI_Win_unlock(0, win));
    ck_assert_int_eq(total, (long)n * ROUNDS);
    M_OK(MPI_Allreduce(&w, &wins, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    ck_assert_int_eq(wins, 1);
    long *all = malloc(sizeof(long) * ROUNDS * (size_t)n);
    char *hit = calloc((size_t)n * ROUNDS, 1);
    M_OK(MPI_Allgather(tickets, ROUNDS, MPI_LONG, all, ROUNDS, MPI_LONG, MPI_COMM_WORLD));
    for (int i = 0; i < n * ROUNDS; i++) {
        ck_assert_msg(all[i] >= 0 && all[i] < n * ROUNDS && !hit[all[i]], "ticket %ld", all[i]);
        hit[all[i]] = 1;
    }
    free(all);
    free(hit);
    /* MPI_REPLACE, then MPI_NO_OP reads it back; the request forms */
    long forty = 40, got = -1;
    M_OK(MPI_Win_fence(0, win));
    if (me == 0)
        M_OK(MPI_Accumulate(&forty, 1, MPI_LONG, n - 1, 3, 1, MPI_LONG, MPI_REPLACE, win));
    M_OK(MPI_Win_fence(0, win));
    MPI_Request r[2];
    M_OK(MPI_Rget_accumulate(NULL, 0, MPI_LONG, &got, 1, MPI_LONG, n - 1, 3, 1, MPI_LONG, MPI_NO_OP,
                             win, &r[0]));
    long v = 5;
    M_OK(MPI_Rput(&v, 1, MPI_LONG, me, 2, 1, MPI_LONG, win, &r[1]));
    M_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    M_OK(MPI_Win_fence(0, win));
    ck_assert_int_eq(got, 40);
    ck_assert_int_eq(mine[2], 5);
    M_OK(MPI_Win_free(&win));
}

static void locked_counter(int me, int n)
{
    (void)me;
    MPI_Win win;
    int *mine;
    M_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    for (int i = 0; i < ROUNDS; i++) {
        int v;
        M_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        M_OK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        M_OK(MPI_Win_flush(0, win));
        v++;
        M_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        M_OK(MPI_Win_unlock(0, win));
    }
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    int total;
    M_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
    M_OK(MPI_Get(&total, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    M_OK(MPI_Win_unlock(0, win));
    ck_assert_int_eq(total, n * ROUNDS);
    M_OK(MPI_Win_free(&win));
}

/* Post to the rank before, start to the rank after, put, complete, wait (groups). */
static void pscw(int me, int n)
{
    MPI_Win win;
    int *mine;
    M_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    MPI_Group world, gprev, gnext;
    int prev = (me + n - 1) % n, next = (me + 1) % n;
    M_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    M_OK(MPI_Group_incl(world, 1, &prev, &gprev));
    M_OK(MPI_Group_incl(world, 1, &next, &gnext));
    M_OK(MPI_Win_post(gprev, 0, win));
    M_OK(MPI_Win_start(gnext, 0, win));
    int v = 500 + me;
    M_OK(MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win));
    M_OK(MPI_Win_complete(win));
    int flag = 0;
    while (!flag)
        M_OK(MPI_Win_test(win, &flag));
    ck_assert_int_eq(*mine, 500 + prev);
    M_OK(MPI_Group_free(&gprev));
    M_OK(MPI_Group_free(&gnext));
    M_OK(MPI_Group_free(&world));
    M_OK(MPI_Win_free(&win));
}

static int calls;
static void count_fn(MPI_Win *win, int *code, ...)
{
    (void)win, (void)code;
    calls++;
}

static void object(int me, int n)
{
    MPI_Win win;
    double *mine;
    M_OK(MPI_Win_allocate(10 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mine,
                          &win));
    void *base;
    MPI_Aint *size;
    int *unit, *flavor, *model, flag;
    M_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    ck_assert(flag && base == mine);
    M_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
    ck_assert(flag && *size == 10 * (MPI_Aint)sizeof(double));
    M_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    ck_assert(flag && *unit == (int)sizeof(double));
    M_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    ck_assert(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE);
    M_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    ck_assert(flag && *model == MPI_WIN_UNIFIED);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    M_OK(MPI_Win_set_name(win, "histogram"));
    M_OK(MPI_Win_get_name(win, name, &len));
    ck_assert_str_eq(name, "histogram");
    MPI_Group g, wg;
    int cmp;
    M_OK(MPI_Win_get_group(win, &g));
    M_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    M_OK(MPI_Group_compare(g, wg, &cmp));
    ck_assert_int_eq(cmp, MPI_IDENT);
    M_OK(MPI_Group_free(&g));
    M_OK(MPI_Group_free(&wg));
    /* the refusals, on MPI_ERRORS_RETURN */
    M_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    double d[11] = {0};
    M_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(d, 11, MPI_DOUBLE, me, 0, 11, MPI_DOUBLE, win));
    M_CLASS(MPI_ERR_RMA_RANGE, MPI_Get(d, 1, MPI_DOUBLE, me, 10, 1, MPI_DOUBLE, win));
    M_CLASS(MPI_ERR_RANK, MPI_Put(d, 1, MPI_DOUBLE, n, 0, 1, MPI_DOUBLE, win));
    M_CLASS(MPI_ERR_DISP, MPI_Put(d, 1, MPI_DOUBLE, me, -1, 1, MPI_DOUBLE, win));
    M_CLASS(MPI_ERR_TYPE, MPI_Put(d, 2, MPI_DOUBLE, me, 0, 1, MPI_DOUBLE, win));
    M_CLASS(MPI_ERR_LOCKTYPE, MPI_Win_lock(7, me, 0, win));
    M_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_unlock(me, win));
    M_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_complete(win));
    M_CLASS(MPI_ERR_ASSERT, MPI_Win_fence(1, win));
    M_CLASS(MPI_ERR_OP, MPI_Accumulate(d, 1, MPI_DOUBLE, me, 0, 1, MPI_DOUBLE, MPI_NO_OP, win));
    MPI_Datatype every2;
    M_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &every2));
    M_OK(MPI_Type_commit(&every2));
    for (int i = 0; i < 10; i++)
        ck_assert(mine[i] == 0.0); /* nothing refused wrote */
    /* an accumulate to a non-contiguous target: every other element */
    double two[2] = {1.5, 2.5};
    M_OK(MPI_Accumulate(two, 2, MPI_DOUBLE, me, 4, 1, every2, MPI_SUM, win));
    ck_assert(mine[4] == 1.5 && mine[5] == 0.0 && mine[6] == 2.5);
    M_OK(MPI_Type_free(&every2));
    M_OK(MPI_Put(d, 0, MPI_DOUBLE, MPI_PROC_NULL, 0, 0, MPI_DOUBLE, win));
    /* a handler of the program's, called with the window's errors */
    MPI_Errhandler eh, got;
    M_OK(MPI_Win_create_errhandler(count_fn, &eh));
    M_OK(MPI_Win_set_errhandler(win, eh));
    M_OK(MPI_Win_get_errhandler(win, &got));
    ck_assert_int_eq(got, eh);
    M_OK(MPI_Errhandler_free(&got));
    calls = 0;
    MPI_Win_unlock(me, win);
    M_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    ck_assert_int_eq(calls, 2);
    M_CLASS(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)); /* a window's handler */
    M_OK(MPI_Errhandler_free(&eh));
    M_OK(MPI_Win_free(&win));
    /* bad makings: every member's fails alike, none hangs */
    M_CLASS(MPI_ERR_DISP, MPI_Win_allocate(8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    M_CLASS(MPI_ERR_SIZE, MPI_Win_allocate(-1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    M_CLASS(MPI_ERR_WIN, MPI_Win_free(&win)); /* MPI_WIN_NULL */
}

/* MPI_Win_create on each rank's own memory and MPI_Win_create_dynamic with attached
 * memory: puts, gets, accumulates and compare-and-swap to the other ranks' (single
 * copy), the flavor's refusals. */
static void created(int me, int n)
{
    MPI_Win win;
    long *mem = calloc(16, sizeof *mem);
    M_OK(MPI_Win_create(mem, 16 * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    M_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int next = (me + 1) % n, prev = (me + n - 1) % n, flag, *flavor;
    M_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    ck_assert_int_eq(*flavor, MPI_WIN_FLAVOR_CREATE);
    long v = 100 + me, one = 1, got = -1, t = -1;
    M_OK(MPI_Win_fence(0, win));
    M_OK(MPI_Put(&v, 1, MPI_LONG, next, 3, 1, MPI_LONG, win));
    M_OK(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
    M_OK(MPI_Fetch_and_op(&one, &t, MPI_LONG, 0, 1, MPI_SUM, win));
    long claim = me + 1, zero = 0, old = -1;
    M_OK(MPI_Compare_and_swap(&claim, &zero, &old, MPI_LONG, 0, 2, win));
    M_OK(MPI_Win_fence(0, win));
    ck_assert_int_eq(mem[3], 100 + prev);
    M_OK(MPI_Get(&got, 1, MPI_LONG, next, 3, 1, MPI_LONG, win));
    M_OK(MPI_Win_fence(0, win));
    ck_assert_int_eq(got, 100 + me);
    if (me == 0)
        ck_assert(mem[0] == n && mem[1] == n && mem[2] >= 1 && mem[2] <= n);
    long wins, w = old == 0;
    M_OK(MPI_Allreduce(&w, &wins, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    ck_assert_int_eq(wins, 1);
    MPI_Aint sz;
    int unit;
    void *p;
    M_OK(MPI_Win_shared_query(win, me, &sz, &unit, &p));
    ck_assert_ptr_eq(p, mem);
    MPI_Datatype every2;
    M_OK(MPI_Type_vector(2, 1, 2, MPI_LONG, &every2));
    M_OK(MPI_Type_commit(&every2));
    if (n > 1) {
        /* memory no other process can map: size 0, no address (MPI 4.0) */
        M_OK(MPI_Win_shared_query(win, next, &sz, &unit, &p));
        ck_assert(sz == 0 && p == NULL);
        M_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(&v, 1, MPI_LONG, next, 16, 1, MPI_LONG, win));
        M_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(mem, 2, MPI_LONG, next, 14, 1, every2, win));
    }
    /* Non-contiguous target datatypes in another process's own memory (every other
     * element; a pair type with a hole, MPI_SHORT_INT): put, accumulate, get, and a
     * fetch-and-op with MAXLOC. */
    long two[2] = {800 + me, 900 + me}, back[2] = {-1, -1};
    struct {
        short v;
        int i;
    } si = {(short)(me + 1), me}, old_si = {-1, -1};
    M_OK(MPI_Put(two, 2, MPI_LONG, next, 8, 1, every2, win));
    M_OK(MPI_Accumulate(two, 2, MPI_LONG, next, 11, 1, every2, MPI_SUM, win));
    M_OK(MPI_Fetch_and_op(&si, &old_si, MPI_SHORT_INT, next, 15, MPI_MAXLOC, win));
    M_OK(MPI_Win_fence(0, win));
    ck_assert(mem[8] == 800 + prev && mem[9] == 0 && mem[10] == 900 + prev);
    ck_assert(mem[11] == 800 + prev && mem[12] == 0 && mem[13] == 900 + prev);
    ck_assert(old_si.v == 0 && old_si.i == 0);
    memcpy(&si, &mem[15], sizeof si);
    ck_assert(si.v == prev + 1 && si.i == prev);
    M_OK(MPI_Get(back, 2, MPI_LONG, next, 8, 1, every2, win));
    M_OK(MPI_Win_fence(0, win));
    ck_assert(back[0] == 800 + me && back[1] == 900 + me);
    M_OK(MPI_Type_free(&every2));
    M_CLASS(MPI_ERR_RMA_FLAVOR, MPI_Win_attach(win, mem, 8));
    M_OK(MPI_Win_free(&win));
    /* dynamic: displacements are addresses of attached memory */
    M_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    M_OK(MPI_Win_attach(win, mem, 16 * sizeof *mem));
    MPI_Aint mine, *addrs = malloc(sizeof *addrs * (size_t)n);
    M_OK(MPI_Get_address(&mem[5], &mine));
    M_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    v = 700 + me;
    M_OK(MPI_Win_lock_all(0, win));
    M_OK(MPI_Put(&v, 1, MPI_LONG, next, addrs[next], 1, MPI_LONG, win));
    M_OK(MPI_Win_unlock_all(win));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    ck_assert_int_eq(mem[5], 700 + prev);
    M_OK(MPI_Win_detach(win, mem));
    M_OK(MPI_Win_free(&win));
    free(addrs);
    free(mem);
}

/* Contiguous puts and gets of more than 64 KiB (the MPI layer hands those to the C library's
 * copy) at a displacement in units, on an allocated and a shared window: into the next
 * rank's part and back; and on this rank's own part, from a stretch of the window that
 * overlaps the target's. */
static void large(int me, int n, int shared_win)
{
    enum { COUNT = 50000, PART = 3 * COUNT }; /* ints: 200000 bytes an access */
    MPI_Win win;
    int *mine;
    MPI_Aint bytes = PART * (MPI_Aint)sizeof(int);
    if (shared_win)
        M_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine,
                                     &win));
    else
        M_OK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    int *src = malloc(sizeof *src * COUNT), *back = malloc(sizeof *back * COUNT);
    ck_assert(src && back);
    for (int i = 0; i < COUNT; i++)
        src[i] = me * 1000003 + i;
    for (int i = 0; i < PART; i++)
        mine[i] = -1;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    M_OK(MPI_Win_fence(0, win));
    M_OK(MPI_Put(src, COUNT, MPI_INT, next, 7, COUNT, MPI_INT, win));
    M_OK(MPI_Win_fence(0, win));
    ck_assert_int_eq(mine[6], -1);
    ck_assert_int_eq(mine[7 + COUNT], -1);
    for (int i = 0; i < COUNT; i++)
        ck_assert_int_eq(mine[7 + i], prev * 1000003 + i);
    M_OK(MPI_Get(back, COUNT, MPI_INT, next, 7, COUNT, MPI_INT, win));
    M_OK(MPI_Win_fence(0, win));
    ck_assert(!memcmp(back, src, sizeof *src * COUNT));
    /* ints 7.. of this rank's part onto ints 1000.., and back from 7000..: overlapping */
    M_OK(MPI_Get(mine + 1000, COUNT, MPI_INT, me, 7, COUNT, MPI_INT, win));
    M_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < COUNT; i++)
        ck_assert_int_eq(mine[1000 + i], prev * 1000003 + i);
    M_OK(MPI_Put(mine + 7000, COUNT, MPI_INT, me, 2000, COUNT, MPI_INT, win));
    M_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < COUNT; i++) /* (ints 51000.. were never written) */
        ck_assert_int_eq(mine[2000 + i], 7000 + i < 1000 + COUNT ? prev * 1000003 + 6000 + i : -1);
    M_OK(MPI_Win_free(&win));
    free(src);
    free(back);
}

/* Lone elements of 1, 2, 4 and 8 bytes (and a double) in rank 0's part, each at its own
 * displacement: every rank takes ROUNDS tickets with MPI_Fetch_and_op (all different, the
 * count exact), one compare-and-swap per size has one winner, and one of values that
 * differ in their highest byte only does not swap, unaligned; MPI_NO_OP with no origin
 * reads, MPI_REPLACE swaps; MPI_PROC_NULL does nothing; the refusals (NULL and
 * MPI_IN_PLACE buffers, a derived datatype, past the part, a bad rank). */
static void lone(int me, int n)
{
    static const MPI_Datatype types[] = {MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_DOUBLE};
    enum { NT = 5, SLOT = 16 }; /* bytes per element's slot */
    MPI_Win win;
    char *mine;
    const MPI_Aint odd = 2 * NT * SLOT + 1; /* an unaligned long, then an unaligned short */
    M_OK(MPI_Win_allocate(2 * NT * SLOT + 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    memset(mine, 0, 2 * NT * SLOT + 16);
    M_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    M_OK(MPI_Win_lock_all(0, win));
    long tickets[NT][ROUNDS], won[NT];
    int rounds = n * ROUNDS < 127 ? ROUNDS : 127 / n; /* (a signed char counts to 127) */
    for (int k = 0; k < NT; k++) {
        union {
            signed char c;
            short s;
            int i;
            long l;
            double d;
        } one, got, claim, zero = {0}, old;
        memset(&one, 0, sizeof one);
        memset(&claim, 0, sizeof claim);
        switch (k) {
        case 0:
            one.c = 1, claim.c = (signed char)(me + 1);
            break;
        case 1:
            one.s = 1, claim.s = (short)(me + 1);
            break;
        case 2:
            one.i = 1, claim.i = me + 1;
            break;
        case 3:
            one.l = 1, claim.l = me + 1;
            break;
        default:
            one.d = 1, claim.d = me + 1;
            break;
        }
        for (int i = 0; i < rounds; i++) {
            M_OK(MPI_Fetch_and_op(&one, &got, types[k], 0, (MPI_Aint)k * SLOT, MPI_SUM, win));
            tickets[k][i] = k == 0   ? got.c
                            : k == 1 ? got.s
                            : k == 2 ? got.i
                            : k == 3 ? got.l
                                     : (long)got.d;
        }
        memset(&old, 0x7f, sizeof old);
        M_OK(
            MPI_Compare_and_swap(&claim, &zero, &old, types[k], 0, (MPI_Aint)(NT + k) * SLOT, win));
        won[k] = !memcmp(&old, &zero, k == 0 ? 1 : k == 1 ? 2 : k == 2 ? 4 : 8);
    }
    M_OK(MPI_Win_flush_all(win));
    M_OK(MPI_Win_unlock_all(win));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    long *all = malloc(sizeof(long) * (size_t)rounds * (size_t)n);
    char *hit = malloc((size_t)n * (size_t)rounds);
    for (int k = 0; k < NT; k++) {
        long wins;
        M_OK(MPI_Allreduce(&won[k], &wins, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        ck_assert_msg(wins == 1, "type %d: %ld compare-and-swap winners", k, wins);
        M_OK(MPI_Allgather(tickets[k], rounds, MPI_LONG, all, rounds, MPI_LONG, MPI_COMM_WORLD));
        memset(hit, 0, (size_t)n * (size_t)rounds);
        for (int i = 0; i < n * rounds; i++) {
            ck_assert_msg(all[i] >= 0 && all[i] < n * rounds && !hit[all[i]], "type %d ticket %ld",
                          k, all[i]);
            hit[all[i]] = 1;
        }
    }
    free(all);
    free(hit);
    /* The last rank: MPI_NO_OP reads rank 0's int counter without an origin; MPI_REPLACE
     * puts 5 there and hands back what was there. MPI_PROC_NULL leaves the result alone. */
    int got = -1, five = 5, was = -1, kept = 77;
    if (me == n - 1) {
        M_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        M_OK(MPI_Fetch_and_op(NULL, &got, MPI_INT, 0, 2 * SLOT, MPI_NO_OP, win));
        ck_assert_int_eq(got, n * rounds);
        M_OK(MPI_Fetch_and_op(&five, &was, MPI_INT, 0, 2 * SLOT, MPI_REPLACE, win));
        M_OK(MPI_Fetch_and_op(NULL, &got, MPI_INT, 0, 2 * SLOT, MPI_NO_OP, win));
        ck_assert(got == 5 && was == n * rounds);
        /* A compare-and-swap sees every byte: values that differ in their highest byte
         * only do not swap, at displacements no element is aligned to. */
        long high = 1L << 56, lv = 5, lold = -1, lzero = 0;
        short shigh = 0x100, sv = 5, sold = -1, szero = 0;
        M_OK(MPI_Fetch_and_op(&high, &lold, MPI_LONG, 0, odd, MPI_REPLACE, win));
        M_OK(MPI_Fetch_and_op(&shigh, &sold, MPI_SHORT, 0, odd + 8, MPI_REPLACE, win));
        M_OK(MPI_Compare_and_swap(&lv, &lzero, &lold, MPI_LONG, 0, odd, win));
        M_OK(MPI_Compare_and_swap(&sv, &szero, &sold, MPI_SHORT, 0, odd + 8, win));
        ck_assert(lold == high && sold == shigh);
        M_OK(MPI_Compare_and_swap(&lv, &high, &lold, MPI_LONG, 0, odd, win));
        M_OK(MPI_Compare_and_swap(&sv, &shigh, &sold, MPI_SHORT, 0, odd + 8, win));
        ck_assert(lold == high && sold == shigh);
        M_OK(MPI_Fetch_and_op(NULL, &lold, MPI_LONG, 0, odd, MPI_NO_OP, win));
        M_OK(MPI_Fetch_and_op(NULL, &sold, MPI_SHORT, 0, odd + 8, MPI_NO_OP, win));
        ck_assert(lold == 5 && sold == 5);
        M_OK(MPI_Win_unlock(0, win));
    }
    M_OK(MPI_Win_lock_all(0, win));
    M_OK(MPI_Fetch_and_op(&five, &kept, MPI_INT, MPI_PROC_NULL, 0, MPI_SUM, win));
    ck_assert_int_eq(kept, 77);
    M_CLASS(MPI_ERR_BUFFER, MPI_Fetch_and_op(&five, NULL, MPI_INT, 0, 0, MPI_SUM, win));
    M_CLASS(MPI_ERR_BUFFER, MPI_Fetch_and_op(NULL, &got, MPI_INT, 0, 0, MPI_SUM, win));
    M_CLASS(MPI_ERR_BUFFER, MPI_Fetch_and_op(MPI_IN_PLACE, &got, MPI_INT, 0, 0, MPI_SUM, win));
    M_CLASS(MPI_ERR_BUFFER, MPI_Fetch_and_op(&five, MPI_IN_PLACE, MPI_INT, 0, 0, MPI_SUM, win));
    M_CLASS(MPI_ERR_BUFFER, MPI_Fetch_and_op(NULL, NULL, MPI_INT, 0, 0, MPI_NO_OP, win));
    struct {
        short v;
        int i;
    } si = {1, 1};
    M_CLASS(MPI_ERR_BUFFER, MPI_Fetch_and_op(&si, NULL, MPI_SHORT_INT, 0, 0, MPI_MAXLOC, win));
    MPI_Datatype two_ints;
    M_OK(MPI_Type_contiguous(2, MPI_INT, &two_ints));
    M_OK(MPI_Type_commit(&two_ints));
    int pair[2] = {1, 1}, pair_old[2];
    M_CLASS(MPI_ERR_TYPE, MPI_Fetch_and_op(pair, pair_old, two_ints, 0, 0, MPI_SUM, win));
    M_OK(MPI_Type_free(&two_ints));
    for (int k = 0; k < 3; k++)
        M_CLASS(MPI_ERR_BUFFER,
                MPI_Compare_and_swap(k == 0 ? MPI_IN_PLACE : &five, k == 1 ? MPI_IN_PLACE : &five,
                                     k == 2 ? MPI_IN_PLACE : &got, MPI_INT, 0, 0, win));
    M_CLASS(MPI_ERR_RMA_RANGE,
            MPI_Fetch_and_op(&five, &got, MPI_INT, 0, 2 * NT * SLOT + 14, MPI_SUM, win));
    M_CLASS(MPI_ERR_RANK, MPI_Fetch_and_op(&five, &got, MPI_INT, n, 0, MPI_SUM, win));
    M_OK(MPI_Win_unlock_all(win));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    M_OK(MPI_Win_free(&win));
}

static void everything(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0, (void)arg;
    mt_init();
    shared(me, n);
    strided(me, n);
    large(me, n, 0);
    large(me, n, 1);
    atomics(me, n);
    lone(me, n);
    locked_counter(me, n);
    pscw(me, n);
    object(me, n);
    created(me, n);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_win)
{
    mt_run(_i, everything, NULL);
}
END_TEST

static Suite *mpi_win_suite(void)
{
    Suite *s = suite_create("mpi_win");
    TCase *t = tcase_create("mpi_win");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_mpi_win, 1, 5);
    tcase_add_loop_test(t, test_mpi_win, 8, 9);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_win_suite());
}
