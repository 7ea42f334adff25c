/*
 * Datatypes as programs from elsewhere use them: the external32 representation
 * (MPI_Pack_external and friends) checked byte by byte against MPI's table, with round
 * trips of special values and mixed structs; Fortran's kinds by range and precision
 * (MPI_Type_create_f90_*), the C++ and sized complex types.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

/* Packs count elements at in as external32 and checks the bytes against want (n of them),
 * then unpacks them into out. */
static void ext_bytes(const void *in, int count, MPI_Datatype type, const unsigned char *want,
                      int n, void *out)
{
    MPI_Aint size = -1, pos = 0;
    unsigned char buf[256];
    M_OK(MPI_Pack_external_size("external32", count, type, &size));
    T_ASSERT(size == n, "external32 size %ld, want %d", (long)size, n);
    M_OK(MPI_Pack_external("external32", in, count, type, buf, (MPI_Aint)sizeof buf, &pos));
    T_ASSERT(pos == n, "position %ld, want %d", (long)pos, n);
    for (int i = 0; i < n; i++)
        T_ASSERT(buf[i] == want[i], "byte %d is %02x, want %02x", i, buf[i], want[i]);
    pos = 0;
    M_OK(MPI_Unpack_external("external32", buf, n, &pos, out, count, type));
    T_ASSERT(pos == n, "unpacked to %ld, want %d", (long)pos, n);
}

static void external32(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)me;
    (void)n;
    (void)arg;
    mt_init();
    int i1 = 0x01020304, i2 = 0;
    ext_bytes(&i1, 1, MPI_INT, (const unsigned char[]){1, 2, 3, 4}, 4, &i2);
    T_ASSERT(i2 == i1, "int back %x", i2);
    /* MPI_LONG is 4 bytes in external32, sign-extended back */
    long l1[2] = {-2, 300}, l2[2] = {0, 0};
    ext_bytes(l1, 2, MPI_LONG, (const unsigned char[]){0xff, 0xff, 0xff, 0xfe, 0, 0, 1, 0x2c}, 8,
              l2);
    T_ASSERT(l2[0] == -2 && l2[1] == 300, "long back %ld %ld", l2[0], l2[1]);
    unsigned long u1 = 0xfffffffful, u2 = 0;
    ext_bytes(&u1, 1, MPI_UNSIGNED_LONG, (const unsigned char[]){0xff, 0xff, 0xff, 0xff}, 4, &u2);
    T_ASSERT(u2 == u1, "unsigned long back %lx", u2);
    double d1 = 1.0, d2 = 0;
    ext_bytes(&d1, 1, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8, &d2);
    T_ASSERT(d2 == 1.0, "double back %g", d2);
    short s1 = -3, s2 = 0;
    ext_bytes(&s1, 1, MPI_SHORT, (const unsigned char[]){0xff, 0xfd}, 2, &s2);
    T_ASSERT(s2 == -3, "short back %d", s2);
    /* a pair: float then int, no padding */
    struct {
        float v;
        int i;
    } p1 = {1.5f, 7}, p2 = {0, 0};
    ext_bytes(&p1, 1, MPI_FLOAT_INT, (const unsigned char[]){0x3f, 0xc0, 0, 0, 0, 0, 0, 7}, 8, &p2);
    T_ASSERT(p2.v == 1.5f && p2.i == 7, "float_int back %g %d", p2.v, p2.i);
    /* long double: IEEE binary128 */
    long double x1[3] = {1.0L, -2.5L, 0}, x2[3] = {0, 0, 7};
    unsigned char q[48] = {0x3f, 0xff};
    q[16] = 0xc0;
    q[18] = 0x40;
    ext_bytes(x1, 3, MPI_LONG_DOUBLE, q, 48, x2);
    T_ASSERT(x2[0] == 1.0L && x2[1] == -2.5L && x2[2] == 0, "long double back %Lg %Lg %Lg", x2[0],
             x2[1], x2[2]);
    /* infinities, NaN, the smallest normal and a subnormal survive the round trip */
    long double y1[5] = {INFINITY, -INFINITY, NAN, LDBL_MIN, LDBL_MIN / 8}, y2[5];
    MPI_Aint pos = 0;
    unsigned char buf[128];
    M_OK(MPI_Pack_external("external32", y1, 5, MPI_LONG_DOUBLE, buf, sizeof buf, &pos));
    pos = 0;
    M_OK(MPI_Unpack_external("external32", buf, sizeof buf, &pos, y2, 5, MPI_LONG_DOUBLE));
    T_ASSERT(isinf(y2[0]) && y2[0] > 0 && isinf(y2[1]) && y2[1] < 0 && isnan(y2[2]) &&
                 y2[3] == LDBL_MIN && y2[4] == LDBL_MIN / 8,
             "special long doubles back %Lg %Lg %Lg %Lg %Lg", y2[0], y2[1], y2[2], y2[3], y2[4]);
    /* complex double: two big-endian doubles */
    double _Complex c1 = 1.0 + 2.0 * I, c2 = 0;
    ext_bytes(&c1, 1, MPI_C_DOUBLE_COMPLEX,
              (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0}, 16,
              &c2);
    T_ASSERT(c2 == c1, "complex back");
    /* a struct mixing types, with padding: char, long, double -> 1 + 4 + 8 bytes each */
    struct mix {
        char c;
        long l;
        double d;
    } m1[2] = {{'a', -5, 0.5}, {'b', 6, -1.0}}, m2[2];
    int lens[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct mix, c), offsetof(struct mix, l), offsetof(struct mix, d)};
    MPI_Datatype tys[3] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE}, st, sr;
    M_OK(MPI_Type_create_struct(3, lens, disp, tys, &st));
    M_OK(MPI_Type_create_resized(st, 0, sizeof(struct mix), &sr));
    M_OK(MPI_Type_commit(&sr));
    MPI_Count tlb = -1, text = -1;
    M_OK(MPI_Type_get_true_extent_x(sr, &tlb, &text));
    T_ASSERT(tlb == 0 && text == (MPI_Count)(offsetof(struct mix, d) + sizeof(double)),
             "true extent %lld %lld", (long long)tlb, (long long)text);
    const unsigned char want[26] = {'a', 0xff, 0xff, 0xff, 0xfb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0,
                                    'b', 0,    0,    0,    6,    0xbf, 0xf0, 0, 0, 0, 0, 0, 0};
    memset(m2, 0, sizeof m2);
    ext_bytes(m1, 2, sr, want, 26, m2);
    T_ASSERT(m2[0].c == 'a' && m2[0].l == -5 && m2[0].d == 0.5 && m2[1].c == 'b' && m2[1].l == 6 &&
                 m2[1].d == -1.0,
             "struct back");
    /* a strided vector of shorts */
    short v1[5] = {1, -1, 2, -1, 3}, v2[5] = {0, 9, 0, 9, 0};
    MPI_Datatype vec;
    M_OK(MPI_Type_vector(3, 1, 2, MPI_SHORT, &vec));
    M_OK(MPI_Type_commit(&vec));
    ext_bytes(v1, 1, vec, (const unsigned char[]){0, 1, 0, 2, 0, 3}, 6, v2);
    T_ASSERT(v2[0] == 1 && v2[1] == 9 && v2[2] == 2 && v2[4] == 3, "vector back");
    /* refusals */
    MPI_Aint size;
    pos = 0;
    M_CLASS(MPI_ERR_ARG, MPI_Pack_external_size("native", 1, MPI_INT, &size));
    M_CLASS(MPI_ERR_TRUNCATE, MPI_Pack_external("external32", &i1, 2, MPI_INT, buf, 4, &pos));
    T_ASSERT(pos == 0, "a refused pack moved the position to %ld", (long)pos);
    M_CLASS(MPI_ERR_TRUNCATE, MPI_Unpack_external("external32", buf, 3, &pos, &i2, 1, MPI_INT));
    M_CLASS(MPI_ERR_TYPE, MPI_Pack_external_size("external32", 1, MPI_DATATYPE_NULL, &size));
    M_CLASS(MPI_ERR_COUNT, MPI_Pack_external_size("external32", -1, MPI_INT, &size));
    M_OK(MPI_Type_free(&vec));
    M_OK(MPI_Type_free(&st));
    M_OK(MPI_Type_free(&sr));
    /* huge types: touching blocks are one run, made at once; too many separate runs are
     * refused at once (MPICH's large_count) */
    MPI_Datatype big;
    int bs;
    M_OK(MPI_Type_contiguous(INT32_MAX, MPI_CHAR, &big));
    M_OK(MPI_Type_size(big, &bs));
    T_ASSERT(bs == INT32_MAX, "size %d", bs);
    M_OK(MPI_Type_free(&big));
    M_CLASS(MPI_ERR_UNSUPPORTED_OPERATION, MPI_Type_vector(1 << 30, 1, 3, MPI_INT, &big));
    M_OK(MPI_Finalize());
}

/* Fortran's kinds by range and precision, and the C++ and sized complex types, in use. */
static void kinds(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    MPI_Datatype r1, r2, c, i4;
    M_OK(MPI_Type_create_f90_real(6, 30, &r1));
    M_OK(MPI_Type_create_f90_real(6, 30, &r2));
    T_ASSERT(r1 == r2, "the same request gave two types");
    int ni, na, nd, comb, ints[2] = {0, 0}, size;
    M_OK(MPI_Type_get_envelope(r1, &ni, &na, &nd, &comb));
    T_ASSERT(comb == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nd == 0, "envelope %d %d %d %d",
             comb, ni, na, nd);
    M_OK(MPI_Type_get_contents(r1, 2, 0, 0, ints, NULL, NULL));
    T_ASSERT(ints[0] == 6 && ints[1] == 30, "contents %d %d", ints[0], ints[1]);
    M_OK(MPI_Type_size(r1, &size));
    T_ASSERT(size == 4, "f90 real(6, 30) has %d bytes", size);
    M_CLASS(MPI_ERR_TYPE, MPI_Type_free(&r1));
    M_OK(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &c));
    M_OK(MPI_Type_size(c, &size));
    T_ASSERT(size == 16, "f90 complex(15) has %d bytes", size);
    M_OK(MPI_Type_create_f90_integer(9, &i4));
    M_OK(MPI_Type_get_envelope(i4, &ni, &na, &nd, &comb));
    T_ASSERT(comb == MPI_COMBINER_F90_INTEGER && ni == 1, "integer envelope %d %d", comb, ni);
    M_OK(MPI_Type_size(i4, &size));
    T_ASSERT(size == 4, "f90 integer(9) has %d bytes", size);
    /* they move and reduce as their kinds do */
    float f = (float)me + 0.5f, fs = 0;
    M_OK(MPI_Allreduce(&f, &fs, 1, r1, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(fs == (float)(n * (n - 1)) / 2 + 0.5f * (float)n, "f90 real sum %g", fs);
    double _Complex z = me + 1.0 * I, zs = 0;
    M_OK(MPI_Allreduce(&z, &zs, 1, c, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(zs == n * (n - 1) / 2 + n * 1.0 * I, "f90 complex sum");
    int k = me, km = -1;
    M_OK(MPI_Allreduce(&k, &km, 1, i4, MPI_MAX, MPI_COMM_WORLD));
    T_ASSERT(km == n - 1, "f90 integer max %d", km);
    /* C++ and sized complex types */
    _Bool b = me != 1, band = 0;
    M_OK(MPI_Allreduce(&b, &band, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
    T_ASSERT(band == (n < 2), "CXX_BOOL land %d", band);
    M_OK(MPI_Allreduce(&z, &zs, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    T_ASSERT(zs == n * (n - 1) / 2 + n * 1.0 * I, "CXX complex sum");
    float _Complex y = 1.0f, ys = 0;
    M_OK(MPI_Allreduce(&y, &ys, 1, MPI_COMPLEX8, MPI_PROD, MPI_COMM_WORLD));
    T_ASSERT(ys == 1.0f, "COMPLEX8 product");
    M_OK(MPI_Type_size(MPI_CXX_LONG_DOUBLE_COMPLEX, &size));
    T_ASSERT(size == (int)sizeof(long double _Complex), "CXX long double complex %d", size);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    M_OK(MPI_Type_get_name(MPI_COMPLEX16, name, &len));
    T_ASSERT(strcmp(name, "MPI_COMPLEX16") == 0, "name %s", name);
    T_ASSERT(MPI_REAL16 == MPI_DATATYPE_NULL, "MPI_REAL16 is defined");
    M_OK(MPI_Finalize());
}

/* A receive's type freed before the message comes (MPICH's tfree and concurrent_irecv):
 * the receive holds it, and new types made meanwhile do not disturb it. */
static void freed_type(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)n, (void)arg;
    mt_init();
    int buf[64];
    for (int i = 0; i < 64; i++)
        buf[i] = me == 0 ? i : -1;
    if (me == 1) {
        MPI_Datatype every2, tmp[64];
        MPI_Request q;
        M_OK(MPI_Type_vector(32, 1, 2, MPI_INT, &every2));
        M_OK(MPI_Type_commit(&every2));
        M_OK(MPI_Irecv(buf, 1, every2, 0, 0, MPI_COMM_WORLD, &q));
        M_OK(MPI_Type_free(&every2));
        for (int i = 0; i < 64; i++) {
            M_OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &tmp[i]));
            M_OK(MPI_Type_commit(&tmp[i]));
        }
        M_OK(MPI_Sendrecv(NULL, 0, MPI_INT, 0, 1, NULL, 0, MPI_INT, 0, 1, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
        M_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < 64; i++) {
            T_ASSERT(buf[i] == (i % 2 ? -1 : i / 2), "buf[%d] = %d", i, buf[i]);
            M_OK(MPI_Type_free(&tmp[i]));
        }
    } else if (me == 0) {
        M_OK(MPI_Sendrecv(NULL, 0, MPI_INT, 1, 1, NULL, 0, MPI_INT, 1, 1, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
        M_OK(MPI_Send(buf, 32, MPI_INT, 1, 0, MPI_COMM_WORLD));
    }
    /* a persistent request's type freed before it starts (MPICH's multi_psend_derived) */
    MPI_Datatype dup;
    MPI_Request p;
    int v = me, got = -1, peer = 1 - me;
    M_OK(MPI_Type_dup(MPI_INT, &dup));
    if (me == 0)
        M_OK(MPI_Send_init(&v, 1, dup, peer, 2, MPI_COMM_WORLD, &p));
    else
        M_OK(MPI_Recv_init(&got, 1, dup, peer, 2, MPI_COMM_WORLD, &p));
    M_OK(MPI_Type_free(&dup));
    for (int round = 0; round < 3; round++) {
        M_OK(MPI_Start(&p));
        M_OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
        T_ASSERT(me == 0 || got == 0, "persistent with a freed type: %d", got);
    }
    M_OK(MPI_Request_free(&p));
    /* MPI_PROC_NULL moves nothing: its buffer arguments are not looked at (recvnull) */
    MPI_Status st;
    M_OK(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st));
    T_ASSERT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc null %d %d",
             st.MPI_SOURCE, st.MPI_TAG);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_types_freed_while_receiving)
{
    mt_run(2, freed_type, NULL);
}
END_TEST

START_TEST(test_mpi_types_fortran_kinds_and_cxx_types)
{
    mt_run(1, kinds, NULL);
    mt_run(3, kinds, NULL);
}
END_TEST

START_TEST(test_mpi_types_external32)
{
    mt_run(1, external32, NULL);
}
END_TEST

static Suite *mpi_types_suite(void)
{
    Suite *s = suite_create("mpi_types");
    TCase *t = tcase_create("mpi_types");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_mpi_types_external32);
    tcase_add_test(t, test_mpi_types_fortran_kinds_and_cxx_types);
    tcase_add_test(t, test_mpi_types_freed_while_receiving);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_types_suite());
}
