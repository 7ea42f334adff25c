/*
 * Datatypes: the predefined types and the derived ones a program builds, each flattened
 * at construction into its type map's runs of bytes (struct shmc_mpi_seg), so that packing
 * is a walk over runs and a type made of one run is "dense": its memory is already what
 * the C library moves. Handles 1 .. 63 are predefined, derived ones start at 64.
 */
#include "mpi_impl.h"

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define FIRST_DERIVED SHMC_MPI_FIRST_DERIVED
struct shmc_mpi_table shmc_mpi__types = SHMC_MPI_TABLE_INIT;
static int started;

#define PAIR(v, i)                                                                                 \
    struct {                                                                                       \
        v val;                                                                                     \
        i idx;                                                                                     \
    }

struct predefined {
    MPI_Datatype h;
    const char *name;
    size_t size;
    struct shmc_mpi_basic basic;
    size_t isize, ioff, extent; /* pair types: the index's size and offset, the extent */
    size_t align;
};

#define K(k) SHMC_MPI_K_##k
#define N(n) SHMC_MPI_N_##n
#define ONE(h, t, k, n)                                                                            \
    {                                                                                              \
        h, #h, sizeof(t), {K(k), N(n), N(NONE)}, 0, 0, 0, _Alignof(t)                              \
    }
/* One handle with two names in mpi.h: named by the first MPI gave it (as MPICH names it). */
#define ONE_AS(h, name, t, k, n)                                                                   \
    {                                                                                              \
        h, name, sizeof(t), {K(k), N(n), N(NONE)}, 0, 0, 0, _Alignof(t)                            \
    }
#define TWO(h, v, i, vn, in_)                                                                      \
    {                                                                                              \
        h, #h, sizeof(v), {K(PAIR), N(vn), N(in_)}, sizeof(i), offsetof(PAIR(v, i), idx),          \
            sizeof(PAIR(v, i)), _Alignof(PAIR(v, i))                                               \
    }

static const struct predefined table[] = {
    ONE(MPI_CHAR, char, CINT, I8),
    ONE(MPI_SIGNED_CHAR, signed char, CINT, I8),
    ONE(MPI_UNSIGNED_CHAR, unsigned char, CINT, U8),
    ONE(MPI_BYTE, unsigned char, BYTE, U8),
    ONE(MPI_WCHAR, wchar_t, NONE, NONE),
    ONE(MPI_SHORT, short, CINT, I16),
    ONE(MPI_UNSIGNED_SHORT, unsigned short, CINT, U16),
    ONE(MPI_INT, int, CINT, I32),
    ONE(MPI_UNSIGNED, unsigned, CINT, U32),
    ONE(MPI_LONG, long, CINT, I64),
    ONE(MPI_UNSIGNED_LONG, unsigned long, CINT, U64),
    ONE(MPI_LONG_LONG_INT, long long, CINT, I64),
    ONE(MPI_UNSIGNED_LONG_LONG, unsigned long long, CINT, U64),
    ONE(MPI_FLOAT, float, FLOAT, F32),
    ONE(MPI_DOUBLE, double, FLOAT, F64),
    ONE(MPI_LONG_DOUBLE, long double, FLOAT, LD),
    ONE(MPI_INT8_T, int8_t, CINT, I8),
    ONE(MPI_INT16_T, int16_t, CINT, I16),
    ONE(MPI_INT32_T, int32_t, CINT, I32),
    ONE(MPI_INT64_T, int64_t, CINT, I64),
    ONE(MPI_UINT8_T, uint8_t, CINT, U8),
    ONE(MPI_UINT16_T, uint16_t, CINT, U16),
    ONE(MPI_UINT32_T, uint32_t, CINT, U32),
    ONE(MPI_UINT64_T, uint64_t, CINT, U64),
    ONE(MPI_C_BOOL, _Bool, LOGICAL, BOOL),
    ONE(MPI_AINT, MPI_Aint, CINT, I64),
    ONE(MPI_OFFSET, MPI_Offset, CINT, I64),
    ONE(MPI_COUNT, MPI_Count, CINT, I64),
    ONE(MPI_PACKED, unsigned char, NONE, NONE),
    TWO(MPI_FLOAT_INT, float, int, F32, I32),
    TWO(MPI_DOUBLE_INT, double, int, F64, I32),
    TWO(MPI_LONG_INT, long, int, I64, I32),
    TWO(MPI_2INT, int, int, I32, I32),
    TWO(MPI_SHORT_INT, short, int, I16, I32),
    TWO(MPI_LONG_DOUBLE_INT, long double, int, LD, I32),
    ONE_AS(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", float _Complex, COMPLEX, CF),
    ONE(MPI_C_DOUBLE_COMPLEX, double _Complex, COMPLEX, CD),
    ONE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, COMPLEX, CLD),
    ONE(MPI_CHARACTER, char, NONE, NONE),
    ONE(MPI_INTEGER, int, FINT, I32),
    ONE(MPI_REAL, float, FLOAT, F32),
    ONE(MPI_DOUBLE_PRECISION, double, FLOAT, F64),
    ONE(MPI_LOGICAL, int, LOGICAL, I32),
    ONE(MPI_COMPLEX, float _Complex, COMPLEX, CF),
    ONE(MPI_DOUBLE_COMPLEX, double _Complex, COMPLEX, CD),
    TWO(MPI_2INTEGER, int, int, I32, I32),
    TWO(MPI_2REAL, float, float, F32, F32),
    TWO(MPI_2DOUBLE_PRECISION, double, double, F64, F64),
    ONE(MPI_INTEGER1, int8_t, FINT, I8),
    ONE(MPI_INTEGER2, int16_t, FINT, I16),
    ONE(MPI_INTEGER4, int32_t, FINT, I32),
    ONE(MPI_INTEGER8, int64_t, FINT, I64),
    ONE(MPI_REAL4, float, FLOAT, F32),
    ONE(MPI_REAL8, double, FLOAT, F64),
    ONE(MPI_CXX_BOOL, _Bool, LOGICAL, BOOL), /* C++'s bool: one byte, as _Bool */
    ONE(MPI_CXX_FLOAT_COMPLEX, float _Complex, COMPLEX, CF),
    ONE(MPI_CXX_DOUBLE_COMPLEX, double _Complex, COMPLEX, CD),
    ONE(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, COMPLEX, CLD),
    ONE(MPI_COMPLEX8, float _Complex, COMPLEX, CF),
    ONE(MPI_COMPLEX16, double _Complex, COMPLEX, CD),
};
#define NPREDEF ((int)(sizeof table / sizeof table[0]))

static struct shmc_mpi_basic basics[FIRST_DERIVED];
static int basic_ok[FIRST_DERIVED];

const struct shmc_mpi_basic *shmc_mpi__basic(MPI_Datatype h)
{
    return h > 0 && h < FIRST_DERIVED && basic_ok[h] ? &basics[h] : NULL;
}

/* ---- building type maps --------------------------------------------------------------- */

struct build {
    struct shmc_mpi_seg *seg;
    int n, cap;
    int failed; /* 1: out of memory; TOO_MANY: past MAX_RUNS */
};
/* The most runs a flattened type map holds (24 bytes each: 384 MiB); a type of more
 * separate runs (MPI_Type_vector of 2^30 blocks) is refused, not built for minutes. */
#define MAX_RUNS (1 << 24)
#define TOO_MANY 2

static void append(struct build *b, MPI_Aint disp, MPI_Aint len, MPI_Aint esize)
{
    if (len == 0 || b->failed)
        return;
    if (b->n > 0) {
        struct shmc_mpi_seg *last = &b->seg[b->n - 1];
        if (last->disp + last->len == disp && last->esize == esize) {
            last->len += len;
            return;
        }
    }
    if (b->n == b->cap) {
        if (b->cap >= MAX_RUNS) {
            b->failed = TOO_MANY;
            return;
        }
        int cap = b->cap ? 2 * b->cap : 4;
        struct shmc_mpi_seg *s = cap > b->cap ? realloc(b->seg, (size_t)cap * sizeof *s) : NULL;
        if (!s) {
            b->failed = 1;
            return;
        }
        b->seg = s;
        b->cap = cap;
    }
    b->seg[b->n++] = (struct shmc_mpi_seg){disp, len, esize};
}

/* A signature being built: runs of one predefined type, adjacent runs of one type merged. */
struct sigb {
    struct shmc_mpi_sig *sig;
    int n, cap;
    int failed;
};

static void sig_append(struct sigb *b, MPI_Datatype basic, MPI_Count n)
{
    if (n == 0 || b->failed)
        return;
    if (b->n > 0 && b->sig[b->n - 1].basic == basic) {
        b->sig[b->n - 1].n += n;
        return;
    }
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 4;
        struct shmc_mpi_sig *x = cap > b->cap ? realloc(b->sig, (size_t)cap * sizeof *x) : NULL;
        if (!x) {
            b->failed = 1;
            return;
        }
        b->sig = x;
        b->cap = cap;
    }
    b->sig[b->n++] = (struct shmc_mpi_sig){basic, n};
}

/* Appends n elements of type o to a signature. */
static void sig_of(struct sigb *b, const struct shmc_mpi_type *o, MPI_Count n)
{
    if (o->red) {
        sig_append(b, o->red, n * o->red_n);
        return;
    }
    for (MPI_Count j = 0; j < n && !b->failed; j++)
        for (int s = 0; s < o->nsig; s++)
            sig_append(b, o->sig[s].basic, o->sig[s].n);
}

static void set_dense(struct shmc_mpi_type *t)
{
    MPI_Aint at = 0;
    for (int i = 0; i < t->nseg; i++) {
        if (t->seg[i].disp != at)
            break;
        at += t->seg[i].len;
    }
    t->dense = t->lb == 0 && t->size == t->extent && at == t->size;
}

static void set_true_bounds(struct shmc_mpi_type *t)
{
    t->true_lb = t->true_ub = 0;
    for (int i = 0; i < t->nseg; i++) {
        MPI_Aint lo = t->seg[i].disp, hi = lo + t->seg[i].len;
        if (i == 0 || lo < t->true_lb)
            t->true_lb = lo;
        if (i == 0 || hi > t->true_ub)
            t->true_ub = hi;
    }
}

static int put(struct shmc_mpi_type *t, MPI_Datatype *out)
{
    int h = shmc_mpi__table_put(&shmc_mpi__types, FIRST_DERIVED, t);
    if (h < 0)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "the datatype table");
    t->refs = 1;
    t->decode = NULL;
    *out = h;
    return MPI_SUCCESS;
}

size_t shmc_mpi__type_span(const struct shmc_mpi_type *t, size_t count, MPI_Aint *lo)
{
    MPI_Aint step = count ? (MPI_Aint)(count - 1) * t->extent : 0;
    *lo = t->true_lb + (step < 0 ? step : 0);
    return count ? (size_t)(t->true_ub - t->true_lb + (step < 0 ? -step : step)) : 0;
}

int shmc_mpi__type_handle(struct shmc_mpi_type *t, MPI_Datatype *out)
{
    int h = shmc_mpi__table_put(&shmc_mpi__types, FIRST_DERIVED, t);
    if (h < 0)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "the datatype table");
    __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
    *out = h;
    return MPI_SUCCESS;
}

void shmc_mpi__type_unref(struct shmc_mpi_type *t)
{
    if (t->predefined || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    shmc_mpi__type_forget(t);
    shmc_mpi__attr_drop(&t->attrs);
    free(t->seg);
    free(t->sig);
    free(t);
}

/* Makes the predefined types, once (under the lock: the first lookups of several threads
 * may race here). Each is filled in before its handle is published. */
static int start(void)
{
    shmc_mpi__lock();
    for (int i = 0; i < NPREDEF && !started; i++) {
        const struct predefined *p = &table[i];
        if (shmc_mpi__table_get(&shmc_mpi__types, p->h))
            continue; /* made by a start that failed part-way */
        struct shmc_mpi_type *t = calloc(1, sizeof *t);
        struct build b = {0};
        append(&b, 0, (MPI_Aint)p->size, (MPI_Aint)p->size);
        if (p->isize)
            append(&b, (MPI_Aint)p->ioff, (MPI_Aint)p->isize, (MPI_Aint)p->isize);
        if (!t || b.failed) {
            free(t);
            free(b.seg);
            shmc_mpi__unlock();
            return shmc_mpi__err(MPI_ERR_NO_MEM, "the predefined datatypes");
        }
        t->alive = t->committed = t->predefined = 1;
        t->size = (MPI_Count)(p->size + p->isize);
        t->extent = (MPI_Aint)(p->isize ? p->extent : p->size);
        t->align = (MPI_Aint)p->align;
        t->seg = b.seg;
        t->nseg = b.n;
        t->red = p->h;
        t->red_n = 1;
        t->combiner = MPI_COMBINER_NAMED;
        snprintf(t->name, sizeof t->name, "%s", p->name);
        set_true_bounds(t);
        set_dense(t);
        basics[p->h] = p->basic;
        basic_ok[p->h] = 1;
        /* the predefined handles are below every derived one: p->h is free */
        if (shmc_mpi__table_put(&shmc_mpi__types, p->h, t) != p->h) {
            free(b.seg);
            free(t);
            shmc_mpi__unlock();
            return shmc_mpi__err(MPI_ERR_NO_MEM, "the predefined datatypes");
        }
    }
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    shmc_mpi__unlock();
    return MPI_SUCCESS;
}

struct shmc_mpi_type *shmc_mpi__type_slow(MPI_Datatype h, int *rc)
{
    if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE) && (*rc = start()) != MPI_SUCCESS)
        return NULL;
    struct shmc_mpi_type *t = shmc_mpi__table_get(&shmc_mpi__types, h);
    if (t)
        return t;
    if (h == MPI_UB || h == MPI_LB)
        *rc = shmc_mpi__err(MPI_ERR_TYPE, "MPI_UB and MPI_LB are bound markers for "
                                          "MPI_Type_create_struct alone (MPI-1; removed in MPI 3: "
                                          "use MPI_Type_create_resized)");
    else
        *rc = shmc_mpi__err(MPI_ERR_TYPE, "%d is not a datatype%s", h,
                            h == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
    return NULL;
}

struct shmc_mpi_type *shmc_mpi__type_usable(MPI_Datatype h, int *rc)
{
    struct shmc_mpi_type *t = shmc_mpi__type(h, rc);
    if (t && !t->committed) {
        *rc = shmc_mpi__err(MPI_ERR_TYPE, "datatype %d was not committed (MPI_Type_commit)", h);
        return NULL;
    }
    return t;
}

int shmc_mpi__type_attrs_end(void)
{
    for (int h = 1; h < shmc_mpi__types.cap; h++) {
        struct shmc_mpi_type *t = shmc_mpi__table_get(&shmc_mpi__types, h);
        int rc = t ? shmc_mpi__attr_clear(h, &t->attrs) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void shmc_mpi__type_end(void)
{
    for (int h = 1; h < FIRST_DERIVED && h < shmc_mpi__types.cap; h++)
        if (shmc_mpi__table_get(&shmc_mpi__types, h))
            shmc_mpi__attr_drop(
                &((struct shmc_mpi_type *)shmc_mpi__table_get(&shmc_mpi__types, h))->attrs);
    for (int h = FIRST_DERIVED; h < shmc_mpi__types.cap; h++) {
        struct shmc_mpi_type *t = shmc_mpi__table_get(&shmc_mpi__types, h);
        if (t) {
            shmc_mpi__table_set(&shmc_mpi__types, h, NULL);
            shmc_mpi__type_unref(t);
        }
    }
}

/* ---- constructors --------------------------------------------------------------------- */

/* The bounds of a type being built: of its data, and of its markers (MPI_LB and MPI_UB
 * blocks, or component types whose bounds were set), which win where there are any. */
struct bounds {
    int any, lb_set, ub_set;
    MPI_Aint lb, ub, mlb, mub, align;
};

static void bound(struct bounds *k, MPI_Aint lo, MPI_Aint hi, int lb_marker, int ub_marker)
{
    if (!k->any || lo < k->lb)
        k->lb = lo;
    if (!k->any || hi > k->ub)
        k->ub = hi;
    k->any = 1;
    if (lb_marker && (!k->lb_set || lo < k->mlb))
        k->mlb = lo;
    if (ub_marker && (!k->ub_set || hi > k->mub))
        k->mub = hi;
    k->lb_set |= lb_marker;
    k->ub_set |= ub_marker;
}

/* Sets t's bounds: the markers' where set; otherwise the data's, a struct's extent padded
 * to its strictest alignment as C pads a struct (what MPICH and Open MPI do). */
static void set_bounds(struct shmc_mpi_type *t, const struct bounds *k, int combiner)
{
    MPI_Aint lb = k->lb_set ? k->mlb : k->lb, ub = k->ub_set ? k->mub : k->ub;
    if (combiner == MPI_COMBINER_STRUCT && !k->ub_set && k->align > 1 && (ub - lb) % k->align)
        ub += k->align - (ub - lb) % k->align;
    t->lb = lb;
    t->extent = ub - lb;
    t->lb_set = k->lb_set;
    t->ub_set = k->ub_set;
    t->align = k->align ? k->align : 1;
}

/* Builds the type of n blocks: block i is len[i] consecutive elements of tys[i] (of
 * tys[0] when one_type) at byte displacement disp[i]. A struct's block of MPI_LB or
 * MPI_UB is the MPI-1 bound marker. */
static int too_many(void)
{
    return shmc_mpi__err(MPI_ERR_UNSUPPORTED_OPERATION,
                         "the type's map has more than %d separate runs of bytes, which "
                         "shmcomm keeps flat (docs/mpi.md, Limits)",
                         MAX_RUNS);
}

static int build_type(MPI_Count n, struct shmc_mpi_arr len, struct shmc_mpi_arr disp,
                      const MPI_Datatype *tys, int one_type, int combiner, MPI_Datatype *out)
{
    int rc = MPI_SUCCESS;
    if (n < 0)
        return shmc_mpi__err(MPI_ERR_COUNT, "count %lld is negative", n);
    if (!out)
        return shmc_mpi__err(MPI_ERR_ARG, "newtype is NULL");
    if (n > 0 && (!len.p || !disp.p || !tys))
        return shmc_mpi__err(MPI_ERR_ARG, "an array argument is NULL");
    if (n > MAX_RUNS)
        return too_many();
    struct shmc_mpi_type *t = calloc(1, sizeof *t);
    if (!t)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a datatype");
    struct build b = {0};
    struct sigb g = {0};
    struct bounds k = {0};
    MPI_Datatype red = 0;
    int mixed = 0;
    for (int i = 0; i < (int)n && rc == MPI_SUCCESS; i++) {
        MPI_Datatype ty = tys[one_type ? 0 : i];
        int marker = combiner == MPI_COMBINER_STRUCT && (ty == MPI_LB || ty == MPI_UB);
        const struct shmc_mpi_type *o = marker ? NULL : shmc_mpi__type(ty, &rc);
        if (!o && !marker)
            break;
        MPI_Count li = shmc_mpi__at(len, i);
        MPI_Aint di = (MPI_Aint)shmc_mpi__at(disp, i);
        if (li < 0) {
            rc = shmc_mpi__err(MPI_ERR_ARG, "block length %lld is negative", li);
            break;
        }
        if (li == 0)
            continue;
        if (marker) {
            bound(&k, di, di, ty == MPI_LB, ty == MPI_UB);
            continue;
        }
        MPI_Aint first = di, last = di + (MPI_Aint)(li - 1) * o->extent;
        MPI_Aint lo = (first < last ? first : last) + o->lb;
        MPI_Aint hi = (first < last ? last : first) + o->lb + o->extent;
        bound(&k, lo, hi, o->lb_set, o->ub_set);
        if (o->align > k.align)
            k.align = o->align;
        if (o->dense && o->nseg == 1) /* li of them touch: one run, appended at once */
            append(&b, di, (MPI_Aint)li * o->extent, o->seg[0].esize);
        else if (li > MAX_RUNS)
            b.failed = TOO_MANY;
        else
            for (MPI_Count j = 0; j < li && !b.failed; j++)
                for (int s = 0; s < o->nseg; s++)
                    append(&b, di + (MPI_Aint)j * o->extent + o->seg[s].disp, o->seg[s].len,
                           o->seg[s].esize);
        t->size += li * o->size;
        if (o->size > 0)
            sig_of(&g, o, li);
        if (o->size > 0) {
            if (!red || red == o->red)
                red = o->red;
            else
                mixed = 1;
            if (!o->red)
                mixed = 1;
            t->red_n += li * o->red_n;
        }
    }
    if (rc == MPI_SUCCESS && b.failed == TOO_MANY)
        rc = too_many();
    else if (rc == MPI_SUCCESS && (b.failed || g.failed))
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a datatype's type map");
    if (rc == MPI_SUCCESS)
        rc = put(t, out);
    if (rc != MPI_SUCCESS) {
        free(b.seg);
        free(g.sig);
        free(t);
        return rc;
    }
    t->alive = 1;
    set_bounds(t, &k, combiner);
    t->seg = b.seg;
    t->nseg = b.n;
    t->red = mixed ? 0 : red;
    if (mixed) {
        t->red_n = 0;
        t->sig = g.sig;
        t->nsig = g.n;
    } else {
        free(g.sig);
    }
    t->combiner = combiner;
    set_true_bounds(t);
    set_dense(t);
    return MPI_SUCCESS;
}

/* The constructors whose blocks are one type: block i holds lens[i] elements (blen each
 * when lens has no array) at bytes[i] bytes, or elems[i] extents of oldtype, or (when
 * neither has an array) i * stride bytes. */
static int blocks(MPI_Count count, struct shmc_mpi_arr lens, MPI_Count blen,
                  struct shmc_mpi_arr bytes, struct shmc_mpi_arr elems, MPI_Aint stride,
                  MPI_Datatype oldtype, int combiner, MPI_Datatype *newtype)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *o = shmc_mpi__type(oldtype, &rc);
    if (!o)
        return rc;
    if (count < 0)
        return shmc_mpi__err(MPI_ERR_COUNT, "count %lld is negative", count);
    if (!lens.p && blen < 0)
        return shmc_mpi__err(MPI_ERR_ARG, "blocklength %lld is negative", blen);
    int by_array = combiner == MPI_COMBINER_INDEXED || combiner == MPI_COMBINER_INDEXED_BLOCK ||
                   combiner == MPI_COMBINER_HINDEXED || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    if (count > 0 && by_array && !bytes.p && !elems.p)
        return shmc_mpi__err(MPI_ERR_ARG, "array_of_displacements is NULL");
    /* More blocks than a map may hold runs, unless they are one run (a vector of dense
     * blocks that touch): refused before any of it is built. */
    int touching = !by_array && o->dense && stride == (MPI_Aint)blen * o->extent;
    if (count > MAX_RUNS && !touching)
        return too_many();
    /* Touching dense blocks are one block of them all: the same map and bounds, built
     * without a per-block array (MPI_Type_contiguous(INT_MAX, MPI_CHAR)). */
    MPI_Count all;
    if (touching && count > 1 && !__builtin_mul_overflow(count, blen, &all)) {
        MPI_Aint zero = 0;
        return build_type(1, shmc_mpi__counts(&all), shmc_mpi__aints(&zero), &oldtype, 1, combiner,
                          newtype);
    }
    size_t n = count > 0 ? (size_t)count : 1;
    MPI_Count *l = malloc(n * sizeof *l);
    MPI_Aint *d = malloc(n * sizeof *d);
    if (!l || !d) {
        free(l);
        free(d);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a datatype of %lld blocks", count);
    }
    for (int i = 0; i < (int)count; i++) {
        l[i] = lens.p ? shmc_mpi__at(lens, i) : blen;
        d[i] = bytes.p   ? (MPI_Aint)shmc_mpi__at(bytes, i)
               : elems.p ? (MPI_Aint)shmc_mpi__at(elems, i) * o->extent
                         : (MPI_Aint)i * stride;
    }
    rc = build_type(count, shmc_mpi__counts(l), shmc_mpi__aints(d), &oldtype, 1, combiner, newtype);
    free(l);
    free(d);
    return rc;
}

/* No array (blocks() takes its blen or stride instead). */
static const struct shmc_mpi_arr none = {NULL, SHMC_MPI_INTS};

/* Records how *newtype was made (typedecode.c), its integers given as up to three runs
 * and its large counts (a "_c" constructor's) as up to three more; on failure the type
 * goes again and the error is returned. */
struct runs {
    MPI_Count n[3];
    const void *p[3];
};
static int rec_all(int rc, MPI_Datatype *newtype, int combiner, struct runs ii, int na,
                   const MPI_Aint *aa, struct runs cc, int nt, const MPI_Datatype *tt)
{
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count ni = ii.n[0] + ii.n[1] + ii.n[2], nc = cc.n[0] + cc.n[1] + cc.n[2];
    int *ints = malloc((size_t)(ni ? ni : 1) * sizeof *ints);
    MPI_Count *counts = malloc((size_t)(nc ? nc : 1) * sizeof *counts);
    if (!ints || !counts) {
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a datatype's decoding");
    } else {
        for (int r = 0, at = 0; r < 3; at += (int)ii.n[r++])
            if (ii.n[r])
                memcpy(ints + at, ii.p[r], (size_t)ii.n[r] * sizeof *ints);
        for (MPI_Count r = 0, at = 0; r < 3; at += cc.n[r++])
            if (cc.n[r])
                memcpy(counts + at, cc.p[r], (size_t)cc.n[r] * sizeof *counts);
        rc = shmc_mpi__type_record(*newtype, combiner, (int)ni, ints, na, aa, nc, counts, nt, tt);
    }
    free(ints);
    free(counts);
    if (rc != MPI_SUCCESS)
        PMPI_Type_free(newtype);
    return rc;
}

static const struct runs no_runs = {{0, 0, 0}, {NULL, NULL, NULL}};

static int rec(int rc, MPI_Datatype *newtype, int combiner, int n1, const int *a1, int n2,
               const int *a2, int n3, const int *a3, int na, const MPI_Aint *aa, int nt,
               const MPI_Datatype *tt)
{
    struct runs ii = {{n1, n2, n3}, {a1, a2, a3}};
    return rec_all(rc, newtype, combiner, ii, na, aa, no_runs, nt, tt);
}

/* A "_c" constructor's record: its large counts as up to three runs. */
static int rec_c(int rc, MPI_Datatype *newtype, int combiner, MPI_Count n1, const MPI_Count *c1,
                 MPI_Count n2, const MPI_Count *c2, MPI_Count n3, const MPI_Count *c3, int nt,
                 const MPI_Datatype *tt)
{
    struct runs cc = {{n1, n2, n3}, {c1, c2, c3}};
    return rec_all(rc, newtype, combiner, no_runs, 0, NULL, cc, nt, tt);
}

#define TYPE_RETURN(rc)                                                                            \
    return (rc) == MPI_SUCCESS ? MPI_SUCCESS : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc)

static int contiguous(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return count < 0
               ? shmc_mpi__err(MPI_ERR_COUNT, "count %lld is negative", count)
               : blocks(1, none, count, none, none, 0, oldtype, MPI_COMBINER_CONTIGUOUS, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = contiguous(count, oldtype, newtype);
    rc = rec(rc, newtype, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 0, NULL, 0, NULL, 1,
             &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_contiguous);

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = contiguous(count, oldtype, newtype);
    rc = rec_c(rc, newtype, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_contiguous_c);

static int vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                  MPI_Datatype *newtype)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *o = shmc_mpi__type(oldtype, &rc);
    return o ? blocks(count, none, blocklength, none, none, (MPI_Aint)stride * o->extent, oldtype,
                      MPI_COMBINER_VECTOR, newtype)
             : rc;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    int rc = vector(count, blocklength, stride, oldtype, newtype);
    const int v[3] = {count, blocklength, stride};
    rc = rec(rc, newtype, MPI_COMBINER_VECTOR, 3, v, 0, NULL, 0, NULL, 0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_vector);

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = vector(count, blocklength, stride, oldtype, newtype);
    const MPI_Count v[3] = {count, blocklength, stride};
    rc = rec_c(rc, newtype, MPI_COMBINER_VECTOR, 3, v, 0, NULL, 0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_vector_c);

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    int rc = blocks(count, none, blocklength, none, none, stride, oldtype, MPI_COMBINER_HVECTOR,
                    newtype);
    const int v[2] = {count, blocklength};
    rc = rec(rc, newtype, MPI_COMBINER_HVECTOR, 2, v, 0, NULL, 0, NULL, 1, &stride, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_hvector);

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = blocks(count, none, blocklength, none, none, (MPI_Aint)stride, oldtype,
                    MPI_COMBINER_HVECTOR, newtype);
    const MPI_Count v[3] = {count, blocklength, stride};
    rc = rec_c(rc, newtype, MPI_COMBINER_HVECTOR, 3, v, 0, NULL, 0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_hvector_c);

/* The indexed constructors: lengths per block (or blen each), displacements in extents
 * of oldtype (elems) or in bytes (bytes). */
static int indexed(MPI_Count count, struct shmc_mpi_arr lens, MPI_Count blen,
                   struct shmc_mpi_arr bytes, struct shmc_mpi_arr elems, MPI_Datatype oldtype,
                   int combiner, MPI_Datatype *newtype)
{
    int by_length = combiner == MPI_COMBINER_INDEXED || combiner == MPI_COMBINER_HINDEXED;
    if (count > 0 && by_length && !lens.p)
        return shmc_mpi__err(MPI_ERR_ARG, "array_of_blocklengths is NULL");
    return blocks(count, lens, blen, bytes, elems, 0, oldtype, combiner, newtype);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    int rc =
        indexed(count, shmc_mpi__ints(array_of_blocklengths), 0, none,
                shmc_mpi__ints(array_of_displacements), oldtype, MPI_COMBINER_INDEXED, newtype);
    rc = rec(rc, newtype, MPI_COMBINER_INDEXED, 1, &count, count, array_of_blocklengths, count,
             array_of_displacements, 0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_indexed);

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    int rc =
        indexed(count, shmc_mpi__counts(array_of_blocklengths), 0, none,
                shmc_mpi__counts(array_of_displacements), oldtype, MPI_COMBINER_INDEXED, newtype);
    rc = rec_c(rc, newtype, MPI_COMBINER_INDEXED, 1, &count, count, array_of_blocklengths, count,
               array_of_displacements, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_indexed_c);

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    int rc = indexed(count, shmc_mpi__ints(array_of_blocklengths), 0,
                     shmc_mpi__aints(array_of_displacements), none, oldtype, MPI_COMBINER_HINDEXED,
                     newtype);
    rc = rec(rc, newtype, MPI_COMBINER_HINDEXED, 1, &count, count, array_of_blocklengths, 0, NULL,
             count, array_of_displacements, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_hindexed);

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    int rc = indexed(count, shmc_mpi__counts(array_of_blocklengths), 0,
                     shmc_mpi__counts(array_of_displacements), none, oldtype, MPI_COMBINER_HINDEXED,
                     newtype);
    rc = rec_c(rc, newtype, MPI_COMBINER_HINDEXED, 1, &count, count, array_of_blocklengths, count,
               array_of_displacements, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_hindexed_c);

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = indexed(count, none, blocklength, none, shmc_mpi__ints(array_of_displacements),
                     oldtype, MPI_COMBINER_INDEXED_BLOCK, newtype);
    const int v[2] = {count, blocklength};
    rc = rec(rc, newtype, MPI_COMBINER_INDEXED_BLOCK, 2, v, count, array_of_displacements, 0, NULL,
             0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_indexed_block);

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    int rc = indexed(count, none, blocklength, none, shmc_mpi__counts(array_of_displacements),
                     oldtype, MPI_COMBINER_INDEXED_BLOCK, newtype);
    const MPI_Count v[2] = {count, blocklength};
    rc = rec_c(rc, newtype, MPI_COMBINER_INDEXED_BLOCK, 2, v, count, array_of_displacements, 0,
               NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_indexed_block_c);

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    int rc = indexed(count, none, blocklength, shmc_mpi__aints(array_of_displacements), none,
                     oldtype, MPI_COMBINER_HINDEXED_BLOCK, newtype);
    const int v[2] = {count, blocklength};
    rc = rec(rc, newtype, MPI_COMBINER_HINDEXED_BLOCK, 2, v, 0, NULL, 0, NULL, count,
             array_of_displacements, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_hindexed_block);

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = indexed(count, none, blocklength, shmc_mpi__counts(array_of_displacements), none,
                     oldtype, MPI_COMBINER_HINDEXED_BLOCK, newtype);
    const MPI_Count v[2] = {count, blocklength};
    rc = rec_c(rc, newtype, MPI_COMBINER_HINDEXED_BLOCK, 2, v, count, array_of_displacements, 0,
               NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_hindexed_block_c);

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int rc = build_type(count, shmc_mpi__ints(array_of_blocklengths),
                        shmc_mpi__aints(array_of_displacements), array_of_types, 0,
                        MPI_COMBINER_STRUCT, newtype);
    rc = rec(rc, newtype, MPI_COMBINER_STRUCT, 1, &count, count, array_of_blocklengths, 0, NULL,
             count, array_of_displacements, count, array_of_types);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_struct);

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int rc = build_type(count, shmc_mpi__counts(array_of_blocklengths),
                        shmc_mpi__counts(array_of_displacements), array_of_types, 0,
                        MPI_COMBINER_STRUCT, newtype);
    rc = rec_c(rc, newtype, MPI_COMBINER_STRUCT, 1, &count, count, array_of_blocklengths, count,
               array_of_displacements, (int)count, array_of_types);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_struct_c);

/* A subarray is built as MPICH builds it: a contiguous row, one hvector per further
 * dimension, the block moved to its start, the whole resized to the full array. The type
 * is made without its record (the callers record their own arguments). */
static int subarray(int ndims, struct shmc_mpi_arr sizes, struct shmc_mpi_arr subsizes,
                    struct shmc_mpi_arr starts, int order, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *o = shmc_mpi__type(oldtype, &rc);
    if (o && (ndims <= 0 || !sizes.p || !subsizes.p || !starts.p || !newtype))
        rc = shmc_mpi__err(MPI_ERR_ARG, "ndims %d is not positive or an array is NULL", ndims);
    if (rc == MPI_SUCCESS && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        rc = shmc_mpi__err(MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
                           order);
    for (int i = 0; rc == MPI_SUCCESS && i < ndims; i++) {
        MPI_Count z = shmc_mpi__at(sizes, i), sub = shmc_mpi__at(subsizes, i),
                  at = shmc_mpi__at(starts, i);
        if (z <= 0 || sub <= 0 || sub > z || at < 0 || at > z - sub)
            rc = shmc_mpi__err(MPI_ERR_ARG, "dimension %d: size %lld, subsize %lld, start %lld", i,
                               z, sub, at);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint stride = o->extent, disp = 0;
    MPI_Datatype t = MPI_DATATYPE_NULL, next;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int i = order == MPI_ORDER_C ? ndims - 1 - k : k; /* fastest dimension first */
        if (k == 0)
            rc = PMPI_Type_contiguous_c(shmc_mpi__at(subsizes, i), oldtype, &next);
        else
            rc = PMPI_Type_create_hvector_c(shmc_mpi__at(subsizes, i), 1, stride, t, &next);
        disp += (MPI_Aint)shmc_mpi__at(starts, i) * stride;
        stride *= (MPI_Aint)shmc_mpi__at(sizes, i);
        if (k > 0)
            PMPI_Type_free(&t);
        t = next;
    }
    MPI_Count one = 1, at = disp;
    MPI_Datatype placed = MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_hindexed_c(1, &one, &at, t, &placed);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_resized(placed, 0, stride, newtype);
    if (t != MPI_DATATYPE_NULL)
        PMPI_Type_free(&t);
    if (placed != MPI_DATATYPE_NULL)
        PMPI_Type_free(&placed);
    if (rc == MPI_SUCCESS) /* the resize's record, replaced by the caller's */
        shmc_mpi__type_forget(shmc_mpi__table_get(&shmc_mpi__types, *newtype));
    return rc;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    int rc = subarray(ndims, shmc_mpi__ints(array_of_sizes), shmc_mpi__ints(array_of_subsizes),
                      shmc_mpi__ints(array_of_starts), order, oldtype, newtype);
    int head[1] = {ndims}, tail[1] = {order};
    int *dims = rc == MPI_SUCCESS ? malloc((size_t)ndims * 3 * sizeof *dims) : NULL;
    if (rc == MPI_SUCCESS && !dims) {
        PMPI_Type_free(newtype);
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a datatype's decoding");
    }
    if (dims) {
        memcpy(dims, array_of_sizes, (size_t)ndims * sizeof *dims);
        memcpy(dims + ndims, array_of_subsizes, (size_t)ndims * sizeof *dims);
        memcpy(dims + 2 * ndims, array_of_starts, (size_t)ndims * sizeof *dims);
        rc = rec(rc, newtype, MPI_COMBINER_SUBARRAY, 1, head, 3 * ndims, dims, 1, tail, 0, NULL, 1,
                 &oldtype);
        free(dims);
    }
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_subarray);

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    int rc = subarray(ndims, shmc_mpi__counts(array_of_sizes), shmc_mpi__counts(array_of_subsizes),
                      shmc_mpi__counts(array_of_starts), order, oldtype, newtype);
    const int ints[2] = {ndims, order};
    struct runs ii = {{2, 0, 0}, {ints, NULL, NULL}};
    struct runs cc = {{ndims, ndims, ndims}, {array_of_sizes, array_of_subsizes, array_of_starts}};
    rc = rec_all(rc, newtype, MPI_COMBINER_SUBARRAY, ii, 0, NULL, cc, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_subarray_c);

static int copy_type(MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner,
                     struct shmc_mpi_type **made)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *o = shmc_mpi__type(oldtype, &rc);
    if (!o)
        return rc;
    if (!newtype)
        return shmc_mpi__err(MPI_ERR_ARG, "newtype is NULL");
    struct shmc_mpi_type *t = malloc(sizeof *t);
    struct shmc_mpi_seg *s = malloc((size_t)(o->nseg ? o->nseg : 1) * sizeof *s);
    struct shmc_mpi_sig *g = o->sig ? malloc((size_t)o->nsig * sizeof *g) : NULL;
    if (!t || !s || (o->sig && !g) || (rc = put(t, newtype)) != MPI_SUCCESS) {
        free(t);
        free(s);
        free(g);
        return rc != MPI_SUCCESS ? rc : shmc_mpi__err(MPI_ERR_NO_MEM, "a datatype");
    }
    *t = *o;
    t->refs = 1;
    t->decode = NULL;
    memcpy(s, o->seg, (size_t)o->nseg * sizeof *s);
    t->seg = s;
    if (g)
        memcpy(g, o->sig, (size_t)o->nsig * sizeof *g);
    t->sig = g;
    t->predefined = 0;
    t->committed = 0;
    t->combiner = combiner;
    t->name[0] = '\0';
    t->attrs = (struct shmc_mpi_attrs){0};
    *made = t;
    return MPI_SUCCESS;
}

int shmc_mpi__type_f90(MPI_Datatype base, int combiner, int ni, const int *ints, MPI_Datatype *out)
{
    struct shmc_mpi_type *t;
    int rc = copy_type(base, out, combiner, &t);
    if (rc == MPI_SUCCESS)
        t->committed = 1;
    rc = rec(rc, out, combiner, ni, ints, 0, NULL, 0, NULL, 0, NULL, 0, NULL);
    if (rc == MPI_SUCCESS)
        t->fixed = 1;
    return rc;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    struct shmc_mpi_type *t;
    int rc = copy_type(oldtype, newtype, MPI_COMBINER_RESIZED, &t);
    if (rc == MPI_SUCCESS) {
        t->lb = lb;
        t->extent = extent;
        t->lb_set = t->ub_set = 1;
        set_dense(t);
    }
    const MPI_Aint a[2] = {lb, extent};
    rc = rec(rc, newtype, MPI_COMBINER_RESIZED, 0, NULL, 0, NULL, 0, NULL, 2, a, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_resized);

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    struct shmc_mpi_type *t;
    int rc = copy_type(oldtype, newtype, MPI_COMBINER_RESIZED, &t);
    if (rc == MPI_SUCCESS) {
        t->lb = (MPI_Aint)lb;
        t->extent = (MPI_Aint)extent;
        t->lb_set = t->ub_set = 1;
        set_dense(t);
    }
    const MPI_Count c[2] = {lb, extent};
    rc = rec_c(rc, newtype, MPI_COMBINER_RESIZED, 2, c, 0, NULL, 0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_create_resized_c);

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct shmc_mpi_type *t;
    int rc = copy_type(oldtype, newtype, MPI_COMBINER_DUP, &t);
    if (rc == MPI_SUCCESS) {
        t->committed = 1; /* a duplicate is committed if the original is; ours always are */
        const struct shmc_mpi_type *o = shmc_mpi__table_get(&shmc_mpi__types, oldtype);
        if ((rc = shmc_mpi__attr_copy(oldtype, &o->attrs, *newtype, &t->attrs)) != MPI_SUCCESS)
            PMPI_Type_free(newtype);
    }
    rc = rec(rc, newtype, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 1, &oldtype);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_dup);

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_type *t = datatype
                                  ? shmc_mpi__type(*datatype, &rc)
                                  : (rc = shmc_mpi__err(MPI_ERR_ARG, "datatype is NULL"), NULL);
    if (t)
        t->committed = 1;
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_commit);

int PMPI_Type_free(MPI_Datatype *datatype)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_type *t = datatype
                                  ? shmc_mpi__type(*datatype, &rc)
                                  : (rc = shmc_mpi__err(MPI_ERR_ARG, "datatype is NULL"), NULL);
    if (t && t->predefined)
        rc = shmc_mpi__err(MPI_ERR_TYPE, "%s is predefined and cannot be freed", t->name);
    else if (t && t->fixed)
        rc = shmc_mpi__err(MPI_ERR_TYPE, "a type of MPI_Type_create_f90_* cannot be freed");
    else if (t && (rc = shmc_mpi__attr_clear(*datatype, &t->attrs)) == MPI_SUCCESS) {
        /* Types built from this one hold their own copy of its type map, and a pending
         * operation has its data packed or its layout captured: the handle goes now, the
         * object once no other handle or decoding (typedecode.c) holds it. */
        shmc_mpi__table_set(&shmc_mpi__types, *datatype, NULL);
        shmc_mpi__type_unref(t);
        *datatype = MPI_DATATYPE_NULL;
    }
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_free);

/* ---- queries ---------------------------------------------------------------------------- */

static const struct shmc_mpi_type *query(MPI_Datatype h, const void *out, int *rc)
{
    const struct shmc_mpi_type *t = shmc_mpi__type(h, rc);
    if (t && !out) {
        *rc = shmc_mpi__err(MPI_ERR_ARG, "an output argument is NULL");
        return NULL;
    }
    return t;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_Count n = 0;
    int rc = PMPI_Type_size_x(datatype, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = n > INT32_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}
SHMC_MPI_ALIAS(Type_size);

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = query(datatype, size, &rc);
    if (t)
        *size = t->size;
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_size_x);

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return PMPI_Type_size_x(datatype, size);
}
SHMC_MPI_ALIAS(Type_size_c);

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = query(datatype, lb && extent ? lb : NULL, &rc);
    if (t) {
        *lb = t->lb;
        *extent = t->extent;
    }
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_get_extent);

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint l = 0, e = 0;
    int rc = PMPI_Type_get_extent(datatype, lb ? &l : NULL, extent ? &e : NULL);
    if (rc == MPI_SUCCESS) {
        *lb = l;
        *extent = e;
    }
    return rc;
}
SHMC_MPI_ALIAS(Type_get_extent_x);

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return PMPI_Type_get_extent_x(datatype, lb, extent);
}
SHMC_MPI_ALIAS(Type_get_extent_c);

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = query(datatype, true_lb && true_extent ? true_lb : NULL, &rc);
    if (t) {
        *true_lb = t->true_lb;
        *true_extent = t->true_ub - t->true_lb;
    }
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_get_true_extent);

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPI_Aint l = 0, e = 0;
    int rc = PMPI_Type_get_true_extent(datatype, true_lb ? &l : NULL, true_extent ? &e : NULL);
    if (rc == MPI_SUCCESS) {
        *true_lb = l;
        *true_extent = e;
    }
    return rc;
}
SHMC_MPI_ALIAS(Type_get_true_extent_x);

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return PMPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}
SHMC_MPI_ALIAS(Type_get_true_extent_c);

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = query(datatype, type_name && resultlen ? type_name : NULL, &rc);
    if (t) {
        strcpy(type_name, t->name);
        *resultlen = (int)strlen(t->name);
    }
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_get_name);

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_type *t = shmc_mpi__type(datatype, &rc);
    if (t && !type_name)
        rc = shmc_mpi__err(MPI_ERR_ARG, "type_name is NULL");
    else if (t)
        snprintf(t->name, sizeof t->name, "%s", type_name);
    TYPE_RETURN(rc);
}
SHMC_MPI_ALIAS(Type_set_name);
