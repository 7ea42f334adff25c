/*
 * The MPI interface's environment, errors, communicators, groups, topologies, info
 * objects and datatype queries: start-up and thread levels, error classes and strings,
 * the three kinds of error handler (fatal ones abort the job with a message naming the
 * call), unimplemented functions, MPI_Comm_dup/split/create/create_group and their
 * comparisons, group algebra, Cartesian grids, and the profiling interface (this file
 * defines MPI_Barrier, which the library's weak symbol yields to).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpi_test.h"

/* A profiling tool's wrapper: counts the calls and goes on through PMPI_Barrier. */
static int barriers;
int MPI_Barrier(MPI_Comm comm)
{
    barriers++;
    return PMPI_Barrier(comm);
}

static void environment(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    int flag, provided;
    M_OK(MPI_Initialized(&flag));
    T_ASSERT(!flag, "not yet initialized");
    /* (MPI_THREAD_MULTIPLE: check_mpi_threads) */
    M_OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided));
    T_ASSERT(provided == MPI_THREAD_SERIALIZED, "provided %d", provided);
    M_OK(MPI_Query_thread(&provided));
    T_ASSERT(provided == MPI_THREAD_SERIALIZED, "query");
    M_OK(MPI_Is_thread_main(&flag));
    T_ASSERT(flag, "main thread");
    M_OK(MPI_Initialized(&flag));
    T_ASSERT(flag, "initialized");
    int v, sv, len;
    M_OK(MPI_Get_version(&v, &sv));
    T_ASSERT(v == MPI_VERSION && sv == MPI_SUBVERSION, "version");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
    M_OK(MPI_Get_library_version(lib, &len));
    T_ASSERT(strstr(lib, "shmcomm") && len == (int)strlen(lib), "library version %s", lib);
    M_OK(MPI_Get_processor_name(host, &len));
    T_ASSERT(len > 0 && len == (int)strlen(host), "processor name");
    double t0 = MPI_Wtime(), t1 = MPI_Wtime();
    T_ASSERT(t1 >= t0 && MPI_Wtick() > 0 && MPI_Wtick() < 1e-3, "clock");
    int b0 = barriers;
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    T_ASSERT(barriers == b0 + 1, "the program's MPI_Barrier wrapped the library's");
    /* error classes and strings */
    int cls;
    char s[MPI_MAX_ERROR_STRING];
    M_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
    T_ASSERT(cls == MPI_ERR_TRUNCATE, "class of a class");
    M_OK(MPI_Error_string(MPI_ERR_RANK, s, &len));
    T_ASSERT(strstr(s, "MPI_ERR_RANK") && len == (int)strlen(s), "string %s", s);
    /* MPI_ERRORS_RETURN, and a user handler that sees the code */
    MPI_Errhandler h;
    M_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
    T_ASSERT(h == MPI_ERRORS_ARE_FATAL, "fatal by default");
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    M_CLASS(MPI_ERR_RANK, MPI_Send(&v, 1, MPI_INT, n, 0, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_TAG, MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_COUNT, MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_TYPE, MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_REQUEST, MPI_Wait((MPI_Request[]){12345}, MPI_STATUS_IGNORE));
    M_CLASS(MPI_ERR_WIN, MPI_Win_fence(0, MPI_WIN_NULL));
    M_CLASS(MPI_ERR_WIN, MPI_Win_free((MPI_Win[]){MPI_WIN_NULL}));
    M_CLASS(MPI_ERR_ARG, MPI_Error_class(99999, &cls));
    M_OK(MPI_Finalized(&flag));
    T_ASSERT(!flag, "not finalized");
    (void)me;
    M_OK(MPI_Finalize());
    M_OK(MPI_Finalized(&flag));
    T_ASSERT(flag, "finalized");
}

START_TEST(test_mpi_env_startup_and_errors)
{
    mt_run(1, environment, NULL);
    mt_run(3, environment, NULL);
}
END_TEST

static int handled;
static void on_error(MPI_Comm *comm, int *code, ...)
{
    int cls;
    MPI_Error_class(*code, &cls);
    if (*comm == MPI_COMM_WORLD && cls == MPI_ERR_RANK)
        handled++;
}

static void user_handler(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    (void)me;
    M_OK(MPI_Init(NULL, NULL));
    MPI_Errhandler h;
    M_OK(MPI_Comm_create_errhandler(on_error, &h));
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
    int v = 0;
    T_ASSERT(MPI_Send(&v, 1, MPI_INT, n + 3, 0, MPI_COMM_WORLD) != MPI_SUCCESS, "refused");
    T_ASSERT(handled == 1, "the handler ran once (%d)", handled);
    M_OK(MPI_Errhandler_free(&h));
    /* freed, still set on the world: it lives on there */
    T_ASSERT(MPI_Send(&v, 1, MPI_INT, n + 3, 0, MPI_COMM_WORLD) != MPI_SUCCESS, "refused");
    T_ASSERT(handled == 2, "the freed handler still runs (%d)", handled);
    /* a handler's slot comes back once no handle or communicator holds it: many made and
     * freed on communicators made and freed (MPICH's commcall does 2000) */
    for (int i = 0; i < 500; i++) {
        MPI_Comm d, d2;
        MPI_Errhandler e, got;
        M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        M_OK(MPI_Comm_create_errhandler(on_error, &e));
        M_OK(MPI_Comm_set_errhandler(d, e));
        M_OK(MPI_Comm_dup(d, &d2)); /* inherits it */
        M_OK(MPI_Comm_get_errhandler(d2, &got));
        T_ASSERT(got == e, "inherited handler %d, set %d", got, e);
        M_OK(MPI_Errhandler_free(&got));
        M_OK(MPI_Errhandler_free(&e));
        M_OK(MPI_Comm_free(&d));
        M_OK(MPI_Comm_free(&d2));
    }
    M_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    M_OK(MPI_Finalize());
}

/* Info objects before MPI_Init and after MPI_Finalize (MPI 4; MPICH's info_no_init and
 * infocreateenv): made, changed and read on either side, freed after. */
static void info_outside(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)me, (void)n, (void)arg;
    MPI_Info a, e;
    char v[16];
    int flag = 0;
    M_OK(MPI_Info_create(&a));
    M_OK(MPI_Info_set(a, "k1", "v1"));
    M_OK(MPI_Info_create_env(0, NULL, &e));
    M_OK(MPI_Init(NULL, NULL));
    M_OK(MPI_Info_get(a, "k1", sizeof v - 1, v, &flag));
    T_ASSERT(flag && !strcmp(v, "v1"), "made before MPI_Init: %d %s", flag, v);
    M_OK(MPI_Info_set(a, "k2", "v2"));
    M_OK(MPI_Finalize());
    M_OK(MPI_Info_get(a, "k2", sizeof v - 1, v, &flag));
    T_ASSERT(flag && !strcmp(v, "v2"), "after MPI_Finalize: %d %s", flag, v);
    M_OK(MPI_Info_free(&a));
    M_OK(MPI_Info_free(&e));
    T_ASSERT(a == MPI_INFO_NULL && e == MPI_INFO_NULL, "freed");
}

START_TEST(test_mpi_env_info_outside_init)
{
    mt_run(1, info_outside, NULL);
}
END_TEST

START_TEST(test_mpi_env_user_errhandler)
{
    mt_run(2, user_handler, NULL);
}
END_TEST

/* What a rank wrote to the file it reopened stderr on (then removed), as a string. */
static void captured(const char *path, char *text, size_t cap)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(text, 1, cap - 1, f);
    text[got] = '\0';
    fclose(f);
    unlink(path);
}

/* The default handler: an error aborts the whole job with a message on stderr. */
static void fatal(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)n;
    M_OK(MPI_Init(NULL, NULL));
    if (me == 1) {
        if (!freopen((const char *)arg, "w", stderr))
            _exit(99);
        int v = 0;
        MPI_Send(&v, 1, MPI_INT, 77, 0, MPI_COMM_WORLD);
        _exit(98); /* not reached: the handler aborted */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* waits for rank 1, which never comes: the job ends */
    _exit(97);
}

START_TEST(test_mpi_env_fatal_handler_aborts_with_message)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/shmc_mpi_fatal.%d", (int)getpid());
    struct shmct_opts o = {.no_init = 1, .expect_fail = 1};
    int failed = shmct_run_opts(3, fatal, path, &o);
    ck_assert_int_ge(failed, 1);
    ck_assert(shmct_status(1) != 0 && shmct_status(1) != 98 << 8);
    char text[2048];
    captured(path, text, sizeof text);
    ck_assert_msg(strstr(text, "MPI_Send") && strstr(text, "MPI_ERR_RANK") &&
                      strstr(text, "MPI_COMM_WORLD"),
                  "message: %s", text);
}
END_TEST

/* MPI_Abort ends every process of the job with the code given, and says so. */
static void aborter(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)n;
    M_OK(MPI_Init(NULL, NULL));
    if (me == 1) {
        if (!freopen((const char *)arg, "w", stderr))
            _exit(99);
        MPI_Abort(MPI_COMM_WORLD, 7);
        _exit(98); /* not reached */
    }
    int v;
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never comes */
    _exit(97);
}

START_TEST(test_mpi_env_abort_ends_the_job)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/shmc_mpi_abort.%d", (int)getpid());
    struct shmct_opts o = {.no_init = 1, .expect_fail = 1};
    int failed = shmct_run_opts(3, aborter, path, &o);
    ck_assert_int_ge(failed, 1);
    int st = shmct_status(1);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 7, "rank 1 status %#x", st);
    for (int r = 0; r < 3; r += 2) /* the others did not run on past it */
        ck_assert(!(WIFEXITED(shmct_status(r)) && WEXITSTATUS(shmct_status(r)) == 97));
    char text[512];
    captured(path, text, sizeof text);
    ck_assert_msg(strstr(text, "rank 1 called MPI_Abort with error code 7"), "message: %s", text);
}
END_TEST

static void comms(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    MPI_Comm dup, half, rev, sub, grp_comm;
    int r, s, res;
    M_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    M_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    T_ASSERT(res == MPI_CONGRUENT, "dup congruent");
    M_OK(MPI_Comm_compare(dup, dup, &res));
    T_ASSERT(res == MPI_IDENT, "ident");
    /* messages on the duplicate do not match the world's */
    int a = me, b = -1;
    MPI_Request q;
    M_OK(MPI_Irecv(&b, 1, MPI_INT, me, 0, MPI_COMM_WORLD, &q));
    M_OK(MPI_Send(&a, 1, MPI_INT, me, 0, dup));
    int flag;
    M_OK(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
    T_ASSERT(!flag, "a message on the duplicate matched the world's receive");
    M_OK(MPI_Recv(&b, 1, MPI_INT, me, 0, dup, MPI_STATUS_IGNORE));
    M_OK(MPI_Send(&a, 1, MPI_INT, me, 0, MPI_COMM_WORLD));
    M_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    /* split by parity, reversed by key; MPI_UNDEFINED gets MPI_COMM_NULL */
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    M_OK(MPI_Comm_rank(half, &r));
    M_OK(MPI_Comm_size(half, &s));
    T_ASSERT(s == (n + 1 - me % 2) / 2 && r == s - 1 - me / 2, "split rank %d of %d", r, s);
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, 0, &sub));
    T_ASSERT(me == 0 ? sub != MPI_COMM_NULL : sub == MPI_COMM_NULL, "undefined color");
    if (sub != MPI_COMM_NULL)
        M_OK(MPI_Comm_free(&sub));
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &rev));
    M_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &res));
    T_ASSERT(res == (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "similar %d", res);
    /* groups: the world's, its evens, translated ranks, set algebra */
    MPI_Group world, evens, odds, u, x, e;
    M_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int range[1][3] = {{0, n - 1, 2}};
    M_OK(MPI_Group_range_incl(world, 1, range, &evens));
    M_OK(MPI_Group_difference(world, evens, &odds));
    M_OK(MPI_Group_union(odds, evens, &u));
    M_OK(MPI_Group_intersection(odds, evens, &x));
    M_OK(MPI_Group_size(x, &s));
    T_ASSERT(s == 0, "intersection empty");
    M_OK(MPI_Group_compare(u, world, &res));
    T_ASSERT(res == (n <= 2 ? MPI_IDENT : MPI_SIMILAR) || n == 1, "union %d", res);
    M_OK(MPI_Group_rank(evens, &r));
    T_ASSERT(me % 2 ? r == MPI_UNDEFINED : r == me / 2, "group rank");
    int from[2] = {0, n - 1}, to[2];
    M_OK(MPI_Group_translate_ranks(world, 2, from, evens, to));
    T_ASSERT(to[0] == 0 && to[1] == ((n - 1) % 2 ? MPI_UNDEFINED : (n - 1) / 2), "translate");
    int ex[1] = {0};
    M_OK(MPI_Group_excl(world, 1, ex, &e));
    M_OK(MPI_Group_size(e, &s));
    T_ASSERT(s == n - 1, "excl");
    /* MPI_Comm_create (collective) and MPI_Comm_create_group (members only) */
    M_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &sub));
    T_ASSERT(me % 2 ? sub == MPI_COMM_NULL : sub != MPI_COMM_NULL, "create");
    if (me % 2 == 0) {
        M_OK(MPI_Comm_rank(sub, &r));
        T_ASSERT(r == me / 2, "create rank");
        M_OK(MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, sub));
        M_OK(MPI_Comm_free(&sub));
        M_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &grp_comm));
        M_OK(MPI_Barrier(grp_comm));
        M_OK(MPI_Comm_free(&grp_comm));
    }
    M_CLASS(MPI_ERR_COMM, MPI_Comm_free((MPI_Comm[]){MPI_COMM_WORLD}));
    M_CLASS(MPI_ERR_RANK, MPI_Group_incl(world, 1, (int[]){n}, &x));
    MPI_Group *gs[] = {&world, &evens, &odds, &u, &x, &e};
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++)
        M_OK(MPI_Group_free(gs[i]));
    M_OK(MPI_Comm_free(&dup));
    M_OK(MPI_Comm_free(&half));
    M_OK(MPI_Comm_free(&rev));
    T_ASSERT(dup == MPI_COMM_NULL, "freed handle");
    M_CLASS(MPI_ERR_COMM, MPI_Barrier(half));
    /* Cartesian grid: coordinates, shifts and ranks agree */
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2];
    M_OK(MPI_Dims_create(n, 2, dims));
    T_ASSERT(dims[0] * dims[1] == n && dims[0] >= dims[1], "dims %d x %d", dims[0], dims[1]);
    MPI_Comm cart;
    M_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    M_OK(MPI_Cart_coords(cart, me, 2, coords));
    M_OK(MPI_Cart_rank(cart, coords, &r));
    T_ASSERT(r == me && coords[0] == me / dims[1] && coords[1] == me % dims[1], "coords");
    int src, dst;
    M_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    T_ASSERT(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "periodic shift");
    M_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    T_ASSERT(coords[1] + 1 < dims[1] ? dst == me + 1 : dst == MPI_PROC_NULL, "edge shift");
    M_OK(MPI_Topo_test(cart, &res));
    T_ASSERT(res == MPI_CART, "topo");
    M_OK(MPI_Comm_free(&cart));
    int d3[3] = {0, 3, 0};
    M_CLASS(MPI_ERR_DIMS, MPI_Dims_create(10, 3, d3));
    /* as balanced as can be (MPICH's dims5): 72 is 9 x 8, not 12 x 6; 286 in three */
    int d2[2] = {0, 0}, e3[3] = {0, 0, 0}, f3[3] = {0, 4, 0};
    M_OK(MPI_Dims_create(72, 2, d2));
    T_ASSERT(d2[0] == 9 && d2[1] == 8, "72: %d x %d", d2[0], d2[1]);
    M_OK(MPI_Dims_create(286, 3, e3));
    T_ASSERT(e3[0] == 13 && e3[1] == 11 && e3[2] == 2, "286: %d %d %d", e3[0], e3[1], e3[2]);
    M_OK(MPI_Dims_create(96, 3, f3));
    T_ASSERT(f3[0] == 6 && f3[1] == 4 && f3[2] == 4, "96 with 4 fixed: %d %d %d", f3[0], f3[1],
             f3[2]);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_env_communicators_groups_topologies)
{
    mt_run(1, comms, NULL);
    mt_run(4, comms, NULL);
    mt_run(6, comms, NULL);
}
END_TEST

/* Intercommunicators between the world's low and high halves: made, queried, merged in
 * both orders, and refused by the calls that do not take them. */
static void intercomms(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    mt_init();
    int left = me < n / 2, nl = n / 2, r, s, flag;
    MPI_Comm local, ic, merged;
    M_OK(MPI_Comm_split(MPI_COMM_WORLD, left, me, &local));
    /* arguments every leader gets wrong fail every member, nobody waits */
    M_CLASS(MPI_ERR_RANK, MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, n + 3, 5, &ic));
    M_CLASS(MPI_ERR_TAG, MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, left ? nl : 0, -2, &ic));
    M_CLASS(MPI_ERR_RANK, MPI_Intercomm_create(local, n, MPI_COMM_WORLD, 0, 5, &ic));
    /* leaders: the last member of each half */
    M_OK(MPI_Comm_size(local, &s));
    M_OK(MPI_Intercomm_create(local, s - 1, MPI_COMM_WORLD, left ? n - 1 : nl - 1, 5, &ic));
    M_OK(MPI_Comm_test_inter(ic, &flag));
    M_OK(MPI_Comm_rank(ic, &r));
    T_ASSERT(flag && r == (left ? me : me - nl), "inter %d rank %d", flag, r);
    M_OK(MPI_Comm_remote_size(ic, &s));
    T_ASSERT(s == (left ? n - nl : nl), "remote size %d", s);
    MPI_Group world, remote;
    M_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    M_OK(MPI_Comm_remote_group(ic, &remote));
    int zero = 0, wr;
    M_OK(MPI_Group_translate_ranks(remote, 1, &zero, world, &wr));
    T_ASSERT(wr == (left ? nl : 0), "remote group's first is world rank %d", wr);
    /* merged with the left half low: the world's order; then high: the right half first */
    for (int pass = 0; pass < 3; pass++) {
        int high = pass == 0 ? !left : pass == 1 ? left : 1;
        M_OK(MPI_Intercomm_merge(ic, high, &merged));
        M_OK(MPI_Comm_rank(merged, &r));
        M_OK(MPI_Comm_size(merged, &s));
        int want = pass == 1 ? (left ? me + (n - nl) : me - nl) : me;
        T_ASSERT(s == n && r == want, "merge %d: rank %d of %d, want %d", pass, r, s, want);
        int sum = 0;
        M_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, merged));
        T_ASSERT(sum == n * (n - 1) / 2, "sum %d", sum);
        M_OK(MPI_Comm_free(&merged));
    }
    /* one rank without a place for the result: it alone fails, the others are not held */
    MPI_Comm ic2 = MPI_COMM_NULL;
    int rc2 =
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, left ? nl : 0, 6, me == 0 ? NULL : &ic2);
    int c2 = -1;
    if (rc2 != MPI_SUCCESS)
        MPI_Error_class(rc2, &c2);
    T_ASSERT(me == 0 ? c2 == MPI_ERR_ARG : rc2 == MPI_SUCCESS, "NULL newintercomm: %d", rc2);
    if (me != 0)
        M_OK(MPI_Comm_free(&ic2));
    /* what an intercommunicator is not taken by (check_mpi_inter has what takes one) */
    M_CLASS(MPI_ERR_COMM, MPI_Scan(&r, &s, 1, MPI_INT, MPI_SUM, ic));
    int dims[1] = {0}, periods[1] = {0};
    M_CLASS(MPI_ERR_COMM, MPI_Cart_create(ic, 1, dims, periods, 0, &merged));
    M_CLASS(MPI_ERR_COMM, MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &merged));
    M_CLASS(MPI_ERR_COMM, MPI_Comm_remote_size(local, &s));
    M_CLASS(MPI_ERR_ARG, MPI_Comm_remote_group(ic, NULL));
    M_OK(MPI_Comm_free(&ic));
    M_CLASS(MPI_ERR_COMM, MPI_Comm_test_inter(ic, &flag));
    M_OK(MPI_Group_free(&world));
    M_OK(MPI_Group_free(&remote));
    M_OK(MPI_Comm_free(&local));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_env_intercommunicators)
{
    mt_run(2, intercomms, NULL);
    mt_run(5, intercomms, NULL);
}
END_TEST

static void types_info(shmc_comm *w, int me, int n, void *arg)
{
    (void)w;
    (void)arg;
    (void)me;
    (void)n;
    mt_init();
    MPI_Aint lb, ext, tlb, text;
    int size, len;
    char name[MPI_MAX_OBJECT_NAME];
    M_OK(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len));
    T_ASSERT(strcmp(name, "MPI_DOUBLE_INT") == 0, "name %s", name);
    M_OK(MPI_Type_size(MPI_DOUBLE_INT, &size));
    M_OK(MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext));
    T_ASSERT(size == 12 && lb == 0 && ext == 16, "double_int %d %ld", size, (long)ext);
    /* a 4x6 array's 2x3 block starting at (1, 2) */
    MPI_Datatype sub, hv, idx;
    M_OK(MPI_Type_create_subarray(2, (int[]){4, 6}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C,
                                  MPI_INT, &sub));
    M_OK(MPI_Type_commit(&sub));
    M_OK(MPI_Type_size(sub, &size));
    M_OK(MPI_Type_get_extent(sub, &lb, &ext));
    M_OK(MPI_Type_get_true_extent(sub, &tlb, &text));
    T_ASSERT(size == 24 && lb == 0 && ext == 96 && tlb == 32 && text == 4 * (6 + 3),
             "subarray %d %ld %ld %ld", size, (long)ext, (long)tlb, (long)text);
    int arr[24], out[6], pos = 0;
    for (int i = 0; i < 24; i++)
        arr[i] = i;
    M_OK(MPI_Pack(arr, 1, sub, out, sizeof out, &pos, MPI_COMM_WORLD));
    int want[6] = {8, 9, 10, 14, 15, 16};
    T_ASSERT(pos == 24 && memcmp(out, want, sizeof want) == 0, "subarray packed");
    /* hvector with a negative stride, indexed blocks */
    M_OK(MPI_Type_create_hvector(3, 1, -8, MPI_INT, &hv));
    M_OK(MPI_Type_get_extent(hv, &lb, &ext));
    T_ASSERT(lb == -16 && ext == 20, "negative stride %ld %ld", (long)lb, (long)ext);
    M_OK(MPI_Type_indexed(2, (int[]){2, 1}, (int[]){3, 0}, MPI_SHORT, &idx));
    M_OK(MPI_Type_commit(&idx));
    short sh[5] = {1, 2, 3, 4, 5}, shp[3];
    pos = 0;
    M_OK(MPI_Pack(sh, 1, idx, shp, sizeof shp, &pos, MPI_COMM_WORLD));
    T_ASSERT(shp[0] == 4 && shp[1] == 5 && shp[2] == 1, "indexed order of the map");
    M_CLASS(MPI_ERR_TRUNCATE, MPI_Pack(sh, 2, idx, shp, sizeof shp, (int[]){0}, MPI_COMM_WORLD));
    M_CLASS(MPI_ERR_TYPE, MPI_Type_free((MPI_Datatype[]){MPI_INT}));
    M_OK(MPI_Type_free(&sub));
    M_OK(MPI_Type_free(&hv));
    M_OK(MPI_Type_free(&idx));
    /* a struct is padded as C pads it; MPI-1 bound markers set the bounds as they say */
    struct rec {
        char c;
        double d;
        int i;
    };
    MPI_Datatype st, ub, lbt, two;
    M_OK(MPI_Type_create_struct(
        3, (int[]){1, 1, 1},
        (MPI_Aint[]){offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)},
        (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE, MPI_INT}, &st));
    M_OK(MPI_Type_get_extent(st, &lb, &ext));
    T_ASSERT(lb == 0 && ext == sizeof(struct rec), "padded struct extent %ld", (long)ext);
    M_OK(MPI_Type_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 12}, (MPI_Datatype[]){MPI_INT, MPI_UB},
                         &ub));
    M_OK(MPI_Type_contiguous(2, ub, &two));
    M_OK(MPI_Type_size(two, &size));
    M_OK(MPI_Type_get_extent(two, &lb, &ext));
    T_ASSERT(size == 8 && lb == 0 && ext == 24, "MPI_UB marker: %d %ld", size, (long)ext);
    M_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){-4, 0},
                                (MPI_Datatype[]){MPI_LB, MPI_SHORT}, &lbt));
    M_OK(MPI_Type_get_extent(lbt, &lb, &ext));
    T_ASSERT(lb == -4 && ext == 6, "MPI_LB marker: %ld %ld", (long)lb, (long)ext);
    M_CLASS(MPI_ERR_TYPE, MPI_Type_contiguous(2, MPI_UB, &two));
    M_CLASS(MPI_ERR_TYPE, MPI_Send(&size, 1, MPI_LB, 0, 0, MPI_COMM_WORLD));
    MPI_Datatype *made[] = {&st, &ub, &lbt, &two};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        M_OK(MPI_Type_free(made[i]));
    /* info objects */
    MPI_Info info, copy;
    char val[16];
    int nkeys;
    M_OK(MPI_Info_create(&info));
    M_OK(MPI_Info_set(info, "alpha", "1"));
    M_OK(MPI_Info_set(info, "beta", "two"));
    M_OK(MPI_Info_set(info, "alpha", "3"));
    M_OK(MPI_Info_dup(info, &copy));
    M_OK(MPI_Info_delete(info, "alpha"));
    M_OK(MPI_Info_get_nkeys(copy, &nkeys));
    M_OK(MPI_Info_get(copy, "alpha", sizeof val - 1, val, &len));
    T_ASSERT(nkeys == 2 && len && strcmp(val, "3") == 0, "info");
    M_CLASS(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "alpha"));
    M_OK(MPI_Info_free(&info));
    M_OK(MPI_Info_free(&copy));
    void *mem;
    M_OK(MPI_Alloc_mem(1000, MPI_INFO_NULL, &mem));
    memset(mem, 1, 1000);
    M_OK(MPI_Free_mem(mem));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_env_types_and_info)
{
    mt_run(1, types_info, NULL);
}
END_TEST

/* Datatype decoding: every combiner's envelope and contents, MPI_Type_match_size, components freed
 * before they are asked for, the handles get_contents gives decoding as the originals and freed by
 * the program; MPI 3/4 communicator calls: MPI_Comm_idup, MPI_Comm_dup_with_info,
 * MPI_Comm_set/get_info, MPI_Comm_disconnect, MPI_Comm_create_from_group, MPI_Info_create_env. */
/* first: the predefined first component, or MPI_DATATYPE_NULL for a derived one, which
 * must decode with combiner comp. */
static void decode_one(MPI_Datatype t, int combiner, int ni, int na, int nt, const int *ints,
                       const MPI_Aint *aints, MPI_Datatype first, int comp)
{
    int i_, a_, t_, c_;
    M_OK(MPI_Type_get_envelope(t, &i_, &a_, &t_, &c_));
    T_ASSERT(c_ == combiner && i_ == ni && a_ == na && t_ == nt, "envelope %d %d %d %d", c_, i_, a_,
             t_);
    int gi[16];
    MPI_Aint ga[8];
    MPI_Datatype gt[8];
    M_OK(MPI_Type_get_contents(t, 16, 8, 8, gi, ga, gt));
    for (int i = 0; i < ni; i++)
        T_ASSERT(gi[i] == ints[i], "combiner %d integer %d: %d, not %d", combiner, i, gi[i],
                 ints[i]);
    for (int i = 0; i < na; i++)
        T_ASSERT(ga[i] == aints[i], "combiner %d address %d", combiner, i);
    if (first != MPI_DATATYPE_NULL) {
        T_ASSERT(gt[0] == first, "combiner %d: the predefined component", combiner);
    } else { /* a derived component: a new handle that decodes as the original */
        int c0, x, y, z;
        M_OK(MPI_Type_get_envelope(gt[0], &x, &y, &z, &c0));
        T_ASSERT(c0 == comp, "the component decodes as combiner %d, not %d", c0, comp);
        M_OK(MPI_Type_free(&gt[0]));
    }
}

static void decoding(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    MPI_Datatype v, t;
    int i_, a_, t_, c_;
    M_OK(MPI_Type_get_envelope(MPI_INT, &i_, &a_, &t_, &c_));
    T_ASSERT(c_ == MPI_COMBINER_NAMED && !i_ && !a_ && !t_, "a named type");
    M_CLASS(MPI_ERR_TYPE, MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL));
    M_OK(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));
    decode_one(v, MPI_COMBINER_VECTOR, 3, 0, 1, (int[]){3, 2, 4}, NULL, MPI_DOUBLE, 0);
    M_OK(MPI_Type_contiguous(5, v, &t));
    M_OK(MPI_Type_free(&v)); /* the component, freed: still decodable through t */
    decode_one(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, (int[]){5}, NULL, MPI_DATATYPE_NULL,
               MPI_COMBINER_VECTOR);
    M_OK(MPI_Type_get_contents(t, 1, 0, 1, (int[1]){0}, NULL, &v));
    M_OK(MPI_Type_free(&t));
    MPI_Datatype inner = v; /* the handle get_contents gave: its own, usable alone */
    M_OK(MPI_Type_commit(&inner));
    int sz;
    M_OK(MPI_Type_size(inner, &sz));
    T_ASSERT(sz == 6 * 8, "size %d", sz);
    MPI_Aint d2[2] = {0, 64}, st = 48;
    M_OK(MPI_Type_create_hvector(2, 1, st, inner, &t));
    decode_one(t, MPI_COMBINER_HVECTOR, 2, 1, 1, (int[]){2, 1}, &st, MPI_DATATYPE_NULL,
               MPI_COMBINER_VECTOR);
    M_OK(MPI_Type_free(&t));
    M_OK(MPI_Type_indexed(2, (int[]){1, 2}, (int[]){0, 5}, MPI_INT, &t));
    decode_one(t, MPI_COMBINER_INDEXED, 5, 0, 1, (int[]){2, 1, 2, 0, 5}, NULL, MPI_INT, 0);
    M_OK(MPI_Type_free(&t));
    M_OK(MPI_Type_create_hindexed(2, (int[]){1, 2}, d2, MPI_INT, &t));
    decode_one(t, MPI_COMBINER_HINDEXED, 3, 2, 1, (int[]){2, 1, 2}, d2, MPI_INT, 0);
    M_OK(MPI_Type_free(&t));
    M_OK(MPI_Type_create_indexed_block(2, 3, (int[]){0, 7}, MPI_INT, &t));
    decode_one(t, MPI_COMBINER_INDEXED_BLOCK, 4, 0, 1, (int[]){2, 3, 0, 7}, NULL, MPI_INT, 0);
    M_OK(MPI_Type_free(&t));
    M_OK(MPI_Type_create_hindexed_block(2, 3, d2, MPI_INT, &t));
    decode_one(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 2, 1, (int[]){2, 3}, d2, MPI_INT, 0);
    M_OK(MPI_Type_free(&t));
    M_OK(MPI_Type_create_struct(2, (int[]){1, 3}, d2, (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &t));
    decode_one(t, MPI_COMBINER_STRUCT, 3, 2, 2, (int[]){2, 1, 3}, d2, MPI_INT, 0);
    M_OK(MPI_Type_free(&t));
    M_OK(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C,
                                  MPI_INT, &t));
    decode_one(t, MPI_COMBINER_SUBARRAY, 8, 0, 1, (int[]){2, 4, 5, 2, 3, 1, 2, MPI_ORDER_C}, NULL,
               MPI_INT, 0);
    M_OK(MPI_Type_free(&t));
    MPI_Aint lbx[2] = {-8, 40};
    M_OK(MPI_Type_create_resized(MPI_INT, lbx[0], lbx[1], &t));
    decode_one(t, MPI_COMBINER_RESIZED, 0, 2, 1, NULL, lbx, MPI_INT, 0);
    M_OK(MPI_Type_dup(t, &v));
    decode_one(v, MPI_COMBINER_DUP, 0, 0, 1, NULL, NULL, MPI_DATATYPE_NULL, MPI_COMBINER_RESIZED);
    M_OK(MPI_Type_free(&v));
    M_OK(MPI_Type_free(&t));
    M_CLASS(MPI_ERR_ARG, MPI_Type_get_envelope(MPI_INT, NULL, &a_, &t_, &c_));
    MPI_Datatype m;
    M_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
    T_ASSERT(m == MPI_REAL8, "real of 8 bytes");
    M_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &m));
    T_ASSERT(m == MPI_INTEGER2, "integer of 2 bytes");
    M_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m));
    T_ASSERT(m == MPI_DOUBLE_COMPLEX, "complex of 16 bytes");
    M_CLASS(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m));
    M_CLASS(MPI_ERR_ARG, MPI_Type_match_size(99, 4, &m));
    /* handle conversions: Fortran integers and ints name the same objects */
    MPI_Datatype back = MPI_Type_f2c(MPI_Type_c2f(inner));
    M_OK(MPI_Type_size(back, &sz));
    T_ASSERT(back == inner && sz == 48, "a type through MPI_Fint");
    T_ASSERT(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD &&
                 MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_SELF)) == MPI_COMM_SELF &&
                 MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM &&
                 MPI_Request_fromint(MPI_Request_toint(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL,
             "predefined handles through MPI_Fint and int");
    M_CLASS(MPI_ERR_COMM, MPI_Barrier(MPI_Comm_f2c(12345)));
    MPI_Status cs = {.MPI_SOURCE = 3, .MPI_TAG = 4, .MPI_ERROR = MPI_ERR_TAG}, back_st;
    MPI_Fint fs[MPI_F_STATUS_SIZE];
    M_OK(MPI_Status_set_elements(&cs, MPI_INT, 5));
    M_OK(MPI_Status_c2f(&cs, fs));
    M_OK(MPI_Status_f2c(fs, &back_st));
    int cnt5 = 0;
    M_OK(MPI_Get_count(&back_st, MPI_INT, &cnt5));
    T_ASSERT(fs[MPI_F_SOURCE] == 3 && fs[MPI_F_TAG] == 4 && fs[MPI_F_ERROR] == MPI_ERR_TAG &&
                 back_st.MPI_SOURCE == 3 && cnt5 == 5,
             "a status through Fortran integers");
    M_CLASS(MPI_ERR_ARG, MPI_Status_c2f(MPI_STATUS_IGNORE, fs));
    M_OK(MPI_Type_free(&inner));

    /* communicators of MPI 3 and 4 */
    MPI_Comm d, e;
    MPI_Request r;
    MPI_Info info, used;
    int flag, nk;
    M_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
    M_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    M_OK(MPI_Barrier(d));
    M_OK(MPI_Info_create(&info));
    M_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    M_OK(MPI_Comm_dup_with_info(d, info, &e));
    M_OK(MPI_Comm_set_info(e, info));
    M_OK(MPI_Comm_get_info(e, &used));
    M_OK(MPI_Info_get_nkeys(used, &nk));
    M_OK(MPI_Info_free(&used));
    M_CLASS(MPI_ERR_INFO, MPI_Comm_set_info(e, 4093));
    M_OK(MPI_Comm_free(&e));
    /* disconnect: a send started on it completes first (its receiver posts after a
     * sleep); inactive persistent requests on it stay the program's; the world refused */
    int tok = me, got = -1;
    MPI_Request pr, sr;
    M_OK(MPI_Recv_init(&got, 1, MPI_INT, (me + n - 1) % n, 3, d, &pr));
    M_OK(MPI_Isend(&tok, 1, MPI_INT, (me + 1) % n, 4, d, &sr));
    if (me % 2)
        usleep(20000);
    M_OK(MPI_Recv(&got, 1, MPI_INT, (me + n - 1) % n, 4, d, MPI_STATUS_IGNORE));
    T_ASSERT(got == (me + n - 1) % n, "before disconnect: %d", got);
    M_OK(MPI_Comm_disconnect(&d));
    T_ASSERT(d == MPI_COMM_NULL, "disconnect left the handle");
    M_OK(MPI_Request_free(&pr));
    M_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    MPI_Comm world = MPI_COMM_WORLD;
    M_CLASS(MPI_ERR_COMM, MPI_Comm_disconnect(&world));
    M_OK(MPI_Info_free(&info));
    /* the even ranks, by group alone */
    MPI_Group wg, evens;
    M_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int ev[8], ne = 0;
    for (int i = 0; i < n; i += 2)
        ev[ne++] = i;
    M_OK(MPI_Group_incl(wg, ne, ev, &evens));
    M_OK(MPI_Comm_create_from_group(evens, "org.shmcomm.test.evens", MPI_INFO_NULL,
                                    MPI_ERRORS_RETURN, &d));
    if (me % 2 == 0) {
        int sz2, sum = 0;
        M_OK(MPI_Comm_size(d, &sz2));
        M_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, d));
        T_ASSERT(sz2 == ne && sum == ne * (ne - 1), "even communicator: %d ranks, sum %d", sz2,
                 sum);
        M_OK(MPI_Comm_free(&d));
    } else {
        T_ASSERT(d == MPI_COMM_NULL, "an odd rank is not in it");
    }
    M_OK(MPI_Group_free(&evens));
    M_OK(MPI_Group_free(&wg));
    char *args[] = {"prog", "-v", "x", NULL};
    char val[64];
    M_OK(MPI_Info_create_env(3, args, &info));
    M_OK(MPI_Info_get(info, "command", 63, val, &flag));
    T_ASSERT(flag && !strcmp(val, "prog"), "command %s", val);
    M_OK(MPI_Info_get(info, "argv", 63, val, &flag));
    T_ASSERT(flag && !strcmp(val, "-v x"), "argv %s", val);
    M_OK(MPI_Info_free(&info));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_env_decoding_and_mpi4_communicators)
{
    mt_run(1, decoding, NULL);
    mt_run(3, decoding, NULL);
}
END_TEST

/* MPI_Type_create_darray against the definition: a global array holding each element's
 * index, packed through the type, gives the owned indices in the local array's order;
 * one-dimensional examples worked by hand; its decoding. */
static void darray_case(int size, int rank, int nd, const int *g, const int *dist, const int *darg,
                        const int *p, int order, const int *want, int nwant)
{
    MPI_Datatype t;
    M_OK(MPI_Type_create_darray(size, rank, nd, g, dist, darg, p, order, MPI_INT, &t));
    M_OK(MPI_Type_commit(&t));
    int total = 1, sz;
    for (int d = 0; d < nd; d++)
        total *= g[d];
    MPI_Aint lb, ext;
    M_OK(MPI_Type_get_extent(t, &lb, &ext));
    M_OK(MPI_Type_size(t, &sz));
    T_ASSERT(lb == 0 && ext == (MPI_Aint)total * 4 && sz == nwant * 4,
             "darray rank %d: lb %ld extent %ld size %d", rank, (long)lb, (long)ext, sz);
    int *global = malloc((size_t)total * sizeof *global), *packed = malloc((size_t)total * 4 + 4);
    for (int i = 0; i < total; i++)
        global[i] = i;
    int pos = 0;
    M_OK(MPI_Pack(global, 1, t, packed, total * 4 + 4, &pos, MPI_COMM_SELF));
    for (int i = 0; i < nwant; i++)
        T_ASSERT(packed[i] == want[i], "darray rank %d element %d: %d, not %d", rank, i, packed[i],
                 want[i]);
    int ni, na, ntp, comb;
    M_OK(MPI_Type_get_envelope(t, &ni, &na, &ntp, &comb));
    T_ASSERT(comb == MPI_COMBINER_DARRAY && ni == 4 * nd + 4 && na == 0 && ntp == 1,
             "darray envelope");
    free(global);
    free(packed);
    M_OK(MPI_Type_free(&t));
}

static void darrays(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)me, (void)n, (void)arg;
    mt_init();
    const int g1[] = {10}, p3[] = {3}, dflt[] = {MPI_DISTRIBUTE_DFLT_DARG}, two[] = {2};
    const int blk[] = {MPI_DISTRIBUTE_BLOCK}, cyc[] = {MPI_DISTRIBUTE_CYCLIC};
    darray_case(3, 0, 1, g1, blk, dflt, p3, MPI_ORDER_C, (int[]){0, 1, 2, 3}, 4);
    darray_case(3, 2, 1, g1, blk, dflt, p3, MPI_ORDER_C, (int[]){8, 9}, 2);
    darray_case(3, 0, 1, g1, cyc, two, p3, MPI_ORDER_C, (int[]){0, 1, 6, 7}, 4);
    darray_case(3, 1, 1, g1, cyc, two, p3, MPI_ORDER_C, (int[]){2, 3, 8, 9}, 4);
    darray_case(3, 2, 1, g1, cyc, dflt, p3, MPI_ORDER_FORTRAN, (int[]){2, 5, 8}, 3);
    /* 4 x 6 over a 2 x 2 grid (row-major ranks): rank 1 is grid (0, 1); blocks of 2 x 3 */
    const int g2[] = {4, 6}, p22[] = {2, 2}, b2[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    const int d2[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    darray_case(4, 1, 2, g2, b2, d2, p22, MPI_ORDER_C, (int[]){3, 4, 5, 9, 10, 11}, 6);
    /* Fortran order: dimension 0 fastest, element (i, j) at i + 4 j */
    darray_case(4, 1, 2, g2, b2, d2, p22, MPI_ORDER_FORTRAN, (int[]){12, 13, 16, 17, 20, 21}, 6);
    /* cyclic by rows, nothing split by columns */
    const int cn[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, p21[] = {2, 1};
    darray_case(2, 1, 2, g2, cn, d2, p21, MPI_ORDER_C,
                (int[]){6, 7, 8, 9, 10, 11, 18, 19, 20, 21, 22, 23}, 12);
    MPI_Datatype t;
    M_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(4, 0, 1, g1, blk, dflt, p3, MPI_ORDER_C, MPI_INT,
                                                &t)); /* 3 processes in the grid, size 4 */
    M_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(3, 0, 1, g1, blk, (int[]){2}, p3, MPI_ORDER_C,
                                                MPI_INT, &t)); /* blocks of 2 cannot cover 10 */
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_env_distributed_arrays)
{
    mt_run(1, darrays, NULL);
}
END_TEST

/* Topologies beyond the plain grid: MPI_Cart_sub and MPI_Cart_map; a graph (a ring with a
 * chord) made, copied by MPI_Comm_dup and queried; distributed graphs made adjacent
 * (weighted) and from edges any rank gives (unweighted); refusals. Also MPI 4's
 * MPI_Info_get_string, MPI_Info_get_valuelen and MPI_Pcontrol. */
static void topologies(shmc_comm *w, int me, int n, void *arg)
{
    (void)w, (void)arg;
    mt_init();
    MPI_Comm grid, row, g, d, dd;
    int st, r, k;
    /* a 2 x (n/2) grid (n even), split into rows */
    M_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, n / 2}, (int[]){0, 1}, 0, &grid));
    M_OK(MPI_Cart_sub(grid, (int[]){0, 1}, &row));
    int rs, rr, dims[2], per[2], co[2];
    M_OK(MPI_Comm_size(row, &rs));
    M_OK(MPI_Comm_rank(row, &rr));
    M_OK(MPI_Cart_get(row, 1, dims, per, co));
    T_ASSERT(rs == n / 2 && rr == me % (n / 2) && dims[0] == n / 2 && per[0] == 1 && co[0] == rr,
             "row of rank %d: %d of %d", me, rr, rs);
    M_OK(MPI_Topo_test(row, &st));
    T_ASSERT(st == MPI_CART, "a row is a grid");
    M_OK(MPI_Comm_free(&row));
    /* nothing kept: a zero-dimensional grid, the first process alone (MPICH's cartsuball) */
    M_OK(MPI_Cart_sub(grid, (int[]){0, 0}, &row));
    T_ASSERT(me == 0 ? row != MPI_COMM_NULL : row == MPI_COMM_NULL, "no dimensions kept: %d", row);
    if (me == 0) {
        M_OK(MPI_Comm_compare(MPI_COMM_SELF, row, &st));
        T_ASSERT(st == MPI_CONGRUENT, "the first process alone: %d", st);
        M_OK(MPI_Comm_free(&row));
    }
    M_OK(MPI_Comm_free(&grid));
    M_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, (int[]){n - 1}, (int[]){0}, &r));
    T_ASSERT(r == (me < n - 1 ? me : MPI_UNDEFINED), "cart_map");
    /* a ring with a chord 0 - n/2 */
    int index[8], edges[24], ne = 0;
    for (int i = 0; i < n; i++) {
        edges[ne++] = (i + n - 1) % n;
        edges[ne++] = (i + 1) % n;
        if (i == 0 || i == n / 2)
            edges[ne++] = i == 0 ? n / 2 : 0;
        index[i] = ne;
    }
    M_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &g));
    M_OK(MPI_Comm_dup(g, &d));
    M_OK(MPI_Topo_test(d, &st));
    T_ASSERT(st == MPI_GRAPH, "a dup keeps the graph");
    int nn, nedge, nb[4], gi[8], ge[24];
    M_OK(MPI_Graphdims_get(d, &nn, &nedge));
    T_ASSERT(nn == n && nedge == ne, "graph dims %d %d", nn, nedge);
    M_OK(MPI_Graph_get(d, 8, 24, gi, ge));
    T_ASSERT(!memcmp(gi, index, (size_t)n * sizeof *gi) &&
                 !memcmp(ge, edges, (size_t)ne * sizeof *ge),
             "graph_get");
    M_OK(MPI_Graph_neighbors_count(d, 0, &k));
    M_OK(MPI_Graph_neighbors(d, 0, 4, nb));
    T_ASSERT(k == 3 && nb[0] == n - 1 && nb[1] == 1 && nb[2] == n / 2, "node 0's neighbours");
    M_CLASS(MPI_ERR_RANK, MPI_Graph_neighbors_count(d, n, &k));
    M_CLASS(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(d, &k));
    M_CLASS(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(d, &k, &k, &k));
    M_OK(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &r));
    T_ASSERT(r == me, "graph_map");
    M_OK(MPI_Comm_free(&d));
    M_OK(MPI_Comm_free(&g));
    /* adjacent: from the left, to the right, weighted by rank */
    int left = (me + n - 1) % n, right = (me + 1) % n, lw = 10 + left, rw = 10 + me;
    M_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &lw, 1, &right, &rw,
                                        MPI_INFO_NULL, 0, &dd));
    int in, out, wtd, s, sw, t, tw;
    M_OK(MPI_Topo_test(dd, &st));
    M_OK(MPI_Dist_graph_neighbors_count(dd, &in, &out, &wtd));
    M_OK(MPI_Dist_graph_neighbors(dd, 1, &s, &sw, 1, &t, &tw));
    T_ASSERT(st == MPI_DIST_GRAPH && in == 1 && out == 1 && wtd && s == left && sw == lw &&
                 t == right && tw == rw,
             "adjacent graph");
    M_OK(MPI_Comm_free(&dd));
    /* from edges: rank 0 gives every edge i -> i+1, the others none */
    int srcs[8], degs[8], dsts[8];
    for (int i = 0; i < n; i++) {
        srcs[i] = i;
        degs[i] = 1;
        dsts[i] = (i + 1) % n;
    }
    M_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? n : 0, srcs, degs, dsts, MPI_UNWEIGHTED,
                               MPI_INFO_NULL, 0, &dd));
    M_OK(MPI_Dist_graph_neighbors_count(dd, &in, &out, &wtd));
    M_OK(MPI_Dist_graph_neighbors(dd, 1, &s, MPI_UNWEIGHTED, 1, &t, MPI_UNWEIGHTED));
    T_ASSERT(in == 1 && out == 1 && !wtd && s == left && t == right, "graph from edges");
    M_OK(MPI_Comm_free(&dd));
    /* every rank refuses together when one passes a bad edge */
    int bad = n + 5;
    M_CLASS(me == 0 ? MPI_ERR_RANK : MPI_ERR_ARG,
            MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? 1 : 0, srcs, degs, &bad, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &dd));
    M_CLASS(MPI_ERR_RANK,
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dd));
    M_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* info strings */
    MPI_Info info;
    char val[8];
    int len = 0, flag;
    M_OK(MPI_Info_create(&info));
    M_OK(MPI_Info_set(info, "k", "a longer value"));
    M_OK(MPI_Info_get_string(info, "k", &len, val, &flag));
    T_ASSERT(flag && len == 15, "length asked: %d", len);
    len = 8;
    M_OK(MPI_Info_get_string(info, "k", &len, val, &flag));
    T_ASSERT(flag && len == 15 && !strcmp(val, "a longe"), "truncated: %s %d", val, len);
    M_OK(MPI_Info_get_valuelen(info, "k", &len, &flag));
    T_ASSERT(flag && len == 14, "valuelen %d", len);
    M_OK(MPI_Info_get_valuelen(info, "none", &len, &flag));
    T_ASSERT(!flag, "no such key");
    M_OK(MPI_Info_free(&info));
    M_OK(MPI_Pcontrol(1));
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_env_graph_topologies_and_info_strings)
{
    mt_run(2, topologies, NULL);
    mt_run(4, topologies, NULL);
}
END_TEST

/* As a user does: shmcc compiles an MPI program, shmrun runs it. */
START_TEST(test_mpi_env_shmcc_builds_and_shmrun_runs)
{
    const char *b = getenv("SHMC_TEST_BUILD"), *cf = getenv("SHMC_TEST_CFLAGS");
    ck_assert_ptr_nonnull(b);
    char dir[] = "/tmp/shmc_shmcc.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cmd[2048], src[256], out[256];
    snprintf(src, sizeof src, "%s/ring.c", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#include <mpi.h>\n#include <stdio.h>\n"
          "int main(int argc, char **argv) {\n"
          "  int r, n, v, sum;\n  MPI_Init(&argc, &argv);\n"
          "  MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);\n"
          "  MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 0, &v, 1, MPI_INT, (r + n - 1) % n, 0,\n"
          "               MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
          "  MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);\n"
          "  if (r == 0) printf(\"sum %d of %d\\n\", sum, n);\n"
          "  MPI_Finalize();\n  return 0;\n}\n",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s/bin/shmcc --showme x.c | grep -q -- -lshmcomm_mpi", b);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/bin/shmcc %s -o %s/ring %s && %s/bin/shmrun -n 3 %s/ring > %s", b,
             cf ? cf : "", dir, src, b, dir, out);
    ck_assert_int_eq(system(cmd), 0);
    f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    char line[128] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_str_eq(line, "sum 3 of 3\n");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *mpi_env_suite(void)
{
    Suite *s = suite_create("mpi_env");
    TCase *t = tcase_create("mpi_env");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_mpi_env_startup_and_errors);
    tcase_add_test(t, test_mpi_env_user_errhandler);
    tcase_add_test(t, test_mpi_env_info_outside_init);
    tcase_add_test(t, test_mpi_env_fatal_handler_aborts_with_message);
    tcase_add_test(t, test_mpi_env_abort_ends_the_job);
    tcase_add_test(t, test_mpi_env_communicators_groups_topologies);
    tcase_add_test(t, test_mpi_env_intercommunicators);
    tcase_add_test(t, test_mpi_env_types_and_info);
    tcase_add_test(t, test_mpi_env_decoding_and_mpi4_communicators);
    tcase_add_test(t, test_mpi_env_graph_topologies_and_info_strings);
    tcase_add_test(t, test_mpi_env_distributed_arrays);
    tcase_add_test(t, test_mpi_env_shmcc_builds_and_shmrun_runs);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_env_suite());
}
