/*
 * shmc_scan and shmc_exscan: sums of integers against the closed form, AVG over the ranks
 * combined, every dtype with MAX, in place, 1 to 8 ranks (powers of two and not), counts
 * past the initial scratch, a communicator of a subset; exscan leaves rank 0's buffer
 * alone; bad arguments.
 */
#include <check.h>
#include <string.h>

#include "coll_ref.h"
#include "harness.h"

/* Rank r's element i. */
static int64_t val(int r, size_t i)
{
    return (int64_t)r * 100 + (int64_t)(i % 97) - 30;
}

/* The sum of val(q, i) over ranks q in [0, upto). */
static int64_t prefix(int upto, size_t i)
{
    int64_t s = 0;
    for (int q = 0; q < upto; q++)
        s += val(q, i);
    return s;
}

static void sums(shmc_comm *c, int me, size_t count, int in_place)
{
    int64_t *in = shmct_xmalloc(count * 8), *out = shmct_xmalloc(count * 8);
    double *fin = shmct_xmalloc(count * 8), *fout = shmct_xmalloc(count * 8);
    for (size_t i = 0; i < count; i++) {
        in[i] = val(me, i);
        fin[i] = (double)val(me, i);
    }
    for (int ex = 0; ex < 2; ex++) {
        for (size_t i = 0; i < count; i++) {
            out[i] = in_place ? in[i] : -999;
            fout[i] = in_place ? fin[i] : -999.0;
        }
        const void *s = in_place ? SHMC_IN_PLACE : (const void *)in;
        const void *fs = in_place ? SHMC_IN_PLACE : (const void *)fin;
        if (ex) {
            T_OK(shmc_exscan(s, out, count, SHMC_INT64, SHMC_SUM, c));
            T_OK(shmc_exscan(fs, fout, count, SHMC_FLOAT64, SHMC_AVG, c));
        } else {
            T_OK(shmc_scan(s, out, count, SHMC_INT64, SHMC_SUM, c));
            T_OK(shmc_scan(fs, fout, count, SHMC_FLOAT64, SHMC_AVG, c));
        }
        int upto = ex ? me : me + 1;
        for (size_t i = 0; i < count; i++) {
            int64_t want = upto ? prefix(upto, i) : (in_place ? in[i] : -999);
            T_ASSERT(out[i] == want, "%s rank %d element %zu: %lld, expected %lld",
                     ex ? "exscan" : "scan", me, i, (long long)out[i], (long long)want);
            double fw = upto ? (double)prefix(upto, i) / upto : (in_place ? fin[i] : -999.0);
            T_ASSERT(fout[i] == fw, "%s avg rank %d element %zu: %g, expected %g",
                     ex ? "exscan" : "scan", me, i, fout[i], fw);
        }
    }
    free(in);
    free(out);
    free(fin);
    free(fout);
}

/* MAX of every dtype: the prefix maximum of cr_val values. */
static void maxima(shmc_comm *c, int me, int n)
{
    const size_t count = 33;
    uint8_t in[33 * 8], out[33 * 8], want[8];
    for (int d = 0; d <= SHMC_BOOL; d++) {
        shmc_dtype dt = (shmc_dtype)d;
        size_t es = shmc_dtype_size(dt);
        cr_fill(dt, SHMC_MAX, me, in, 0, count);
        T_OK(shmc_scan(in, out, count, dt, SHMC_MAX, c));
        for (size_t i = 0; i < count; i++) {
            cr_ref(dt, SHMC_MAX, me + 1, i, want, 0);
            T_ASSERT(!memcmp(out + i * es, want, es), "scan max dtype %d rank %d of %d element %zu",
                     d, me, n, i);
        }
    }
}

static void scans(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    sums(w, me, 1, 0);
    sums(w, me, 1000, 1);
    sums(w, me, 20000, 0); /* 160 KB: scratch past its initial size */
    maxima(w, me, n);
    /* A communicator of the even ranks, in reverse order. */
    int members[8], m = 0;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2 == 0)
            members[m++] = r;
    shmc_comm *even;
    T_OK(shmc_comm_create_group(w, members, m, &even));
    if (even) {
        sums(even, shmc_comm_rank(even), 77, 0);
        T_OK(shmc_comm_free(&even));
    }
    T_OK(shmc_scan(NULL, NULL, 0, SHMC_INT32, SHMC_SUM, w));
    T_OK(shmc_exscan(NULL, NULL, 0, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(shmct_stat("coll_scratch_late") == 0, "late scratch");
}

START_TEST(test_scan_prefixes)
{
    static const int ns[] = {1, 2, 3, 4, 5, 7, 8};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        ck_assert_int_eq(shmct_run(ns[i], scans, NULL), 0);
}
END_TEST

static void bad(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int32_t a[4] = {1, 2, 3, 4}, b[4];
    T_CALL(SHMC_ERR_ARG, shmc_scan(NULL, b, 1, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_scan(a, NULL, 1, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_scan(a, SHMC_IN_PLACE, 1, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_scan(a, a + 1, 2, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_scan(a, b, 1, SHMC_INT32, SHMC_AVG, w));
    T_CALL(SHMC_ERR_ARG, shmc_exscan(a, b, 1, SHMC_FLOAT32, SHMC_BXOR, w));
    T_CALL(SHMC_ERR_ARG, shmc_exscan(a, b, 1, (shmc_dtype)42, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_exscan(a, b, 1, SHMC_DTYPE_BYTES(4), SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_exscan(a, b, 1, SHMC_INT32, (shmc_op)99, w));
    T_CALL(SHMC_ERR_ARG, shmc_exscan(a, b, SIZE_MAX / 2, SHMC_INT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_scan(a, b, 1, SHMC_INT32, SHMC_SUM, NULL));
    /* The world is unharmed. */
    T_OK(shmc_scan(a, b, 4, SHMC_INT32, SHMC_SUM, w));
    for (int i = 0; i < 4; i++)
        T_ASSERT(b[i] == (i + 1) * (me + 1), "after the refusals: %d", b[i]);
    (void)n;
}

START_TEST(test_scan_bad_arguments)
{
    ck_assert_int_eq(shmct_run(3, bad, NULL), 0);
    ck_assert_int_eq(shmct_run(1, bad, NULL), 0);
}
END_TEST

static Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *t = tcase_create("scan");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_scan_prefixes);
    tcase_add_test(t, test_scan_bad_arguments);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(scan_suite());
}
