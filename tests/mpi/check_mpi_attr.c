/*
 * Attribute caching and error codes added at run time: keyvals on communicators, datatypes
 * and windows with their copy and delete callbacks (on set, replace, delete, dup, free and
 * MPI_Finalize, MPI_COMM_SELF's first), the predefined callbacks and keys, the MPI-1
 * names, every refusal (a keyval of another kind, a predefined or freed one, a missing
 * attribute, a failing callback that leaves the object as it was), and
 * MPI_Add_error_class/code/string with MPI_LASTUSEDCODE.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mpi_test.h"

/* What the callbacks saw, in order: "d<value>" for a delete, "c<value>" for a copy. */
static char log_[512];

static void note(char what, void *val)
{
    size_t n = strlen(log_);
    snprintf(log_ + n, sizeof log_ - n, "%c%d ", what, (int)(intptr_t)val);
}

static int copy_plus_100(MPI_Comm old, int k, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)k;
    T_ASSERT(extra == (void *)log_, "extra state handed to the copy callback");
    note('c', in);
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_note(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)extra;
    note('d', val);
    return MPI_SUCCESS;
}

static int copy_fails(MPI_Comm old, int k, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)k, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static int refuse;

static int del_fails(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)extra;
    note('x', val);
    return refuse ? MPI_ERR_OTHER : MPI_SUCCESS;
}

#define V(x) ((void *)(intptr_t)(x))

static int got(MPI_Comm c, int k, int *flag)
{
    void *v = NULL;
    M_OK(MPI_Comm_get_attr(c, k, &v, flag));
    return (int)(intptr_t)v;
}

/* A delete callback that deletes its object's other attributes (MPICH's attrdelete). */
static int others[2];
static int del_others(MPI_Comm c, int k, void *val, void *extra)
{
    (void)k, (void)val, (void)extra;
    /* (on free, the one set last is gone already: its delete fails, as in MPICH's test) */
    MPI_Comm_delete_attr(c, others[0]);
    MPI_Comm_delete_attr(c, others[1]);
    return MPI_SUCCESS;
}

static void communicators(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)n, (void)arg;
    mt_init();
    MPI_Comm d;
    int k1, k2, k3, flag;
    log_[0] = '\0';
    M_OK(MPI_Comm_create_keyval(copy_plus_100, del_note, &k1, log_));
    M_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_note, &k2, NULL));
    M_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL));
    T_ASSERT(k1 != k2 && k2 != k3 && k1 >= 0, "three keyvals %d %d %d", k1, k2, k3);
    /* not set yet; set; replaced (the old value deleted first); deleted */
    got(MPI_COMM_WORLD, k1, &flag);
    T_ASSERT(!flag, "no attribute yet");
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k1, V(1)));
    T_ASSERT(got(MPI_COMM_WORLD, k1, &flag) == 1 && flag, "set");
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k1, V(2)));
    T_ASSERT(got(MPI_COMM_WORLD, k1, &flag) == 2 && !strcmp(log_, "d1 "), "replaced: %s", log_);
    M_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, k1));
    got(MPI_COMM_WORLD, k1, &flag);
    T_ASSERT(!flag && !strcmp(log_, "d1 d2 "), "deleted: %s", log_);
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_WORLD, k1));
    /* dup: k1 copied through its callback, k2 not copied, k3 copied as it is */
    log_[0] = '\0';
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k1, V(5)));
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, V(6)));
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k3, V(7)));
    M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    T_ASSERT(got(d, k1, &flag) == 105 && flag, "copied by the callback");
    got(d, k2, &flag);
    T_ASSERT(!flag, "MPI_COMM_NULL_COPY_FN copies nothing");
    T_ASSERT(got(d, k3, &flag) == 7 && flag, "MPI_COMM_DUP_FN copies the value");
    M_OK(MPI_Comm_set_attr(d, k2, V(8)));
    /* the keyval freed while attributes use it: their callbacks still run on free */
    M_OK(MPI_Comm_free_keyval(&k2));
    T_ASSERT(k2 == MPI_KEYVAL_INVALID, "the handle is invalidated");
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(d, k2, V(1)));
    M_OK(MPI_Comm_free(&d));
    T_ASSERT(!strcmp(log_, "c5 d8 d105 "), "free deletes the last set first: %s", log_);
    /* a delete callback deleting the object's other attributes, on delete and on free */
    for (int pass = 0; pass < 2; pass++) {
        int kk[3];
        M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        M_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kk[0], NULL));
        M_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_others, &kk[1], NULL));
        M_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kk[2], NULL));
        others[0] = kk[0];
        others[1] = kk[2];
        for (int i = 0; i < 3; i++)
            M_OK(MPI_Comm_set_attr(d, kk[i], V(i)));
        if (pass == 0) {
            M_OK(MPI_Comm_delete_attr(d, kk[1]));
            for (int i = 0; i < 3; i++) {
                got(d, kk[i], &flag);
                T_ASSERT(!flag, "attribute %d left after the callback deleted it", i);
            }
        }
        M_OK(MPI_Comm_free(&d));
        for (int i = 0; i < 3; i++)
            M_OK(MPI_Comm_free_keyval(&kk[i]));
    }
    /* a freed keyval's old number still reads and deletes what it keys; freeing it again
     * while attributes hold it is a no-op (MPICH's fkeyval, keyval_double_free) */
    int kd, kd_copy;
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    M_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kd, NULL));
    kd_copy = kd;
    M_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kd, V(3)));
    M_OK(MPI_Comm_free_keyval(&kd));
    T_ASSERT(got(MPI_COMM_SELF, kd_copy, &flag) == 3 && flag, "read through a freed keyval");
    int kd2 = kd_copy;
    M_OK(MPI_Comm_free_keyval(&kd2));
    M_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, kd_copy));
    /* with its last attribute gone, it is gone */
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_SELF, kd_copy, &(void *){0}, &flag));
    kd2 = kd_copy;
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&kd2));
    /* a failing copy callback fails the dup and leaves no communicator */
    int kf;
    M_OK(MPI_Comm_create_keyval(copy_fails, MPI_COMM_NULL_DELETE_FN, &kf, NULL));
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kf, V(1)));
    d = MPI_COMM_NULL;
    M_CLASS(MPI_ERR_OTHER, MPI_Comm_dup(MPI_COMM_WORLD, &d));
    M_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kf));
    M_OK(MPI_Comm_free_keyval(&kf));
    /* a failing delete callback fails the free and leaves the communicator usable */
    int kx;
    M_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fails, &kx, NULL));
    M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    M_OK(MPI_Comm_set_attr(d, kx, V(13)));
    refuse = 1;
    M_CLASS(MPI_ERR_OTHER, MPI_Comm_free(&d));
    T_ASSERT(d != MPI_COMM_NULL, "not freed");
    M_OK(MPI_Barrier(d));
    M_CLASS(MPI_ERR_OTHER, MPI_Comm_set_attr(d, kx, V(14))); /* replacing deletes first */
    refuse = 0;
    M_OK(MPI_Comm_free(&d));
    M_OK(MPI_Comm_free_keyval(&kx));
    /* refusals: predefined keys, other kinds, bad keyvals, NULL outputs */
    int *ub = NULL, tk;
    M_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    T_ASSERT(flag && *ub >= 32767, "MPI_TAG_UB %d", *ub);
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(1)));
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB));
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &ub, &flag));
    M_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, tk, V(1)));
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&tk));
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, 12345, V(1)));
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, V(1)));
    M_CLASS(MPI_ERR_COMM, MPI_Comm_set_attr(MPI_COMM_NULL, k1, V(1)));
    M_CLASS(MPI_ERR_ARG, MPI_Comm_get_attr(MPI_COMM_WORLD, k1, NULL, &flag));
    M_CLASS(MPI_ERR_ARG,
            MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL));
    M_OK(MPI_Type_free_keyval(&tk));
    /* the MPI-1 names are the same attributes */
    int k0;
    void *v = NULL;
    M_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k0, NULL));
    M_OK(MPI_Attr_put(MPI_COMM_WORLD, k0, V(42)));
    M_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, k0, &v, &flag));
    T_ASSERT(flag && v == V(42), "Attr_put seen by Comm_get_attr");
    M_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    T_ASSERT(flag && *ub >= 32767, "Attr_get of a predefined key");
    M_OK(MPI_Attr_delete(MPI_COMM_WORLD, k0));
    M_OK(MPI_Keyval_free(&k0));
    /* what MPI_Finalize deletes: MPI_COMM_SELF's attribute first, then the world's */
    log_[0] = '\0';
    M_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k1, V(50 + me)));
    M_OK(MPI_Comm_free_keyval(&k1));
    M_OK(MPI_Finalize());
    char want[64];
    snprintf(want, sizeof want, "d%d d6 d5 ", 50 + me); /* k2's 6 lives on after its keyval */
    T_ASSERT(!strcmp(log_, want), "finalize deleted %s, expected %s", log_, want);
}

START_TEST(test_mpi_attr_communicators)
{
    mt_run(2, communicators, NULL);
}
END_TEST

/* MPI_Finalize's delete callbacks may still call MPI. */
static int del_calls_mpi(MPI_Comm c, int k, void *val, void *extra)
{
    (void)k, (void)val, (void)extra;
    int size = 0, fin = 1;
    M_OK(MPI_Comm_size(c, &size));
    M_OK(MPI_Finalized(&fin));
    T_ASSERT(size >= 1 && !fin, "MPI still usable in a delete callback at finalize");
    note('m', V(size));
    return MPI_SUCCESS;
}

static void finalize_calls(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)me, (void)arg;
    mt_init();
    int k;
    log_[0] = '\0';
    M_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_calls_mpi, &k, NULL));
    M_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k, V(1)));
    M_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k, V(1)));
    M_OK(MPI_Finalize());
    char want[32];
    snprintf(want, sizeof want, "m1 m%d ", n);
    T_ASSERT(!strcmp(log_, want), "finalize: %s, expected %s", log_, want);
}

START_TEST(test_mpi_attr_finalize_callbacks_call_mpi)
{
    mt_run(3, finalize_calls, NULL);
}
END_TEST

static int tdel(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)extra;
    note('t', val);
    return MPI_SUCCESS;
}

static void types_windows_codes(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)me, (void)n, (void)arg;
    mt_init();
    int k, flag;
    void *v = NULL;
    MPI_Datatype t, d;
    log_[0] = '\0';
    M_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, tdel, &k, NULL));
    M_OK(MPI_Type_set_attr(MPI_INT, k, V(3)));
    M_OK(MPI_Type_get_attr(MPI_INT, k, &v, &flag));
    T_ASSERT(flag && v == V(3), "an attribute on a predefined type");
    M_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    M_OK(MPI_Type_get_attr(t, k, &v, &flag));
    T_ASSERT(!flag, "a new type has none");
    M_OK(MPI_Type_set_attr(t, k, V(4)));
    M_OK(MPI_Type_dup(t, &d));
    M_OK(MPI_Type_get_attr(d, k, &v, &flag));
    T_ASSERT(flag && v == V(4), "MPI_Type_dup copies it");
    M_OK(MPI_Type_free(&t));
    M_OK(MPI_Type_free(&d));
    M_OK(MPI_Type_delete_attr(MPI_INT, k));
    T_ASSERT(!strcmp(log_, "t4 t4 t3 "), "type deletes: %s", log_);
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag));
    M_CLASS(MPI_ERR_TYPE, MPI_Type_set_attr(MPI_DATATYPE_NULL, k, V(1)));
    M_OK(MPI_Type_free_keyval(&k));
    /* windows: keyvals are made and freed; no window exists to hold one yet */
    int wk;
    M_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL));
    M_CLASS(MPI_ERR_WIN, MPI_Win_set_attr(MPI_WIN_NULL, wk, V(1)));
    M_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, wk, V(1)));
    M_OK(MPI_Win_free_keyval(&wk));
    /* error classes, codes and strings added at run time */
    int *last = NULL, cls, code, code2, c, len;
    char s[MPI_MAX_ERROR_STRING];
    M_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    T_ASSERT(flag && *last == MPI_ERR_LASTCODE, "nothing added yet: %d", *last);
    M_OK(MPI_Add_error_class(&cls));
    M_OK(MPI_Add_error_code(cls, &code));
    M_OK(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    T_ASSERT(cls > MPI_ERR_LASTCODE && code > cls && code2 > code, "%d %d %d", cls, code, code2);
    M_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    T_ASSERT(*last == code2, "MPI_LASTUSEDCODE %d", *last);
    M_OK(MPI_Error_class(code, &c));
    T_ASSERT(c == cls, "the code's class");
    M_OK(MPI_Error_class(code2, &c));
    T_ASSERT(c == MPI_ERR_ARG, "a code of a predefined class");
    M_OK(MPI_Error_string(code, s, &len));
    T_ASSERT(len == 0 && s[0] == '\0', "no string yet");
    M_OK(MPI_Add_error_string(code, "the frobnicator jammed"));
    M_OK(MPI_Error_string(code, s, &len));
    T_ASSERT(!strcmp(s, "the frobnicator jammed") && len == 22, "string %s", s);
    M_CLASS(MPI_ERR_ARG, MPI_Add_error_string(MPI_ERR_ARG, "mine"));
    M_CLASS(MPI_ERR_ARG, MPI_Add_error_code(code, &c)); /* a code is no class */
    M_CLASS(MPI_ERR_ARG, MPI_Add_error_class(NULL));
    /* a handler sees the added code */
    M_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_attr_types_windows_and_error_codes)
{
    mt_run(1, types_windows_codes, NULL);
}
END_TEST

static Suite *mpi_attr_suite(void)
{
    Suite *s = suite_create("mpi_attr");
    TCase *t = tcase_create("mpi_attr");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_attr_communicators);
    tcase_add_test(t, test_mpi_attr_finalize_callbacks_call_mpi);
    tcase_add_test(t, test_mpi_attr_types_windows_and_error_codes);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_attr_suite());
}
