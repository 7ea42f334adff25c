/*
 * The MPI layer's internal interface: handle tables (communicators, groups, datatypes,
 * ops, requests, info objects), the datatype engine's packed views, error raising.
 * The layer sits on shmcomm.h alone (a binding, as the torch backend is) and is used one
 * call at a time per process (MPI_THREAD_SERIALIZED at most), so its tables are plain
 * process-local state with no locks.
 */
#ifndef SHMC_MPI_IMPL_H
#define SHMC_MPI_IMPL_H

/* The MPI functions are the library's exports: declared with default visibility here so
 * that their definitions (compiled with -fvisibility=hidden) inherit it. */
#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop

#include <shmcomm.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Makes MPI_name a weak alias of PMPI_name (defined in the same file), so a profiling
 * tool may define MPI_name itself and call PMPI_name. */
#define SHMC_MPI_ALIAS(name)                                                                       \
    extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)))

/* ---- state ------------------------------------------------------------------------- */

/* The world model's state (MPI_Init .. MPI_Finalize), and whether the runtime (the C
 * library and the layer's tables) is up: for the world model, a session, or both (env.c). */
enum { SHMC_MPI_BEFORE, SHMC_MPI_RUNNING, SHMC_MPI_FINALIZED };
extern int shmc_mpi__state;
extern int shmc_mpi__up;
extern int shmc_mpi__world_rank;
/* A session's hold on the runtime: brings it up at thread level required if it is not
 * (*provided: the runtime's level), and lets it go (env.c says when it goes down). */
int shmc_mpi__session_up(int required, int *provided);
int shmc_mpi__session_down(void);
int shmc_mpi__thread_level(void);
/* session.c: forgets the sessions (the runtime going down). */
void shmc_mpi__session_end(void);

/* ---- count arrays ---------------------------------------------------------------- */

/* An array of counts or displacements as a call passes it: int for the classic calls,
 * MPI_Count or MPI_Aint for MPI 4's large-count forms (the "_c" calls), which share the
 * classic calls' code through this. */
enum shmc_mpi_width { SHMC_MPI_INTS, SHMC_MPI_COUNTS, SHMC_MPI_AINTS };
struct shmc_mpi_arr {
    const void *p;
    enum shmc_mpi_width w;
};
static inline struct shmc_mpi_arr shmc_mpi__ints(const int *p)
{
    return (struct shmc_mpi_arr){p, SHMC_MPI_INTS};
}
static inline struct shmc_mpi_arr shmc_mpi__counts(const MPI_Count *p)
{
    return (struct shmc_mpi_arr){p, SHMC_MPI_COUNTS};
}
static inline struct shmc_mpi_arr shmc_mpi__aints(const MPI_Aint *p)
{
    return (struct shmc_mpi_arr){p, SHMC_MPI_AINTS};
}
static inline MPI_Count shmc_mpi__at(struct shmc_mpi_arr a, int i)
{
    switch (a.w) {
    case SHMC_MPI_INTS:
        return ((const int *)a.p)[i];
    case SHMC_MPI_COUNTS:
        return ((const MPI_Count *)a.p)[i];
    default:
        return ((const MPI_Aint *)a.p)[i];
    }
}

/* ---- errors (errors.c) --------------------------------------------------------------- */

/* Records a detail for the error that is about to be raised and returns code. */
int shmc_mpi__err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Maps a shmcomm error to an MPI error code (its detail: shmc_strerror). */
int shmc_mpi__from_shmc(int err);
/* Hands code to comm's error handler on behalf of the function fn ("PMPI_Send"): prints
 * and aborts for MPI_ERRORS_ARE_FATAL, calls a user handler, and returns code. */
int shmc_mpi__raise(MPI_Comm comm, int code, const char *fn);
/* Raise on the communicator of the call, naming the calling function. */
#define SHMC_MPI_RAISE(comm, code) shmc_mpi__raise((comm), (code), __func__)
/* Returns MPI_SUCCESS, or the error for a call made while the runtime is not up. */
int shmc_mpi__check_running(void);
MPI_Errhandler shmc_mpi__comm_errhandler(MPI_Comm comm);
/* Sets c's error handler, holding the new one and letting the old go (a user handler
 * lives while a handle or a communicator holds it). */
struct shmc_mpi_comm;
void shmc_mpi__errh_set(struct shmc_mpi_comm *c, MPI_Errhandler h);
/* The kinds of object an error handler is made for. */
enum { SHMC_MPI_EH_COMM, SHMC_MPI_EH_SESSION, SHMC_MPI_EH_WIN };
/* MPI_SUCCESS if h is a handler for objects of kind (SHMC_MPI_EH_*), else the error. */
int shmc_mpi__errh_check(MPI_Errhandler h, int kind);
/* Adds delta holds to h (a user handler lives while held). */
void shmc_mpi__errh_hold(MPI_Errhandler h, int delta);
/* Hands code to handler h of session s (window w) on behalf of fn (as shmc_mpi__raise). */
int shmc_mpi__raise_session(MPI_Session s, MPI_Errhandler h, int code, const char *fn);
int shmc_mpi__raise_win(MPI_Win w, MPI_Errhandler h, int code, const char *fn);
int shmc_mpi__unsupported(const char *name);
/* MPI_LASTUSEDCODE: the last code added at run time, or MPI_ERR_LASTCODE. */
int shmc_mpi__last_used_code(void);
void shmc_mpi__errors_end(void);

/* ---- threads (env.c) ---------------------------------------------------------------------- */

/* At MPI_THREAD_MULTIPLE, the layer's shared state (handle tables, requests, attributes,
 * keyvals, error handlers and codes, info objects, user ops, buffered sends, type
 * references) changes under one recursive, process-wide lock, which no call holds while
 * the C library may wait; lookups take none (handles.c). Below MULTIPLE it is not taken. */
extern int shmc_mpi__mt;
void shmc_mpi__lock_slow(void);
void shmc_mpi__unlock_slow(void);
static inline void shmc_mpi__lock(void)
{
    if (__builtin_expect(shmc_mpi__mt, 0))
        shmc_mpi__lock_slow();
}
static inline void shmc_mpi__unlock(void)
{
    if (__builtin_expect(shmc_mpi__mt, 0))
        shmc_mpi__unlock_slow();
}

/* ---- handle tables (handles.c) ----------------------------------------------------------- */

struct shmc_mpi_table {
    void **slot; /* by handle; NULL: free (handles.c says how threads share it) */
    int cap;     /* for the table's owner under the lock; lookups read the array's own */
};
/* Puts obj at the first free handle from first up, growing the table; -1 without memory. */
int shmc_mpi__table_put(struct shmc_mpi_table *t, int first, void *obj);
/* Sets handle h's entry (NULL: frees the handle; the object is the caller's). */
void shmc_mpi__table_set(struct shmc_mpi_table *t, int h, void *obj);
/* Frees the table itself (its objects are the caller's). */
void shmc_mpi__table_end(struct shmc_mpi_table *t);
/* An empty table's array: a capacity of 0 before no slot (handles.c's layout), so that a
 * lookup needs no NULL test. */
extern intptr_t shmc_mpi__no_slots[2];
#define SHMC_MPI_TABLE_INIT                                                                        \
    {                                                                                              \
        (void **)&shmc_mpi__no_slots[2], 0                                                         \
    }
static inline void *shmc_mpi__table_get(const struct shmc_mpi_table *t, int h)
{
    void **s = __atomic_load_n(&t->slot, __ATOMIC_ACQUIRE);
    return h > 0 && h < ((const intptr_t *)s)[-1] ? __atomic_load_n(&s[h], __ATOMIC_ACQUIRE) : NULL;
}

/* ---- attributes (attr.c) ------------------------------------------------------------------ */

/* Keyvals below this are the predefined keys (mpi.h: MPI_TAG_UB ... MPI_WIN_MODEL). */
#define SHMC_MPI_FIRST_KEYVAL 32
enum shmc_mpi_obj { SHMC_MPI_OBJ_COMM, SHMC_MPI_OBJ_TYPE, SHMC_MPI_OBJ_WIN };
struct shmc_mpi_attr {
    int keyval;
    void *val;
};
/* An object's attributes, in the order they were first set. */
struct shmc_mpi_attrs {
    struct shmc_mpi_attr *a;
    int n, cap;
};
/* Copies the attributes of object oldh whose copy callbacks say so onto the new object newh
 * (MPI_Comm_dup, MPI_Type_dup), whose list is empty; on a callback's error the copies made
 * are deleted again and the error returned. */
int shmc_mpi__attr_copy(int oldh, const struct shmc_mpi_attrs *from, int newh,
                        struct shmc_mpi_attrs *to);
/* Deletes every attribute of object h, the one set last first, calling the delete
 * callbacks; stops at a callback's error (returned), leaving that attribute and the older
 * ones in place. */
int shmc_mpi__attr_clear(int h, struct shmc_mpi_attrs *a);
/* Forgets the attributes without calling anything (an object that was never handed out). */
void shmc_mpi__attr_drop(struct shmc_mpi_attrs *a);
void shmc_mpi__attr_end(void);

/* ---- communicators (comm.c) and groups (group.c) --------------------------------------- */

struct shmc_mpi_comm {
    shmc_comm *c;
    int size, rank;
    int *world; /* world rank of each member */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    int ndims; /* Cartesian topology: ndims > 0; dims and periods have ndims entries */
    int *dims, *periods;
    size_t *scratch; /* 4 * size entries for the v-collectives' converted arrays */
    /* An intercommunicator (intercomm.c): remote[0..remote_size-1] are the remote group's
     * world ranks (NULL for an intracommunicator); size, rank and world are the local
     * group's; c spans both groups, the group of the lower leader (world rank) first, and
     * low says whether that is the local group. Point-to-point messages go on c, remote
     * rank r being rank r + roff of c (roff is 0 for an intracommunicator). The
     * collectives (intercoll.c) run on two hidden communicators made with it: local, an
     * intracommunicator of the local group, and bridge, an intercommunicator of the same
     * groups for their messages between the groups (MPI_COMM_NULL on a bridge itself). */
    int *remote;
    int remote_size, low, roff;
    MPI_Comm local, bridge;
    struct shmc_mpi_attrs attrs;
    struct shmc_mpi_graph *graph; /* a graph or distributed graph topology (graph.c) */
};
extern struct shmc_mpi_table shmc_mpi__comms; /* empty outside Init .. Finalize */
/* The error for a handle that names no communicator (or a call outside Init .. Finalize). */
int shmc_mpi__comm_bad(MPI_Comm h);
/* The intracommunicator of a handle, or NULL with the error's detail recorded in *rc (an
 * intercommunicator is refused: the calls that take one use shmc_mpi__comm_any). */
static inline struct shmc_mpi_comm *shmc_mpi__comm(MPI_Comm h, int *rc)
{
    struct shmc_mpi_comm *c = (struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, h);
    if (!c || c->remote) {
        *rc = shmc_mpi__comm_bad(h);
        return NULL;
    }
    return c;
}
/* The communicator of a handle, intra- or inter-, or NULL with the error's detail. */
static inline struct shmc_mpi_comm *shmc_mpi__comm_any(MPI_Comm h, int *rc)
{
    struct shmc_mpi_comm *c = (struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, h);
    if (!c)
        *rc = shmc_mpi__comm_bad(h);
    return c;
}
/* The intercommunicator of a handle, or NULL (an intracommunicator or no communicator). */
static inline struct shmc_mpi_comm *shmc_mpi__inter(MPI_Comm h)
{
    struct shmc_mpi_comm *c = (struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, h);
    return c && c->remote ? c : NULL;
}
/* Makes a handle for a new communicator of world ranks world[0..size-1] (taken over). */
int shmc_mpi__comm_new(shmc_comm *c, int *world, const struct shmc_mpi_comm *parent, MPI_Comm *out);
/* After a split-like call on the C library: learns the new communicator's world ranks and
 * makes its handle (MPI_COMM_NULL where sc is NULL); sc is freed on failure. */
int shmc_mpi__comm_adopt(shmc_comm *sc, const struct shmc_mpi_comm *parent, MPI_Comm *out);
int shmc_mpi__comm_start(shmc_comm *world);
/* The communicator's scratch of 4 * size entries (the v-calls' converted arrays). */
size_t *shmc_mpi__comm_scratch(struct shmc_mpi_comm *c, int *rc);

/* A call on a communicator: its errors name the call (fn, "PMPI_Send") and go to the
 * communicator's handler. shmc_mpi__call fills k, or raises (on the world's handler) for a
 * handle that is no communicator and returns that code. coll: the call is collective,
 * made by every member (shmc_mpi__call sets it; shmc_mpi__call_p2p does not, and the
 * intercommunicator collectives set it after; the window and intercommunicator makings,
 * which fail on every member alike, clear it): where such a call runs out of memory of
 * this layer's own (a packed copy, a table, the schedule it builds), the members have
 * begun it or will, and would wait for this rank for ever, so this rank quits the
 * communicator's collectives as it raises the error (shmc_mpi__call_rc, shmc_coll_quit);
 * the C library's own calls do so themselves. */
struct shmc_mpi_call {
    struct shmc_mpi_comm *c;
    MPI_Comm h;
    const char *fn;
    int coll;
};
static inline int shmc_mpi__call(MPI_Comm comm, const char *fn, struct shmc_mpi_call *k)
{
    int rc = MPI_SUCCESS;
    k->h = comm;
    k->fn = fn;
    k->coll = 1;
    k->c = shmc_mpi__comm(comm, &rc);
    return k->c ? MPI_SUCCESS : shmc_mpi__raise(comm, rc, fn);
}
/* As shmc_mpi__call for a point-to-point call, which takes an intercommunicator too. */
static inline int shmc_mpi__call_p2p(MPI_Comm comm, const char *fn, struct shmc_mpi_call *k)
{
    int rc = MPI_SUCCESS;
    k->h = comm;
    k->fn = fn;
    k->coll = 0;
    k->c = shmc_mpi__comm_any(comm, &rc);
    return k->c ? MPI_SUCCESS : shmc_mpi__raise(comm, rc, fn);
}
/* The C library's rank (in c->c) of a point-to-point call's peer r: r itself on an
 * intracommunicator (the C library checks it); on an intercommunicator, remote rank r
 * (MPI_PROC_NULL, MPI_ANY_SOURCE and other negative values pass as they are, for the C
 * library to take or refuse). Returns MPI_SUCCESS or MPI_ERR_RANK with its detail. */
static inline int shmc_mpi__peer(const struct shmc_mpi_comm *c, int r, int *out)
{
    *out = r;
    if (__builtin_expect(!c->remote, 1) || r < 0)
        return MPI_SUCCESS;
    if (r >= c->remote_size)
        return shmc_mpi__err(MPI_ERR_RANK, "rank %d is not in the remote group of %d", r,
                             c->remote_size);
    *out = r + c->roff;
    return MPI_SUCCESS;
}
int shmc_mpi__call_fail(const struct shmc_mpi_call *k, int rc);
static inline int shmc_mpi__call_rc(const struct shmc_mpi_call *k, int rc)
{
    return rc == MPI_SUCCESS ? rc : shmc_mpi__call_fail(k, rc);
}
static inline int shmc_mpi__call_err(const struct shmc_mpi_call *k, int err)
{
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__raise(k->h, shmc_mpi__from_shmc(err), k->fn);
}
/* intercomm.c: MPI_Comm_dup and MPI_Comm_split of intercommunicator c. */
int shmc_mpi__inter_dup(const struct shmc_mpi_comm *c, MPI_Comm *out);
/* MPI_Comm_idup of intercommunicator comm (c): *out stays MPI_COMM_NULL until the request
 * completes; then it is the duplicate, with what shmc_mpi__comm_dup_extras copies. */
int shmc_mpi__inter_idup(MPI_Comm comm, const struct shmc_mpi_comm *c, MPI_Comm *out,
                         MPI_Request *request);
/* What a duplicate takes from its parent c (handle comm) once it exists: the attributes
 * whose copy callbacks say so, and the topology. On failure the duplicate is freed. */
int shmc_mpi__comm_dup_extras(MPI_Comm comm, struct shmc_mpi_comm *c, MPI_Comm *newcomm);
int shmc_mpi__inter_split(const struct shmc_mpi_comm *c, int color, int key, MPI_Comm *out);
/* A rooted collective's root, and MPI_IN_PLACE passed by the root alone. */
int shmc_mpi__call_rooted(const struct shmc_mpi_call *k, int root, int in_place);
/* graph.c: a communicator's graph topology kind (MPI_GRAPH, MPI_DIST_GRAPH, or
 * MPI_UNDEFINED), its copy (MPI_Comm_dup) and its end. */
int shmc_mpi__graph_kind(const struct shmc_mpi_comm *c);
int shmc_mpi__graph_copy(const struct shmc_mpi_comm *from, struct shmc_mpi_comm *to);
void shmc_mpi__graph_free(struct shmc_mpi_graph *g);
/* The neighbours of a member of a communicator with a topology, for the neighbourhood
 * collectives (neighbor.c), in MPI's order: indeg sources and outdeg destinations,
 * MPI_PROC_NULL where a Cartesian dimension ends. The arrays are the topology's or, for a
 * Cartesian one, own (freed with free(own)), where pairs says that each dimension's two
 * neighbours come as a pair, the negative direction first. */
struct shmc_mpi_nbrs {
    int indeg, outdeg;
    const int *src, *dst;
    int *own;
    int pairs;
};
int shmc_mpi__cart_nbrs(const struct shmc_mpi_comm *c, struct shmc_mpi_nbrs *n); /* topo.c */
int shmc_mpi__graph_nbrs(const struct shmc_mpi_comm *c, struct shmc_mpi_nbrs *n);
/* A predefined communicator attribute (keyval below SHMC_MPI_FIRST_KEYVAL). */
int shmc_mpi__comm_predefined_attr(int keyval, void *val, int *flag);
/* Deletes the attributes of every communicator, MPI_COMM_SELF's first (MPI_Finalize). */
int shmc_mpi__comm_attrs_end(void);
void shmc_mpi__comm_end(void);

struct shmc_mpi_group {
    int n;
    int *world; /* world ranks of the members, in group order */
};
struct shmc_mpi_group *shmc_mpi__group(MPI_Group h, int *rc);
int shmc_mpi__group_new(int n, int *world, MPI_Group *out);
void shmc_mpi__group_end(void);

/* ---- collectives on intercommunicators (intercoll.c) ------------------------------------ */

/* Each takes the arguments of its MPI call on intercommunicator comm, and fn, the name of
 * that call, for its errors. */
int shmc_mpi__ic_barrier(MPI_Comm comm, const char *fn);
int shmc_mpi__ic_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       const char *fn);
int shmc_mpi__ic_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const char *fn);
int shmc_mpi__ic_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        const char *fn);
int shmc_mpi__ic_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         int root, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         const char *fn);
int shmc_mpi__ic_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *fn);
int shmc_mpi__ic_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           const char *fn);
int shmc_mpi__ic_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           const char *fn);

/* ---- windows (win.c; the accesses are rma.c's) ------------------------------------------ */

/* Where one member's part of a window lies when it is mapped here. */
struct shmc_mpi_part {
    char *base;
    size_t bytes, unit;
};
struct shmc_mpi_win {
    shmc_win *w;
    MPI_Comm comm; /* a duplicate of the communicator it was made on (its group) */
    int flavor, disp_unit, rank, size;
    MPI_Aint bytes;
    void *base;
    /* Each member's part, asked of the C library once at making, as an access's hot path
     * reads it (the memory the library allocates stays where it is until freed); NULL
     * for the flavors on the program's own memory. */
    struct shmc_mpi_part *part;
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    struct shmc_mpi_attrs attrs;
};
extern struct shmc_mpi_table shmc_mpi__wins;
/* The window of a handle, or NULL with the error's detail in *rc (inline: every access
 * starts here). */
int shmc_mpi__win_bad(MPI_Win h);
static inline struct shmc_mpi_win *shmc_mpi__win(MPI_Win h, int *rc)
{
    struct shmc_mpi_win *x = (struct shmc_mpi_win *)shmc_mpi__table_get(&shmc_mpi__wins, h);
    if (!x)
        *rc = shmc_mpi__win_bad(h);
    return x;
}
/* Raises rc on window h's handler (the world's if h is no window), on behalf of fn. */
int shmc_mpi__win_raise(MPI_Win h, int rc, const char *fn);
/* The C library's window error err as an MPI code. */
int shmc_mpi__win_err(int err);
struct shmc_mpi_attrs *shmc_mpi__win_attrs(MPI_Win h, int *rc);
/* MPI_WIN_BASE ... MPI_WIN_MODEL of window h. */
int shmc_mpi__win_predefined_attr(MPI_Win h, int keyval, void *val, int *flag);
void shmc_mpi__win_end(void);

/* neighbor.c: a neighbourhood collective's arguments (one kind's; the others unused),
 * run blocking (request NULL) or nonblocking, or made persistent. */
enum {
    SHMC_MPI_NB_ALLGATHER,
    SHMC_MPI_NB_ALLGATHERV,
    SHMC_MPI_NB_ALLTOALL,
    SHMC_MPI_NB_ALLTOALLV,
    SHMC_MPI_NB_ALLTOALLW
};
struct shmc_mpi_nargs {
    int kind, nonblocking;
    const void *sbuf;
    MPI_Count scount;
    struct shmc_mpi_arr scounts, sdispls; /* sdispls: bytes for alltoallw, else extents */
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    MPI_Count rcount;
    struct shmc_mpi_arr rcounts, rdispls;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
};
int shmc_mpi__neighbor(const struct shmc_mpi_nargs *a, MPI_Comm comm, MPI_Request *request,
                       const char *fn);
int shmc_mpi__neighbor_init(const struct shmc_mpi_nargs *a, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request, const char *fn);

/* icnb.c: the nonblocking collectives on intercommunicator comm (request: where the
 * request goes; fn names the call). Rooted ones take MPI's root convention; gather
 * (gather 1 / scatter 0), all (alltoall 1 / allgather 0); v: 0 gatherv, 1 scatterv,
 * 2 allgatherv, 3 alltoallv, with one block of sendcount/recvcount where a side has no
 * arrays; reduce_scatter: counts (or, with no array, block_count each). */
int shmc_mpi__icnb_barrier(MPI_Comm comm, MPI_Request *request, const char *fn);
int shmc_mpi__icnb_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                         MPI_Comm comm, MPI_Request *request, const char *fn);
int shmc_mpi__icnb_reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                          MPI_Request *request, const char *fn);
int shmc_mpi__icnb_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                             const char *fn);
int shmc_mpi__icnb_rooted(int gather, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request,
                          const char *fn);
int shmc_mpi__icnb_all(int alltoall, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, const char *fn);
int shmc_mpi__icnb_v(int kind, const void *sendbuf, MPI_Count sendcount,
                     struct shmc_mpi_arr scounts, struct shmc_mpi_arr sdispls,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     struct shmc_mpi_arr rcounts, struct shmc_mpi_arr rdispls,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request,
                     const char *fn);
int shmc_mpi__icnb_reduce_scatter(const void *sendbuf, void *recvbuf, struct shmc_mpi_arr counts,
                                  MPI_Count block_count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Request *request, const char *fn);
int shmc_mpi__icnb_alltoallw(const void *sendbuf, struct shmc_mpi_arr scounts,
                             struct shmc_mpi_arr sdispls, const MPI_Datatype sendtypes[],
                             void *recvbuf, struct shmc_mpi_arr rcounts,
                             struct shmc_mpi_arr rdispls, const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request, const char *fn);

/* The large-count forms on an intercommunicator go through the calls above: a count
 * (or each of n in an array, copied to *out, NULL for no array) must fit in an int. */
int shmc_mpi__ic_int(MPI_Count v, int *out);
int shmc_mpi__ic_ints(struct shmc_mpi_arr a, int n, int **out);

/* ---- datatypes (types.c, pack.c) ------------------------------------------------------ */

#define SHMC_MPI_FIRST_DERIVED 64 /* predefined datatypes are 1..63, derived ones follow */

/* One run of bytes of a type's element, at disp from the element's start; esize is the
 * size of the predefined elements it holds (MPI_Get_elements counts them). */
struct shmc_mpi_seg {
    MPI_Aint disp;
    MPI_Aint len;
    MPI_Aint esize;
};

/* n predefined elements of type basic, one after another in packed data. */
struct shmc_mpi_sig {
    MPI_Datatype basic;
    MPI_Count n;
};

struct shmc_mpi_type {
    int alive, committed, predefined;
    int fixed;      /* made by MPI_Type_create_f90_*: committed, never freed, decoded as made */
    MPI_Count size; /* bytes of data in one element */
    MPI_Aint lb, extent; /* the element's bounds (extent: stride of an array) */
    MPI_Aint true_lb, true_ub;
    /* The bounds were set (MPI_LB, MPI_UB markers or MPI_Type_create_resized): types made
     * of this one take them as they are, without padding (MPI 3.1, 4.1.6 and 4.1.7). */
    int lb_set, ub_set;
    MPI_Aint align; /* the strictest alignment of its predefined types (a struct's padding) */
    int nseg;
    struct shmc_mpi_seg *seg; /* the type map flattened, in order, adjacent runs merged */
    int dense;                /* one run at 0 of extent bytes: memory holds the packed bytes */
    /* Reductions: every element of the type is red_n elements of the predefined type
     * red (0 when the type mixes predefined types). */
    MPI_Datatype red;
    MPI_Count red_n;
    /* A type that mixes predefined types (red 0): its signature, the predefined elements
     * of one element in order as runs of one type (external32 converts them); NULL for
     * the others, whose signature is red_n elements of red. */
    struct shmc_mpi_sig *sig;
    int nsig;
    int combiner;
    char name[MPI_MAX_OBJECT_NAME];
    struct shmc_mpi_attrs attrs;
    /* Handles and decodings holding a derived type (freed at 0), and the arguments it was
     * made with (typedecode.c; NULL for a predefined type). */
    int refs;
    struct shmc_mpi_decode *decode;
};
extern struct shmc_mpi_table shmc_mpi__types;
/* A type of MPI_Type_create_f90_* (combiner, its ni arguments): a committed copy of the
 * predefined type base that the program cannot free. */
int shmc_mpi__type_f90(MPI_Datatype base, int combiner, int ni, const int *ints, MPI_Datatype *out);
/* typematch.c: forgets the types of MPI_Type_create_f90_* (at MPI_Finalize). */
void shmc_mpi__f90_end(void);
/* Where count elements of t lie from the buffer's start: the lowest data byte at *lo,
 * and the bytes from there to past the highest (0 for no element). */
size_t shmc_mpi__type_span(const struct shmc_mpi_type *t, size_t count, MPI_Aint *lo);
/* One more handle for derived type t (MPI_Type_get_contents hands out the same object). */
int shmc_mpi__type_handle(struct shmc_mpi_type *t, MPI_Datatype *out);
/* Drops one hold on t, freeing it with the last. */
void shmc_mpi__type_unref(struct shmc_mpi_type *t);
/* typedecode.c: records the arguments derived type h was made with (MPI 4.1, 5.1.13's
 * layout for the combiner; counts: the large counts of a "_c" constructor's), and forgets
 * them when the type goes. */
int shmc_mpi__type_record(MPI_Datatype h, int combiner, int ni, const int *ints, int na,
                          const MPI_Aint *aints, MPI_Count nc, const MPI_Count *counts, int nt,
                          const MPI_Datatype *types);
void shmc_mpi__type_forget(struct shmc_mpi_type *t);
struct shmc_mpi_type *shmc_mpi__type_slow(MPI_Datatype h, int *rc);
/* The type of a handle, or NULL with the error's detail recorded in *rc. */
static inline struct shmc_mpi_type *shmc_mpi__type(MPI_Datatype h, int *rc)
{
    struct shmc_mpi_type *t = (struct shmc_mpi_type *)shmc_mpi__table_get(&shmc_mpi__types, h);
    return t ? t : shmc_mpi__type_slow(h, rc);
}
/* As shmc_mpi__type, and also refuses a derived type that was not committed. */
struct shmc_mpi_type *shmc_mpi__type_usable(MPI_Datatype h, int *rc);
/* What a predefined type holds, for reductions: its class of ops (MPI 3.1, 5.9.2), its
 * number representation, and for the pair types (MINLOC, MAXLOC) the index's. */
enum shmc_mpi_kind {
    SHMC_MPI_K_NONE,
    SHMC_MPI_K_CINT,    /* C integer: arithmetic, logical and bitwise ops */
    SHMC_MPI_K_FINT,    /* Fortran integer: arithmetic and bitwise */
    SHMC_MPI_K_FLOAT,   /* MIN, MAX, SUM, PROD; logical ops as MPICH allows */
    SHMC_MPI_K_COMPLEX, /* SUM, PROD */
    SHMC_MPI_K_LOGICAL, /* LAND, LOR, LXOR */
    SHMC_MPI_K_BYTE,    /* BAND, BOR, BXOR */
    SHMC_MPI_K_PAIR     /* MINLOC, MAXLOC */
};
enum shmc_mpi_num {
    SHMC_MPI_N_NONE,
    SHMC_MPI_N_I8,
    SHMC_MPI_N_U8,
    SHMC_MPI_N_I16,
    SHMC_MPI_N_U16,
    SHMC_MPI_N_I32,
    SHMC_MPI_N_U32,
    SHMC_MPI_N_I64,
    SHMC_MPI_N_U64,
    SHMC_MPI_N_F32,
    SHMC_MPI_N_F64,
    SHMC_MPI_N_LD,
    SHMC_MPI_N_CF,
    SHMC_MPI_N_CD,
    SHMC_MPI_N_CLD,
    SHMC_MPI_N_BOOL
};
struct shmc_mpi_basic {
    enum shmc_mpi_kind kind;
    enum shmc_mpi_num num;  /* the value's (for a pair, the first member's) */
    enum shmc_mpi_num inum; /* a pair's index */
};
/* NULL for a handle that is not a predefined type. */
const struct shmc_mpi_basic *shmc_mpi__basic(MPI_Datatype predefined);
/* Deletes the attributes of every datatype (MPI_Finalize). */
int shmc_mpi__type_attrs_end(void);
void shmc_mpi__type_end(void);

/* Packs count elements at buf into out (the packed bytes, count * size) and unpacks
 * bytes of packed data into count elements at buf (bytes may end within an element). */
void shmc_mpi__pack(const void *buf, size_t count, const struct shmc_mpi_type *t, void *out);
void shmc_mpi__unpack(const void *in, size_t bytes, void *buf, size_t count,
                      const struct shmc_mpi_type *t);
/* Predefined elements in bytes of packed data (MPI_Get_elements). */
MPI_Count shmc_mpi__elements(const struct shmc_mpi_type *t, MPI_Count bytes);

/* A buffer as the C library moves it: packed bytes. For a dense type they are the
 * user's own memory; otherwise a packed copy (sending) or a staging buffer that
 * view_finish unpacks (receiving). */
struct shmc_mpi_view {
    void *p;
    size_t bytes;
    void *tmp;
    void *ubuf;
    size_t count;
    const struct shmc_mpi_type *t;
};
int shmc_mpi__view_pack(const void *buf, size_t count, const struct shmc_mpi_type *t,
                        struct shmc_mpi_view *v);
int shmc_mpi__view_stage(void *buf, size_t count, const struct shmc_mpi_type *t,
                         struct shmc_mpi_view *v);
void shmc_mpi__view_unstage(struct shmc_mpi_view *v, size_t got);
/* A dense type's view is the user's memory: set up here, inline, as the hot path of every
 * call; the others go through pack.c. */
static inline int shmc_mpi__view_dense(void *buf, size_t count, const struct shmc_mpi_type *t,
                                       struct shmc_mpi_view *v)
{
    if (!t->dense || __builtin_mul_overflow(count, (size_t)t->size, &v->bytes))
        return 0;
    v->p = buf;
    v->tmp = NULL;
    return 1;
}
static inline int shmc_mpi__view_send(const void *buf, size_t count, const struct shmc_mpi_type *t,
                                      struct shmc_mpi_view *v)
{
    return shmc_mpi__view_dense((void *)(uintptr_t)buf, count, t, v)
               ? MPI_SUCCESS
               : shmc_mpi__view_pack(buf, count, t, v);
}
static inline int shmc_mpi__view_recv(void *buf, size_t count, const struct shmc_mpi_type *t,
                                      struct shmc_mpi_view *v)
{
    return shmc_mpi__view_dense(buf, count, t, v) ? MPI_SUCCESS
                                                  : shmc_mpi__view_stage(buf, count, t, v);
}
/* A buffer that is both read and written (in-place collectives): its packed bytes, which
 * view_finish unpacks back. */
int shmc_mpi__view_inout(void *buf, size_t count, const struct shmc_mpi_type *t,
                         struct shmc_mpi_view *v);
/* Unpacks the got bytes that arrived (receive views) and frees the staging memory. */
static inline void shmc_mpi__view_finish(struct shmc_mpi_view *v, size_t got)
{
    if (v->tmp)
        shmc_mpi__view_unstage(v, got);
}

/* ---- ops (ops.c) ------------------------------------------------------------------------ */

/* How the C library reduces count elements of an MPI type with an MPI op: count * n
 * elements of dtype with op; packed says the data must be packed first (the type's
 * memory is not the reduced layout). */
struct shmc_mpi_red {
    shmc_dtype dtype;
    shmc_op op;
    size_t n;
    int packed;
    int big; /* a user op on elements the C library cannot carry: shmc_mpi__reduce_big */
};
int shmc_mpi__reduction(MPI_Op op, MPI_Datatype type, struct shmc_mpi_red *r);
/* Is op one of MPI_Op_create's (alive)? */
int shmc_mpi__is_user_op(MPI_Op op);
/* For a nonblocking reduction with user op op on type: r->op becomes a C library op of
 * this call's own, which calls the program's function with type whenever the combines
 * run; *ctx is its context, to free (free()) once the call has ended. The caller frees the
 * op (shmc_op_free) once the call started: the C library keeps it until the call ends. */
int shmc_mpi__call_op(MPI_Op op, MPI_Datatype type, struct shmc_mpi_red *r, void **ctx);
/* MPI_Reduce (all: MPI_Allreduce) with a user op on count elements of a type whose data
 * does not lie within one extent of at most SHMC_DTYPE_BYTES_MAX bytes from 0: the
 * elements' memory gathered to the root, combined there in rank order, the result
 * unpacked (and, for all, broadcast packed). Returns an MPI error code, not raised: the
 * caller raises it on the call (MPI_ERR_NO_MEM, its own memory short before the gather,
 * then makes this rank leave the communicator's collectives: shmc_mpi__call_rc). */
int shmc_mpi__reduce_big(int all, const void *sendbuf, void *recvbuf, MPI_Count count,
                         MPI_Datatype type, MPI_Op op, int root, struct shmc_mpi_comm *c);
void shmc_mpi__ops_end(void);

/* ---- requests (request.c, bsend.c) ------------------------------------------------------ */

/* A status from the C library's, for a buffer of cap bytes, on a communicator whose
 * remote rank 0 is the C library's rank roff (0 but on an intercommunicator). */
void shmc_mpi__status_set(MPI_Status *st, const shmc_status *s, size_t cap, int roff);
void shmc_mpi__status_empty(MPI_Status *st);
/* The handle of every send or collective complete as it started (request.c says why one
 * serves all). */
#define SHMC_MPI_REQUEST_DONE ((MPI_Request)1)
int shmc_mpi__request_done(MPI_Request *out);
/* Makes a request handle for a started operation r. */
int shmc_mpi__request_new(shmc_request *r, MPI_Comm comm, int roff, struct shmc_mpi_view *v,
                          MPI_Request *out);
/* Makes the handle of a started nonblocking collective r: its status empty, fin(arg, ok)
 * called once it completes (NULL: nothing to do then). On failure fin(arg, 0) has run. */
int shmc_mpi__request_coll(shmc_request *r, MPI_Comm comm, void (*fin)(void *arg, int ok),
                           void *arg, MPI_Request *out);
/* After a nonblocking collective's start (err, and its request r): its handle in *out,
 * the send side's packed copy vs freed and the receive side vr unpacked (when keep) at
 * completion; a failed start finishes them now. Returns the MPI code, raised on k. */
int shmc_mpi__coll_started(const struct shmc_mpi_call *k, int err, shmc_request *r,
                           struct shmc_mpi_view *vs, struct shmc_mpi_view *vr, int keep,
                           void *opctx, MPI_Request *out);
/* Makes the handle of a receive the C library completed as it started (shmc_irecv_now: err,
 * *s), finished as a wait finishes one: v unpacked, status and error kept for the wait. */
int shmc_mpi__request_received(MPI_Comm comm, int roff, struct shmc_mpi_view *v, int err,
                               const shmc_status *s, MPI_Request *out);
/* Forgets the matched probes' messages never received (at MPI_Finalize). */
void shmc_mpi__messages_end(void);
/* Waits for every started request on comm of this layer's (MPI_Comm_disconnect). */
void shmc_mpi__request_wait_comm(MPI_Comm comm);
/* Completes the requests freed by MPI_Request_free while active (at MPI_Finalize). */
void shmc_mpi__request_end(void);
/* A buffered send of call fn (its errors name it). */
int shmc_mpi__bsend_start(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, const char *fn);
void shmc_mpi__bsend_end(void);

/* ---- info (info.c) ---------------------------------------------------------------------- */
int shmc_mpi__info_check(MPI_Info info);

/* A buffer argument of a call: count elements of a usable (committed) type at buf, which
 * is not MPI_IN_PLACE; *bytes, their packed size. The common case is checked inline in
 * one go; anything else (an error, MPI_BOTTOM, a type not looked up yet) goes to the
 * full check, which names what is wrong. */
int shmc_mpi__buffer_arg_full(const void *buf, MPI_Count count, MPI_Datatype type,
                              const struct shmc_mpi_type **t, size_t *bytes);
static inline int shmc_mpi__buffer_arg(const void *buf, MPI_Count count, MPI_Datatype type,
                                       const struct shmc_mpi_type **t, size_t *bytes)
{
    const struct shmc_mpi_type *x =
        (const struct shmc_mpi_type *)shmc_mpi__table_get(&shmc_mpi__types, type);
    if (x && x->committed && count >= 0 && buf && buf != MPI_IN_PLACE &&
        !__builtin_mul_overflow((size_t)count, (size_t)x->size, bytes)) {
        *t = x;
        return MPI_SUCCESS;
    }
    return shmc_mpi__buffer_arg_full(buf, count, type, t, bytes);
}

/* Argument checks shared by the calls: each returns MPI_SUCCESS or an error code with its
 * detail recorded. */
int shmc_mpi__check_count(MPI_Count count);
int shmc_mpi__check_buf(const void *buf, MPI_Count count, const struct shmc_mpi_type *t);
/* The buffer part of shmc_mpi__buffer_arg, for a type already resolved: not MPI_IN_PLACE,
 * then shmc_mpi__check_buf, which has nothing to refuse in a buffer that is not NULL at a
 * count that is not negative (inline: a lone element's accumulate checks two or three). */
static inline int shmc_mpi__buffer_ok(const void *buf, MPI_Count count,
                                      const struct shmc_mpi_type *t)
{
    if (buf == MPI_IN_PLACE)
        return shmc_mpi__err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not a buffer here");
    return buf && count >= 0 ? MPI_SUCCESS : shmc_mpi__check_buf(buf, count, t);
}

#endif /* SHMC_MPI_IMPL_H */
