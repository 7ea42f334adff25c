/*
 * Reduction ops: how each MPI op on each type reaches the C library. Built-in ops on the
 * types shmcomm reduces natively become its own (vectorised) ops; the rest (the logical
 * ops on integers, long double, complex, MINLOC and MAXLOC on the pair types) become
 * shmcomm user ops over opaque elements, made once per (op, type) when first used; and
 * MPI_Op_create ops are shmcomm user ops whose function calls the program's with the
 * MPI datatype of the call (kept in cur_type for the call's length: calls do not overlap).
 */
#include "mpi_impl.h"

#include <complex.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_USER 32
#define MAX_USER 256
struct uop {
    int alive;
    int commute;
    MPI_User_function *fn;
    MPI_User_function_c *fn_c; /* made by MPI_Op_create_c: one call for any count */
    shmc_op sop;
};
static struct uop uops[MAX_USER];
static _Thread_local MPI_Datatype cur_type; /* the type a user op is called with */

/* Emulated (op, predefined type) pairs: index [op][type]. */
struct emu {
    int made;
    MPI_Op op;
    MPI_Datatype type;
    size_t vsize; /* a pair's value size (its index follows it, packed) */
    shmc_op sop;
};
static struct emu emus[MPI_MAXLOC + 1][SHMC_MPI_FIRST_DERIVED];

/* What each built-in op on each predefined type became, once worked out: the calls ask
 * again each time, and a small reduction must not pay for the choosing. */
static struct shmc_mpi_red known[MPI_MAXLOC + 1][SHMC_MPI_FIRST_DERIVED];
static unsigned char known_ok[MPI_MAXLOC + 1][SHMC_MPI_FIRST_DERIVED];

/* ---- the emulated ops' arithmetic -------------------------------------------------------- */

#define EACH(T, EXPR)                                                                              \
    for (size_t i = 0; i < count; i++) {                                                           \
        T a, b;                                                                                    \
        memcpy(&a, (const char *)in + i * sizeof(T), sizeof a);                                    \
        memcpy(&b, (char *)out + i * sizeof(T), sizeof b);                                         \
        b = (T)(EXPR);                                                                             \
        memcpy((char *)out + i * sizeof(T), &b, sizeof b);                                         \
    }

#define LOGICAL(T, op)                                                                             \
    switch (op) {                                                                                  \
    case MPI_LAND:                                                                                 \
        EACH(T, (a != 0) && (b != 0));                                                             \
        break;                                                                                     \
    case MPI_LOR:                                                                                  \
        EACH(T, (a != 0) || (b != 0));                                                             \
        break;                                                                                     \
    default:                                                                                       \
        EACH(T, (a != 0) != (b != 0));                                                             \
        break;                                                                                     \
    }

#define ARITH(T, op)                                                                               \
    switch (op) {                                                                                  \
    case MPI_SUM:                                                                                  \
        EACH(T, a + b);                                                                            \
        break;                                                                                     \
    case MPI_PROD:                                                                                 \
        EACH(T, a *b);                                                                             \
        break;                                                                                     \
    case MPI_MIN:                                                                                  \
        EACH(T, a < b ? a : b);                                                                    \
        break;                                                                                     \
    default:                                                                                       \
        EACH(T, a > b ? a : b);                                                                    \
        break;                                                                                     \
    }

#define COMPLEX(T, op)                                                                             \
    switch (op) {                                                                                  \
    case MPI_SUM:                                                                                  \
        EACH(T, a + b);                                                                            \
        break;                                                                                     \
    default:                                                                                       \
        EACH(T, a *b);                                                                             \
        break;                                                                                     \
    }

/* MINLOC/MAXLOC on packed pairs: the value, then the index. Ties keep the lower index. */
#define PAIRS(V, I, op)                                                                            \
    for (size_t i = 0; i < count; i++) {                                                           \
        const char *pa = (const char *)in + i * (sizeof(V) + sizeof(I));                           \
        char *pb = (char *)out + i * (sizeof(V) + sizeof(I));                                      \
        V va, vb;                                                                                  \
        I ia, ib;                                                                                  \
        memcpy(&va, pa, sizeof va);                                                                \
        memcpy(&vb, pb, sizeof vb);                                                                \
        memcpy(&ia, pa + sizeof(V), sizeof ia);                                                    \
        memcpy(&ib, pb + sizeof(V), sizeof ib);                                                    \
        int better = (op) == MPI_MINLOC ? va < vb : va > vb;                                       \
        if (better || (va == vb && ia < ib))                                                       \
            memcpy(pb, pa, sizeof(V) + sizeof(I));                                                 \
    }

static void emulated(const void *in, void *out, size_t count, shmc_dtype dtype, void *ctx)
{
    (void)dtype;
    const struct emu *e = ctx;
    const struct shmc_mpi_basic *basic = shmc_mpi__basic(e->type);
    MPI_Op op = e->op;
    if (op == MPI_MINLOC || op == MPI_MAXLOC) {
        switch (e->type) {
        case MPI_FLOAT_INT:
            PAIRS(float, int, op);
            break;
        case MPI_DOUBLE_INT:
            PAIRS(double, int, op);
            break;
        case MPI_LONG_INT:
            PAIRS(long, int, op);
            break;
        case MPI_2INT:
        case MPI_2INTEGER:
            PAIRS(int, int, op);
            break;
        case MPI_SHORT_INT:
            PAIRS(short, int, op);
            break;
        case MPI_LONG_DOUBLE_INT:
            PAIRS(long double, int, op);
            break;
        case MPI_2REAL:
            PAIRS(float, float, op);
            break;
        default:
            PAIRS(double, double, op);
            break; /* MPI_2DOUBLE_PRECISION */
        }
        return;
    }
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) {
        switch (basic->num) {
        case SHMC_MPI_N_I8:
            LOGICAL(int8_t, op);
            break;
        case SHMC_MPI_N_U8:
            LOGICAL(uint8_t, op);
            break;
        case SHMC_MPI_N_I16:
            LOGICAL(int16_t, op);
            break;
        case SHMC_MPI_N_U16:
            LOGICAL(uint16_t, op);
            break;
        case SHMC_MPI_N_I32:
            LOGICAL(int32_t, op);
            break;
        case SHMC_MPI_N_U32:
            LOGICAL(uint32_t, op);
            break;
        case SHMC_MPI_N_I64:
            LOGICAL(int64_t, op);
            break;
        case SHMC_MPI_N_U64:
            LOGICAL(uint64_t, op);
            break;
        case SHMC_MPI_N_F32:
            LOGICAL(float, op);
            break;
        case SHMC_MPI_N_F64:
            LOGICAL(double, op);
            break;
        default:
            LOGICAL(long double, op);
            break; /* SHMC_MPI_N_LD: ok_for allows no other */
        }
        return;
    }
    switch (basic->num) {
    case SHMC_MPI_N_LD:
        ARITH(long double, op);
        break;
    case SHMC_MPI_N_CF:
        COMPLEX(float _Complex, op);
        break;
    case SHMC_MPI_N_CD:
        COMPLEX(double _Complex, op);
        break;
    case SHMC_MPI_N_CLD:
        COMPLEX(long double _Complex, op);
        break;
    default:
        break; /* not made for other types (ok_for refuses them) */
    }
}

/* ---- choosing how to reduce --------------------------------------------------------------- */

static int ok_for(MPI_Op op, enum shmc_mpi_kind k)
{
    switch (op) {
    case MPI_MAX:
    case MPI_MIN:
        return k == SHMC_MPI_K_CINT || k == SHMC_MPI_K_FINT || k == SHMC_MPI_K_FLOAT;
    case MPI_SUM:
    case MPI_PROD:
        return k == SHMC_MPI_K_CINT || k == SHMC_MPI_K_FINT || k == SHMC_MPI_K_FLOAT ||
               k == SHMC_MPI_K_COMPLEX;
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR:
        /* C floating types too, as MPICH allows (MPI 3.1 lists integers and logicals) */
        return k == SHMC_MPI_K_CINT || k == SHMC_MPI_K_LOGICAL || k == SHMC_MPI_K_FLOAT;
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR:
        return k == SHMC_MPI_K_CINT || k == SHMC_MPI_K_FINT || k == SHMC_MPI_K_BYTE;
    case MPI_MINLOC:
    case MPI_MAXLOC:
        return k == SHMC_MPI_K_PAIR;
    default:
        return 0;
    }
}

static const shmc_dtype int_dtype[] = {
    [SHMC_MPI_N_I8] = SHMC_INT8,    [SHMC_MPI_N_U8] = SHMC_UINT8,   [SHMC_MPI_N_I16] = SHMC_INT16,
    [SHMC_MPI_N_U16] = SHMC_UINT16, [SHMC_MPI_N_I32] = SHMC_INT32,  [SHMC_MPI_N_U32] = SHMC_UINT32,
    [SHMC_MPI_N_I64] = SHMC_INT64,  [SHMC_MPI_N_U64] = SHMC_UINT64,
};

/* The C library's own dtype and op for (op, num), when it has them. */
static int native(MPI_Op op, enum shmc_mpi_num num, shmc_dtype *dt, shmc_op *sop)
{
    static const shmc_op arith[] = {
        [MPI_MAX] = SHMC_MAX,   [MPI_MIN] = SHMC_MIN, [MPI_SUM] = SHMC_SUM,  [MPI_PROD] = SHMC_PROD,
        [MPI_BAND] = SHMC_BAND, [MPI_BOR] = SHMC_BOR, [MPI_BXOR] = SHMC_BXOR};
    int is_int = num >= SHMC_MPI_N_I8 && num <= SHMC_MPI_N_U64;
    int is_float = num == SHMC_MPI_N_F32 || num == SHMC_MPI_N_F64;
    int bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
    int arith_op = op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD;
    if (num == SHMC_MPI_N_BOOL && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)) {
        /* shmcomm's bool: BAND, BOR, BXOR are the logical and, or, xor */
        *dt = SHMC_BOOL;
        *sop = op == MPI_LAND ? SHMC_BAND : op == MPI_LOR ? SHMC_BOR : SHMC_BXOR;
        return 1;
    }
    if ((is_int && (arith_op || bitwise)) || (is_float && arith_op)) {
        *dt = is_int ? int_dtype[num] : num == SHMC_MPI_N_F32 ? SHMC_FLOAT32 : SHMC_FLOAT64;
        *sop = arith[op];
        return 1;
    }
    return 0;
}

static int emulate(MPI_Op op, MPI_Datatype red, shmc_op *sop)
{
    struct emu *e = &emus[op][red];
    if (!e->made) {
        e->op = op;
        e->type = red;
        int err = shmc_op_create(emulated, e, 1, &e->sop);
        if (err != SHMC_OK)
            return shmc_mpi__from_shmc(err);
        e->made = 1;
    }
    *sop = e->sop;
    return MPI_SUCCESS;
}

static int choose(MPI_Op op, MPI_Datatype type, struct shmc_mpi_red *r);

int shmc_mpi__reduction(MPI_Op op, MPI_Datatype type, struct shmc_mpi_red *r)
{
    int builtin = op >= MPI_MAX && op <= MPI_MAXLOC && type > 0 && type < SHMC_MPI_FIRST_DERIVED;
    /* known_ok's acquire pairs with the release below: the entry is written before. */
    if (builtin && __atomic_load_n(&known_ok[op][type], __ATOMIC_ACQUIRE)) {
        *r = known[op][type];
        return MPI_SUCCESS;
    }
    shmc_mpi__lock(); /* choosing may make an emulated op, shared by the process */
    int rc = choose(op, type, r);
    if (rc == MPI_SUCCESS && builtin && !known_ok[op][type]) {
        known[op][type] = *r;
        __atomic_store_n(&known_ok[op][type], 1, __ATOMIC_RELEASE);
    }
    shmc_mpi__unlock();
    return rc;
}

static int choose(MPI_Op op, MPI_Datatype type, struct shmc_mpi_red *r)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = shmc_mpi__type_usable(type, &rc);
    if (!t)
        return rc;
    *r = (struct shmc_mpi_red){SHMC_UINT8, SHMC_SUM, 1, 0};
    if (op >= FIRST_USER && op < FIRST_USER + MAX_USER && uops[op - FIRST_USER].alive) {
        /* The program's function sees elements as they lie in memory, holes and all: an
         * element is its extent's bytes, which must hold all of its data. */
        if (t->size == 0) {
            r->n = 0;
            return MPI_SUCCESS;
        }
        if (t->lb != 0 || t->true_lb < 0 || t->true_ub > t->extent || t->extent <= 0 ||
            t->extent > SHMC_DTYPE_BYTES_MAX) {
            /* The C library's opaque elements cannot hold it: MPI_Reduce and
             * MPI_Allreduce take it another way (shmc_mpi__reduce_big); the others refuse. */
            r->big = 1;
            cur_type = type;
            return MPI_SUCCESS;
        }
        r->dtype = SHMC_DTYPE_BYTES(t->extent);
        r->op = uops[op - FIRST_USER].sop;
        cur_type = type;
        return MPI_SUCCESS;
    }
    if (op < MPI_MAX || op > MPI_MAXLOC)
        return shmc_mpi__err(MPI_ERR_OP, "%d is not a reduction op%s", op,
                             op == MPI_REPLACE || op == MPI_NO_OP
                                 ? " (MPI_REPLACE and MPI_NO_OP are for one-sided calls)"
                                 : "");
    if (t->size == 0) {
        r->n = 0;
        return MPI_SUCCESS;
    }
    const struct shmc_mpi_basic *b = t->red ? shmc_mpi__basic(t->red) : NULL;
    if (!b)
        return shmc_mpi__err(MPI_ERR_TYPE, "the datatype mixes predefined types: built-in "
                                           "reduction ops need one (MPI_Op_create for others)");
    if (!ok_for(op, b->kind))
        return shmc_mpi__err(MPI_ERR_OP, "the op does not apply to %s",
                             shmc_mpi__type(t->red, &rc)->name);
    r->n = (size_t)t->red_n;
    r->packed = !t->dense;
    if (native(op, b->num, &r->dtype, &r->op))
        return MPI_SUCCESS;
    const struct shmc_mpi_type *rt = shmc_mpi__type(t->red, &rc);
    r->dtype = SHMC_DTYPE_BYTES(rt->size);
    return emulate(op, t->red, &r->op);
}

void shmc_mpi__ops_end(void)
{
    memset(known_ok, 0, sizeof known_ok);
    for (int o = 0; o <= MPI_MAXLOC; o++)
        for (int t = 0; t < SHMC_MPI_FIRST_DERIVED; t++)
            if (emus[o][t].made) {
                shmc_op_free(&emus[o][t].sop);
                emus[o][t].made = 0;
            }
    for (int i = 0; i < MAX_USER; i++)
        if (uops[i].alive) {
            shmc_op_free(&uops[i].sop);
            uops[i].alive = 0;
        }
}

/* ---- user ops -------------------------------------------------------------------------------- */

/* inout = in op inout for count elements of type t (extent esize) through u's function:
 * an int one in pieces of at most INT32_MAX elements, a large-count one at once. */
static void call_user(const struct uop *u, const void *in, void *inout, size_t count,
                      MPI_Datatype t, size_t esize)
{
    char *a = (char *)(uintptr_t)in, *b = inout;
    if (u->fn_c) {
        MPI_Count len = (MPI_Count)count;
        u->fn_c(a, b, &len, &t);
        return;
    }
    while (count > 0) {
        int len = count > INT32_MAX ? INT32_MAX : (int)count;
        MPI_Datatype ty = t;
        u->fn(a, b, &len, &ty);
        count -= (size_t)len;
        a += (size_t)len * esize;
        b += (size_t)len * esize;
    }
}

static void user_fn(const void *in, void *inout, size_t count, shmc_dtype dtype, void *ctx)
{
    /* dtype's size is the element's extent */
    call_user(ctx, in, inout, count, cur_type, shmc_dtype_size(dtype));
}

/* A nonblocking call's own op: the program's function and the call's type, for combines
 * made at any later call of the process (cur_type serves one call at a time). */
struct call_op {
    struct uop u;
    MPI_Datatype type;
};

static void call_op_fn(const void *in, void *inout, size_t count, shmc_dtype dtype, void *ctx)
{
    const struct call_op *c = ctx;
    call_user(&c->u, in, inout, count, c->type, shmc_dtype_size(dtype));
}

int shmc_mpi__is_user_op(MPI_Op op)
{
    return op >= FIRST_USER && op < FIRST_USER + MAX_USER && uops[op - FIRST_USER].alive;
}

int shmc_mpi__call_op(MPI_Op op, MPI_Datatype type, struct shmc_mpi_red *r, void **ctx)
{
    struct call_op *c = malloc(sizeof *c);
    if (!c)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a nonblocking reduction's op");
    shmc_mpi__lock();
    c->u = uops[op - FIRST_USER];
    shmc_mpi__unlock();
    c->type = type;
    int err = shmc_op_create(call_op_fn, c, c->u.commute, &r->op);
    if (err != SHMC_OK) {
        free(c);
        return shmc_mpi__from_shmc(err);
    }
    *ctx = c;
    return MPI_SUCCESS;
}

static int op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op,
                     const char *fn_name)
{
    if ((!fn && !fn_c) || !op)
        return shmc_mpi__raise(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "user_fn or op is NULL"),
                               fn_name);
    shmc_mpi__lock();
    for (int i = 0; i < MAX_USER; i++)
        if (!uops[i].alive) {
            int err = shmc_op_create(user_fn, &uops[i], commute != 0, &uops[i].sop);
            if (err == SHMC_OK) {
                uops[i].alive = 1;
                uops[i].commute = commute != 0;
                uops[i].fn = fn;
                uops[i].fn_c = fn_c;
                *op = FIRST_USER + i;
            }
            shmc_mpi__unlock();
            return err == SHMC_OK
                       ? MPI_SUCCESS
                       : shmc_mpi__raise(MPI_COMM_WORLD, shmc_mpi__from_shmc(err), fn_name);
        }
    shmc_mpi__unlock();
    return shmc_mpi__raise(MPI_COMM_WORLD,
                           shmc_mpi__err(MPI_ERR_OTHER, "more than %d user ops at once", MAX_USER),
                           fn_name);
}

int PMPI_Op_create(MPI_User_function *user_fn_, int commute, MPI_Op *op)
{
    return op_create(user_fn_, NULL, commute, op, __func__);
}
SHMC_MPI_ALIAS(Op_create);

int PMPI_Op_create_c(MPI_User_function_c *user_fn_, int commute, MPI_Op *op)
{
    return op_create(NULL, user_fn_, commute, op, __func__);
}
SHMC_MPI_ALIAS(Op_create_c);

static struct uop *user_op(MPI_Op op)
{
    if (op >= FIRST_USER && op < FIRST_USER + MAX_USER && uops[op - FIRST_USER].alive)
        return &uops[op - FIRST_USER];
    return NULL;
}

int PMPI_Op_free(MPI_Op *op)
{
    struct uop *u = op ? user_op(*op) : NULL;
    if (!u)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_OP, "not an op made by MPI_Op_create"));
    shmc_mpi__lock();
    shmc_op_free(&u->sop);
    u->alive = 0;
    shmc_mpi__unlock();
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Op_free);

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    struct uop *u = user_op(op);
    if ((!u && (op < MPI_MAX || op > MPI_NO_OP)) || !commute)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_OP, "%d is not an op, or commute is NULL", op));
    *commute = u ? u->commute : 1;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Op_commutative);

static int reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, const char *fn)
{
    struct shmc_mpi_red r;
    int rc = shmc_mpi__check_count(count);
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__reduction(op, datatype, &r);
    if (rc != MPI_SUCCESS)
        return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
    if (count == 0 || r.n == 0)
        return MPI_SUCCESS;
    size_t n = (size_t)count * r.n;
    int err;
    if (!r.packed) {
        err = shmc_reduce_local(inbuf, inoutbuf, n, r.dtype, r.op);
    } else {
        const struct shmc_mpi_type *t = shmc_mpi__type(datatype, &rc);
        struct shmc_mpi_view a, b;
        if ((rc = shmc_mpi__view_send(inbuf, (size_t)count, t, &a)) != MPI_SUCCESS)
            return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
        if ((rc = shmc_mpi__view_send(inoutbuf, (size_t)count, t, &b)) != MPI_SUCCESS) {
            shmc_mpi__view_finish(&a, 0);
            return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
        }
        err = shmc_reduce_local(a.p, b.p, n, r.dtype, r.op);
        if (err == SHMC_OK)
            shmc_mpi__unpack(b.p, b.bytes, inoutbuf, (size_t)count, t);
        shmc_mpi__view_finish(&a, 0);
        shmc_mpi__view_finish(&b, 0);
    }
    return err == SHMC_OK ? MPI_SUCCESS
                          : shmc_mpi__raise(MPI_COMM_WORLD, shmc_mpi__from_shmc(err), fn);
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return reduce_local(inbuf, inoutbuf, count, datatype, op, __func__);
}
SHMC_MPI_ALIAS(Reduce_local);

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    return reduce_local(inbuf, inoutbuf, count, datatype, op, __func__);
}
SHMC_MPI_ALIAS(Reduce_local_c);

/* ---- user ops on elements the C library cannot carry ---------------------------------- */

int shmc_mpi__reduce_big(int all, const void *sendbuf, void *recvbuf, MPI_Count count,
                         MPI_Datatype type, MPI_Op op, int root, struct shmc_mpi_comm *c)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = shmc_mpi__type_usable(type, &rc);
    struct uop *u = user_op(op);
    if (!t || !u)
        return t ? shmc_mpi__err(MPI_ERR_OP, "%d is not a user op", op) : rc;
    if (t->extent <= 0)
        return shmc_mpi__err(MPI_ERR_TYPE, "a user op needs a datatype of positive extent");
    MPI_Aint lo; /* count elements' data: span bytes from lo (each element's true_lb) */
    size_t span = shmc_mpi__type_span(t, (size_t)count, &lo);
    int n = c->size, me = c->rank, at = all ? 0 : root;
    const char *mine = (const char *)(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
    char *got = me == at ? malloc(span * (size_t)n + 1) : NULL;
    char *packed = malloc((size_t)count * (size_t)t->size + 1);
    if ((me == at && !got) || !packed) {
        /* Out before the gather, which it cannot take part in: the members began the call,
         * and the caller's raise of MPI_ERR_NO_MEM on a collective makes this rank leave
         * the communicator's collectives (coll.c, shmc_mpi__call_rc), ending theirs. */
        free(got);
        free(packed);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "%zu bytes for a user op's elements", span);
    }
    int err = shmc_gather(mine + lo, got, span, SHMC_UINT8, at, c->c) != SHMC_OK
                  ? SHMC_ERR_PEER_DEAD
                  : SHMC_OK;
    if (err == SHMC_OK && me == at && span) {
        /* x0 op (x1 op (... op x(n-1))): the function makes inout = in op inout */
        char *acc = got + (size_t)(n - 1) * span - lo;
        for (int i = n - 2; i >= 0; i--)
            call_user(u, got + (size_t)i * span - lo, acc, (size_t)count, type, (size_t)t->extent);
        shmc_mpi__pack(acc, (size_t)count, t, packed);
    }
    size_t bytes = (size_t)count * (size_t)t->size;
    if (all && bytes) {
        int e = shmc_broadcast(packed, bytes, SHMC_UINT8, at, c->c);
        if (err == SHMC_OK)
            err = e;
    }
    if (err == SHMC_OK && (all || me == root) && bytes)
        shmc_mpi__unpack(packed, bytes, recvbuf, (size_t)count, t);
    free(got);
    free(packed);
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__from_shmc(err);
}
