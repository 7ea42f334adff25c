/*
 * Attribute caching (MPI 4.1, 7.7): keyvals and the attributes they key on communicators,
 * datatypes and windows. A keyval records its kind of object, its copy and delete
 * callbacks and their extra state; an object's attributes are a list of (keyval, value)
 * in the order they were first set. Copying (MPI_Comm_dup, MPI_Type_dup) calls each copy
 * callback; deleting (MPI_Comm_free, MPI_Type_free, MPI_Finalize) calls the delete
 * callbacks, the attribute set last first. A freed keyval lives on until the last
 * attribute it keys is deleted (MPI 4.1, 7.7.2: its callbacks still run): it keys no new
 * attribute, but its old number still reads and deletes the ones it keys, and freeing it
 * again is a no-op (MPICH's tests do both). A delete callback may delete other attributes
 * of its object: every step after a callback finds its attribute again by keyval.
 *
 * The three kinds' callback types are the same C type (every handle is an int), so one
 * pointer type calls them all, and the predefined callbacks (MPI_COMM_DUP_FN ...) are
 * three functions defined here; a NULL callback does what the null ones do. The
 * predefined keys (MPI_TAG_UB ...) are answered by the
 * object's own module and cannot be set or deleted.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

typedef int attr_copy_fn(int oldh, int keyval, void *extra, void *in, void *out, int *flag);
typedef int attr_delete_fn(int h, int keyval, void *val, void *extra);

struct keyval {
    int kind; /* enum shmc_mpi_obj, or -1: free slot */
    int freed;
    int refs; /* attributes it keys */
    attr_copy_fn *copy;
    attr_delete_fn *del;
    void *extra;
};

static struct keyval *keyvals;
static int nkeyvals;

/* Keyval k is keyvals[k - SHMC_MPI_FIRST_KEYVAL]. */
static struct keyval *kv_of(int k)
{
    int i = k - SHMC_MPI_FIRST_KEYVAL;
    return i >= 0 && i < nkeyvals && keyvals[i].kind >= 0 ? &keyvals[i] : NULL;
}

static const char *kind_name(int kind)
{
    return kind == SHMC_MPI_OBJ_COMM   ? "communicator"
           : kind == SHMC_MPI_OBJ_TYPE ? "datatype"
                                       : "window";
}

/* The keyval k for an object of kind, not freed unless freed_too; or NULL and the error. */
static struct keyval *usable_as(int kind, int k, int freed_too, int *rc)
{
    struct keyval *v = kv_of(k);
    if (v && v->kind == kind && (!v->freed || freed_too))
        return v;
    if (k > 0 && k < SHMC_MPI_FIRST_KEYVAL)
        *rc = shmc_mpi__err(MPI_ERR_KEYVAL,
                            "keyval %d is predefined: it cannot be set, deleted "
                            "or freed",
                            k);
    else if (v && v->kind != kind)
        *rc = shmc_mpi__err(MPI_ERR_KEYVAL, "keyval %d was made for a %s, not a %s", k,
                            kind_name(v->kind), kind_name(kind));
    else
        *rc = shmc_mpi__err(MPI_ERR_KEYVAL, "%d is not a keyval%s", k,
                            k == MPI_KEYVAL_INVALID ? " (MPI_KEYVAL_INVALID)"
                                                    : " (freed, or never made)");
    return NULL;
}

static struct keyval *usable(int kind, int k, int *rc)
{
    return usable_as(kind, k, 0, rc);
}

static void unref(struct keyval *v)
{
    if (--v->refs == 0 && v->freed)
        v->kind = -1;
}

static int shmc_mpi__keyval_create(int kind, void *copy, void *del, void *extra, int *keyval)
{
    if (!keyval)
        return shmc_mpi__err(MPI_ERR_ARG, "keyval is NULL");
    int i = 0;
    while (i < nkeyvals && keyvals[i].kind >= 0)
        i++;
    if (i == nkeyvals) {
        int n = nkeyvals ? 2 * nkeyvals : 16;
        struct keyval *t = realloc(keyvals, (size_t)n * sizeof *t);
        if (!t)
            return shmc_mpi__err(MPI_ERR_NO_MEM, "a keyval");
        for (int j = nkeyvals; j < n; j++)
            t[j].kind = -1;
        keyvals = t;
        nkeyvals = n;
    }
    keyvals[i] = (struct keyval){kind, 0, 0, (attr_copy_fn *)copy, (attr_delete_fn *)del, extra};
    *keyval = SHMC_MPI_FIRST_KEYVAL + i;
    return MPI_SUCCESS;
}

static int shmc_mpi__keyval_free(int kind, int *keyval)
{
    int rc = MPI_SUCCESS;
    if (!keyval)
        return shmc_mpi__err(MPI_ERR_ARG, "keyval is NULL");
    struct keyval *v = usable_as(kind, *keyval, 1, &rc);
    if (!v)
        return rc;
    v->freed = 1;
    if (v->refs == 0)
        v->kind = -1;
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static struct shmc_mpi_attr *find(const struct shmc_mpi_attrs *a, int k)
{
    for (int i = 0; i < a->n; i++)
        if (a->a[i].keyval == k)
            return &a->a[i];
    return NULL;
}

/* Calls the delete callback of attribute x of object h; the attribute stays listed. */
static int call_delete(int h, const struct shmc_mpi_attr *x)
{
    struct keyval *v = &keyvals[x->keyval - SHMC_MPI_FIRST_KEYVAL];
    if (!v->del)
        return MPI_SUCCESS;
    int rc = v->del(h, x->keyval, x->val, v->extra);
    return rc == MPI_SUCCESS
               ? rc
               : shmc_mpi__err(rc, "the delete callback of keyval %d returned %d", x->keyval, rc);
}

static void remove_at(struct shmc_mpi_attrs *a, struct shmc_mpi_attr *x)
{
    unref(&keyvals[x->keyval - SHMC_MPI_FIRST_KEYVAL]);
    memmove(x, x + 1, (size_t)(a->a + a->n - (x + 1)) * sizeof *x);
    a->n--;
}

/* Appends (k, val) to a list that does not hold k. */
static int append(struct shmc_mpi_attrs *a, int k, void *val)
{
    if (a->n == a->cap) {
        int n = a->cap ? 2 * a->cap : 4;
        struct shmc_mpi_attr *t = realloc(a->a, (size_t)n * sizeof *t);
        if (!t)
            return shmc_mpi__err(MPI_ERR_NO_MEM, "an attribute");
        a->a = t;
        a->cap = n;
    }
    a->a[a->n++] = (struct shmc_mpi_attr){k, val};
    keyvals[k - SHMC_MPI_FIRST_KEYVAL].refs++;
    return MPI_SUCCESS;
}

static int shmc_mpi__attr_set(int kind, int h, struct shmc_mpi_attrs *a, int k, void *val)
{
    int rc = MPI_SUCCESS;
    if (!usable(kind, k, &rc))
        return rc;
    struct shmc_mpi_attr *x = find(a, k);
    if (!x)
        return append(a, k, val);
    /* Replacing a value deletes the old one first (MPI 4.1, 7.7.2). */
    if ((rc = call_delete(h, x)) != MPI_SUCCESS)
        return rc;
    if (!(x = find(a, k)))
        return append(a, k, val); /* the callback deleted it */
    x->val = val;
    return MPI_SUCCESS;
}

static int shmc_mpi__attr_get(int kind, const struct shmc_mpi_attrs *a, int k, void *val, int *flag)
{
    int rc = MPI_SUCCESS;
    if (!val || !flag)
        return shmc_mpi__err(MPI_ERR_ARG, "attribute_val or flag is NULL");
    struct keyval *v = kv_of(k);
    /* A freed keyval still names the attributes it keys, for its own callbacks' sake. */
    if (!v || v->kind != kind) {
        usable(kind, k, &rc);
        return rc;
    }
    const struct shmc_mpi_attr *x = find(a, k);
    *flag = x != NULL;
    if (x)
        memcpy(val, &x->val, sizeof x->val);
    return MPI_SUCCESS;
}

static int shmc_mpi__attr_delete(int kind, int h, struct shmc_mpi_attrs *a, int k)
{
    int rc = MPI_SUCCESS;
    if (!usable_as(kind, k, 1, &rc))
        return rc;
    struct shmc_mpi_attr *x = find(a, k);
    if (!x)
        return shmc_mpi__err(MPI_ERR_KEYVAL, "keyval %d has no attribute on %s %d", k,
                             kind_name(kind), h);
    if ((rc = call_delete(h, x)) != MPI_SUCCESS)
        return rc;
    if ((x = find(a, k)))
        remove_at(a, x);
    return MPI_SUCCESS;
}

static int clear(int h, struct shmc_mpi_attrs *a);

int shmc_mpi__attr_clear(int h, struct shmc_mpi_attrs *a)
{
    shmc_mpi__lock();
    int rc = clear(h, a);
    shmc_mpi__unlock();
    return rc;
}

static int clear(int h, struct shmc_mpi_attrs *a)
{
    while (a->n > 0) {
        struct shmc_mpi_attr *x = &a->a[a->n - 1];
        int k = x->keyval, rc = call_delete(h, x);
        if (rc != MPI_SUCCESS)
            return rc; /* the failing attribute and the older ones stay */
        if ((x = find(a, k)))
            remove_at(a, x);
    }
    free(a->a);
    *a = (struct shmc_mpi_attrs){0};
    return MPI_SUCCESS;
}

void shmc_mpi__attr_drop(struct shmc_mpi_attrs *a)
{
    shmc_mpi__lock();
    while (a->n > 0)
        remove_at(a, &a->a[a->n - 1]);
    free(a->a);
    *a = (struct shmc_mpi_attrs){0};
    shmc_mpi__unlock();
}

static int copy_all(int oldh, const struct shmc_mpi_attrs *from, int newh,
                    struct shmc_mpi_attrs *to);

int shmc_mpi__attr_copy(int oldh, const struct shmc_mpi_attrs *from, int newh,
                        struct shmc_mpi_attrs *to)
{
    shmc_mpi__lock();
    int rc = copy_all(oldh, from, newh, to);
    shmc_mpi__unlock();
    return rc;
}

static int copy_all(int oldh, const struct shmc_mpi_attrs *from, int newh,
                    struct shmc_mpi_attrs *to)
{
    for (int i = 0; i < from->n; i++) {
        const struct shmc_mpi_attr *x = &from->a[i];
        struct keyval *v = &keyvals[x->keyval - SHMC_MPI_FIRST_KEYVAL];
        void *out = NULL;
        int flag = 0, rc = MPI_SUCCESS;
        if (v->copy) {
            rc = v->copy(oldh, x->keyval, v->extra, x->val, &out, &flag);
            if (rc != MPI_SUCCESS)
                rc = shmc_mpi__err(rc, "the copy callback of keyval %d returned %d", x->keyval, rc);
        }
        if (rc == MPI_SUCCESS && flag)
            rc = append(to, x->keyval, out);
        if (rc != MPI_SUCCESS) {
            /* The copies made so far are deleted, as freeing the new object would. */
            int keep = rc;
            shmc_mpi__attr_clear(newh, to);
            shmc_mpi__attr_drop(to);
            return keep;
        }
    }
    return MPI_SUCCESS;
}

void shmc_mpi__attr_end(void)
{
    free(keyvals);
    keyvals = NULL;
    nkeyvals = 0;
}

/* ---- the predefined callbacks (mpi.h names them for every kind) ------------------------ */

int MPI_COMM_NULL_COPY_FN(int oldh, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldh, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(int oldh, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldh, (void)keyval, (void)extra;
    memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(int h, int keyval, void *val, void *extra)
{
    (void)h, (void)keyval, (void)val, (void)extra;
    return MPI_SUCCESS;
}

/* ---- the calls ------------------------------------------------------------------------ */

/* The attributes of object h of kind, or NULL with the error raised on the object. */
static struct shmc_mpi_attrs *attrs_of(int kind, int h, int *rc)
{
    if ((*rc = shmc_mpi__check_running()) != MPI_SUCCESS)
        return NULL;
    if (kind == SHMC_MPI_OBJ_COMM) {
        struct shmc_mpi_comm *c = shmc_mpi__comm_any(h, rc);
        return c ? &c->attrs : NULL;
    }
    if (kind == SHMC_MPI_OBJ_TYPE) {
        struct shmc_mpi_type *t = shmc_mpi__type(h, rc);
        return t ? &t->attrs : NULL;
    }
    return shmc_mpi__win_attrs(h, rc);
}

/* Errors of calls on a communicator go to its handler; the others to the world's. */
static int raise_on(int kind, int h, int rc, const char *fn)
{
    if (rc == MPI_SUCCESS)
        return rc;
    if (kind == SHMC_MPI_OBJ_WIN)
        return shmc_mpi__win_raise(h, rc, fn);
    return shmc_mpi__raise(
        kind == SHMC_MPI_OBJ_COMM && shmc_mpi__comm_any(h, &(int){0}) ? h : MPI_COMM_WORLD, rc, fn);
}

static int create_keyval(int kind, void *copy, void *del, int *keyval, void *extra, const char *fn)
{
    int rc = shmc_mpi__check_running();
    shmc_mpi__lock();
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__keyval_create(kind, copy, del, extra, keyval);
    shmc_mpi__unlock();
    return raise_on(-1, 0, rc, fn);
}

static int free_keyval(int kind, int *keyval, const char *fn)
{
    int rc = shmc_mpi__check_running();
    shmc_mpi__lock();
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__keyval_free(kind, keyval);
    shmc_mpi__unlock();
    return raise_on(-1, 0, rc, fn);
}

static int set_attr(int kind, int h, int k, void *val, const char *fn)
{
    int rc;
    struct shmc_mpi_attrs *a = attrs_of(kind, h, &rc);
    shmc_mpi__lock(); /* (recursive: the callbacks run under it may call MPI) */
    if (a)
        rc = shmc_mpi__attr_set(kind, h, a, k, val);
    shmc_mpi__unlock();
    return raise_on(kind, h, rc, fn);
}

static int delete_attr(int kind, int h, int k, const char *fn)
{
    int rc;
    struct shmc_mpi_attrs *a = attrs_of(kind, h, &rc);
    shmc_mpi__lock(); /* (recursive: the callbacks run under it may call MPI) */
    if (a)
        rc = shmc_mpi__attr_delete(kind, h, a, k);
    shmc_mpi__unlock();
    return raise_on(kind, h, rc, fn);
}

static int get_attr(int kind, int h, int k, void *val, int *flag, const char *fn)
{
    int rc;
    struct shmc_mpi_attrs *a = attrs_of(kind, h, &rc);
    shmc_mpi__lock(); /* (recursive: the callbacks run under it may call MPI) */
    if (a)
        rc = shmc_mpi__attr_get(kind, a, k, val, flag);
    shmc_mpi__unlock();
    return raise_on(kind, h, rc, fn);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    return create_keyval(SHMC_MPI_OBJ_COMM, (void *)comm_copy_attr_fn, (void *)comm_delete_attr_fn,
                         comm_keyval, extra_state, __func__);
}
SHMC_MPI_ALIAS(Comm_create_keyval);

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval(SHMC_MPI_OBJ_COMM, comm_keyval, __func__);
}
SHMC_MPI_ALIAS(Comm_free_keyval);

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return set_attr(SHMC_MPI_OBJ_COMM, comm, comm_keyval, attribute_val, __func__);
}
SHMC_MPI_ALIAS(Comm_set_attr);

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return delete_attr(SHMC_MPI_OBJ_COMM, comm, comm_keyval, __func__);
}
SHMC_MPI_ALIAS(Comm_delete_attr);

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    int rc = MPI_SUCCESS;
    if (comm_keyval > 0 && comm_keyval < SHMC_MPI_FIRST_KEYVAL) {
        if (shmc_mpi__comm_any(comm, &rc))
            rc = shmc_mpi__comm_predefined_attr(comm_keyval, attribute_val, flag);
        return raise_on(SHMC_MPI_OBJ_COMM, comm, rc, __func__);
    }
    return get_attr(SHMC_MPI_OBJ_COMM, comm, comm_keyval, attribute_val, flag, __func__);
}
SHMC_MPI_ALIAS(Comm_get_attr);

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    return create_keyval(SHMC_MPI_OBJ_TYPE, (void *)type_copy_attr_fn, (void *)type_delete_attr_fn,
                         type_keyval, extra_state, __func__);
}
SHMC_MPI_ALIAS(Type_create_keyval);

int PMPI_Type_free_keyval(int *type_keyval)
{
    return free_keyval(SHMC_MPI_OBJ_TYPE, type_keyval, __func__);
}
SHMC_MPI_ALIAS(Type_free_keyval);

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    return set_attr(SHMC_MPI_OBJ_TYPE, datatype, type_keyval, attribute_val, __func__);
}
SHMC_MPI_ALIAS(Type_set_attr);

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    return delete_attr(SHMC_MPI_OBJ_TYPE, datatype, type_keyval, __func__);
}
SHMC_MPI_ALIAS(Type_delete_attr);

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    return get_attr(SHMC_MPI_OBJ_TYPE, datatype, type_keyval, attribute_val, flag, __func__);
}
SHMC_MPI_ALIAS(Type_get_attr);

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    return create_keyval(SHMC_MPI_OBJ_WIN, (void *)win_copy_attr_fn, (void *)win_delete_attr_fn,
                         win_keyval, extra_state, __func__);
}
SHMC_MPI_ALIAS(Win_create_keyval);

int PMPI_Win_free_keyval(int *win_keyval)
{
    return free_keyval(SHMC_MPI_OBJ_WIN, win_keyval, __func__);
}
SHMC_MPI_ALIAS(Win_free_keyval);

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    return set_attr(SHMC_MPI_OBJ_WIN, win, win_keyval, attribute_val, __func__);
}
SHMC_MPI_ALIAS(Win_set_attr);

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    return delete_attr(SHMC_MPI_OBJ_WIN, win, win_keyval, __func__);
}
SHMC_MPI_ALIAS(Win_delete_attr);

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    if (win_keyval >= MPI_WIN_BASE && win_keyval <= MPI_WIN_MODEL) {
        int rc = shmc_mpi__check_running();
        if (rc == MPI_SUCCESS)
            rc = shmc_mpi__win_predefined_attr(win, win_keyval, attribute_val, flag);
        return shmc_mpi__win_raise(win, rc, __func__);
    }
    return get_attr(SHMC_MPI_OBJ_WIN, win, win_keyval, attribute_val, flag, __func__);
}
SHMC_MPI_ALIAS(Win_get_attr);

/* ---- the MPI-1 names (removed in MPI 4, still in programs) ------------------------------- */

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return create_keyval(SHMC_MPI_OBJ_COMM, (void *)copy_fn, (void *)delete_fn, keyval, extra_state,
                         __func__);
}
SHMC_MPI_ALIAS(Keyval_create);

int PMPI_Keyval_free(int *keyval)
{
    return free_keyval(SHMC_MPI_OBJ_COMM, keyval, __func__);
}
SHMC_MPI_ALIAS(Keyval_free);

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr(SHMC_MPI_OBJ_COMM, comm, keyval, attribute_val, __func__);
}
SHMC_MPI_ALIAS(Attr_put);

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
SHMC_MPI_ALIAS(Attr_get);

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return delete_attr(SHMC_MPI_OBJ_COMM, comm, keyval, __func__);
}
SHMC_MPI_ALIAS(Attr_delete);
