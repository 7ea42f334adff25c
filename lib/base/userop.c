/*
 * The user-op table (userop.h). Making and freeing take a lock; the combines, which run
 * inside collectives on any thread that calls them, read a slot's function without one:
 * the release store of `fn` in shmc_op_create publishes ctx and commute with it, and a
 * slot is only freed when no call uses it (shmcomm.h).
 *
 * The user's function computes inout = in OP inout. acc = in OP acc is that call itself;
 * acc = acc OP in needs in's elements as the right operand and the result in acc, so a
 * copy of in (in pieces, through a per-thread buffer) takes the result and goes back.
 */
#include "base/userop.h"

#include <pthread.h>
#include <string.h>

#include "base/dtype.h"
#include "base/reduction.h"

struct userop {
    shmc_user_fn fn; /* NULL: free */
    void *ctx;
    int commute;
    /* Nonblocking collectives started with it and not ended (shmc__userop_hold): freeing
     * it meanwhile only marks it freed, for new calls; the slot goes with the last. */
    int holds;
    int freed;
};

static struct userop table[SHMC_OP_USER_MAX];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct userop *slot_of(shmc_op op)
{
    return shmc__op_user(op) ? &table[(unsigned)op - SHMC__OP_USER0] : NULL;
}

static shmc_user_fn fn_of(const struct userop *u)
{
    shmc_user_fn fn;
    /* Acquire: pairs with the release in shmc_op_create; ctx and commute are then seen. */
    __atomic_load(&u->fn, &fn, __ATOMIC_ACQUIRE);
    return fn;
}

SHMC_API int shmc_op_create(shmc_user_fn fn, void *ctx, int commute, shmc_op *op)
{
    if (!fn || !op)
        return SHMC_ERR_ARG;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < SHMC_OP_USER_MAX; i++) {
        if (table[i].fn)
            continue;
        table[i].ctx = ctx;
        table[i].commute = commute != 0;
        table[i].holds = 0;
        table[i].freed = 0;
        /* Release: publishes ctx and commute to combines that load fn (fn_of). */
        __atomic_store(&table[i].fn, &fn, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&table_lock);
        *op = (shmc_op)(SHMC__OP_USER0 + i);
        return SHMC_OK;
    }
    pthread_mutex_unlock(&table_lock);
    return SHMC_ERR_LIMIT;
}

SHMC_API int shmc_op_free(shmc_op *op)
{
    if (!op || !shmc__op_user(*op))
        return SHMC_ERR_ARG;
    struct userop *u = &table[(unsigned)*op - SHMC__OP_USER0];
    pthread_mutex_lock(&table_lock);
    int alive = u->fn != NULL && !u->freed;
    if (alive && u->holds) {
        u->freed = 1; /* the calls in flight still combine with it */
    } else if (alive) {
        shmc_user_fn none = NULL;
        __atomic_store(&u->fn, &none, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&table_lock);
    if (!alive)
        return SHMC_ERR_ARG;
    *op = SHMC_OP_NULL;
    return SHMC_OK;
}

int shmc__userop_check(shmc_dtype dt, shmc_op op)
{
    const struct userop *u = slot_of(op);
    return u && fn_of(u) && !__atomic_load_n(&u->freed, __ATOMIC_RELAXED) && shmc__dtype_size(dt)
               ? SHMC_OK
               : SHMC_ERR_ARG;
}

void shmc__userop_hold_user(shmc_op op, int delta)
{
    struct userop *u = &table[(unsigned)op - SHMC__OP_USER0];
    pthread_mutex_lock(&table_lock);
    u->holds += delta;
    if (u->holds <= 0 && u->freed) {
        u->holds = 0;
        u->freed = 0;
        shmc_user_fn none = NULL;
        __atomic_store(&u->fn, &none, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&table_lock);
}

int shmc__userop_commutes(shmc_op op)
{
    const struct userop *u = slot_of(op);
    return u && fn_of(u) && u->commute;
}

void shmc__userop_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    const struct userop *u = slot_of(op);
    shmc_user_fn fn = fn_of(u);
    if (!n || !fn)
        return;
    if (order == SHMC_ACC_RIGHT) {
        fn(in, acc, n, dt, u->ctx);
        return;
    }
    /* The right operand's copy, in pieces of whole elements (at least one: an element is
     * at most SHMC_DTYPE_BYTES_MAX bytes). */
    unsigned char right[SHMC_DTYPE_BYTES_MAX];
    size_t es = shmc__dtype_size(dt), piece = sizeof right / es;
    unsigned char *a = acc;
    const unsigned char *b = in;
    for (size_t i = 0; i < n; i += piece) {
        size_t m = n - i < piece ? n - i : piece;
        memcpy(right, b + i * es, m * es);
        fn(a + i * es, right, m, dt, u->ctx);
        memcpy(a + i * es, right, m * es);
    }
}

void shmc__userop_into(void *out, const void *a, const void *b, size_t n, shmc_dtype dt, shmc_op op)
{
    const struct userop *u = slot_of(op);
    shmc_user_fn fn = fn_of(u);
    if (!n || !fn)
        return;
    memcpy(out, b, n * shmc__dtype_size(dt));
    fn(a, out, n, dt, u->ctx);
}
