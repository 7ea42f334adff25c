/*
 * The MPI interface's neighbourhood collectives against what each neighbour sent, worked
 * out here from the topology: a periodic ring (where at 1 and 2 ranks both neighbours are
 * one rank, so the blocks must match by direction), a grid that is not periodic (the
 * missing neighbours' blocks left alone), a graph, a distributed graph with two edges
 * between the same ranks (matched in order); strided and mixed datatypes (the v and w
 * forms), the large-count forms, nonblocking ones several in flight, persistent ones
 * started again with new data, and the refusals, after which the calls still work.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define B 3 /* elements per block */

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* The value rank r puts in element e of its block for neighbour slot j. */
static int val(int r, int j, int e)
{
    return 1000 * r + 10 * j + e;
}

static void expect(const int *got, int want, const char *what, int j, int e)
{
    if (*got != want)
        ck_abort_msg("%s: block %d element %d is %d, expected %d", what, j, e, *got, want);
}

/* A periodic ring: slot 0 is the neighbour below, slot 1 the one above; what a rank gets
 * from below is what that rank sent upwards (its slot 1). */
static void ring(int me, int n)
{
    MPI_Comm c;
    int dims[1] = {n}, periods[1] = {1};
    M_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    int s[2 * B], r[2 * B];
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < B; e++)
            s[j * B + e] = val(me, j, e);
    M_OK(MPI_Neighbor_alltoall(s, B, MPI_INT, r, B, MPI_INT, c));
    int below = mod(me - 1, n), above = mod(me + 1, n);
    for (int e = 0; e < B; e++) {
        expect(&r[e], val(below, 1, e), "ring alltoall from below", 0, e);
        expect(&r[B + e], val(above, 0, e), "ring alltoall from above", 1, e);
    }
    M_OK(MPI_Neighbor_allgather(s, B, MPI_INT, r, B, MPI_INT, c));
    for (int e = 0; e < B; e++) {
        expect(&r[e], val(below, 0, e), "ring allgather", 0, e);
        expect(&r[B + e], val(above, 0, e), "ring allgather", 1, e);
    }
    M_OK(MPI_Comm_free(&c));
}

/* A grid of two dimensions that is not periodic: 4 slots (down, up in each dimension);
 * blocks from beyond an edge stay -1. */
static void grid(int me, int n)
{
    int dims[2] = {0, 0}, periods[2] = {0, 0}, co[2];
    M_OK(MPI_Dims_create(n, 2, dims));
    MPI_Comm c;
    M_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    M_OK(MPI_Cart_coords(c, me, 2, co));
    int s[4 * B], r[4 * B];
    for (int j = 0; j < 4; j++)
        for (int e = 0; e < B; e++)
            s[j * B + e] = val(me, j, e);
    for (int i = 0; i < 4 * B; i++)
        r[i] = -1;
    MPI_Request q;
    M_OK(MPI_Ineighbor_alltoall(s, B, MPI_INT, r, B, MPI_INT, c, &q));
    M_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int d = 0; d < 2; d++) {
        int lo, hi;
        M_OK(MPI_Cart_shift(c, d, 1, &lo, &hi));
        for (int e = 0; e < B; e++) {
            expect(&r[(2 * d) * B + e], lo == MPI_PROC_NULL ? -1 : val(lo, 2 * d + 1, e),
                   "grid from below", 2 * d, e);
            expect(&r[(2 * d + 1) * B + e], hi == MPI_PROC_NULL ? -1 : val(hi, 2 * d, e),
                   "grid from above", 2 * d + 1, e);
        }
    }
    M_OK(MPI_Comm_free(&c));
}

/* A graph (MPI_Graph_create) in which node i's neighbours are i+1 and i+2 (mod n), both
 * ways, for the v-form of allgather with blocks at displacements of their own. */
static void graph(int me, int n)
{
    int *index = malloc((size_t)n * sizeof *index),
        *edges = malloc((size_t)(4 * n) * sizeof *edges);
    int k = 0;
    for (int i = 0; i < n; i++) {
        edges[k++] = mod(i - 2, n);
        edges[k++] = mod(i - 1, n);
        edges[k++] = mod(i + 1, n);
        edges[k++] = mod(i + 2, n);
        index[i] = k;
    }
    MPI_Comm c;
    M_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &c));
    int deg;
    M_OK(MPI_Graph_neighbors_count(c, me, &deg));
    ck_assert_int_eq(deg, 4);
    int s[B], r[4 * (B + 2)], counts[4], displs[4];
    for (int e = 0; e < B; e++)
        s[e] = val(me, 0, e);
    for (int j = 0; j < 4; j++) {
        counts[j] = B;
        displs[j] = (3 - j) * (B + 2); /* reversed, with gaps */
    }
    for (int i = 0; i < 4 * (B + 2); i++)
        r[i] = -1;
    M_OK(MPI_Neighbor_allgatherv(s, B, MPI_INT, r, counts, displs, MPI_INT, c));
    for (int j = 0; j < 4; j++) {
        int from = edges[(me ? index[me - 1] : 0) + j];
        for (int e = 0; e < B; e++)
            expect(&r[displs[j] + e], val(from, 0, e), "graph allgatherv", j, e);
        expect(&r[displs[j] + B], -1, "graph allgatherv's gap", j, B);
    }
    M_OK(MPI_Comm_free(&c));
    free(index);
    free(edges);
}

/* A distributed graph with two edges to the rank above: the two blocks arrive in order.
 * The strided v-form and the w-form with mixed types, then the large-count form. */
static void dist(int me, int n)
{
    int up = mod(me + 1, n), down = mod(me - 1, n);
    int srcs[2] = {down, down}, dsts[2] = {up, up};
    MPI_Comm c;
    M_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    MPI_Datatype every2;
    M_OK(MPI_Type_vector(B, 1, 2, MPI_INT, &every2));
    M_OK(MPI_Type_commit(&every2));
    /* whole vectors of every2 (B ints, every other one; extent 2B - 1 ints), slot j's
     * at j extents */
    MPI_Aint ext, lb;
    M_OK(MPI_Type_get_extent(every2, &lb, &ext));
    ck_assert_int_eq((int)ext, (2 * B - 1) * (int)sizeof(int));
    int s[2 * (2 * B - 1)], r[2 * (2 * B - 1)], counts[2] = {1, 1}, displs[2] = {0, 1};
    for (int i = 0; i < 2 * (2 * B - 1); i++) {
        s[i] = -7; /* the holes: never sent */
        r[i] = -1;
    }
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < B; e++)
            s[j * (2 * B - 1) + 2 * e] = val(me, j, e);
    M_OK(MPI_Neighbor_alltoallv(s, counts, displs, every2, r, counts, displs, every2, c));
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < B; e++) {
            expect(&r[j * (2 * B - 1) + 2 * e], val(down, j, e), "dist alltoallv", j, e);
            if (e + 1 < B)
                expect(&r[j * (2 * B - 1) + 2 * e + 1], -1, "dist alltoallv's hole", j, e);
        }

    /* w-form: slot 0 is B ints, slot 1 is B doubles, at byte displacements */
    int si[B], ri[B];
    double sd[B], rd[B];
    for (int e = 0; e < B; e++) {
        si[e] = val(me, 0, e);
        sd[e] = val(me, 1, e) + 0.5;
        ri[e] = -1;
        rd[e] = -1;
    }
    MPI_Aint a0, a1, b0, b1;
    M_OK(MPI_Get_address(si, &a0));
    M_OK(MPI_Get_address(sd, &a1));
    M_OK(MPI_Get_address(ri, &b0));
    M_OK(MPI_Get_address(rd, &b1));
    int wc[2] = {B, B};
    MPI_Aint sdis[2] = {0, a1 - a0}, rdis[2] = {0, b1 - b0};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    M_OK(MPI_Neighbor_alltoallw(si, wc, sdis, ty, ri, wc, rdis, ty, c));
    for (int e = 0; e < B; e++) {
        expect(&ri[e], val(down, 0, e), "dist alltoallw ints", 0, e);
        if (rd[e] != val(down, 1, e) + 0.5)
            ck_abort_msg("dist alltoallw doubles: element %d is %g", e, rd[e]);
    }

    /* large-count form, in order on the two edges */
    MPI_Count cc[2] = {B, B};
    MPI_Aint cd[2] = {0, B};
    int s2[2 * B], r2[2 * B];
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < B; e++)
            s2[j * B + e] = val(me, j, e);
    M_OK(MPI_Neighbor_alltoallv_c(s2, cc, cd, MPI_INT, r2, cc, cd, MPI_INT, c));
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < B; e++)
            expect(&r2[j * B + e], val(down, j, e), "dist alltoallv_c", j, e);
    M_OK(MPI_Type_free(&every2));
    M_OK(MPI_Comm_free(&c));
}

/* Several nonblocking ones in flight, completed in the other order, and a persistent
 * all-to-all started three times with new data each time. */
static void in_flight(int me, int n)
{
    MPI_Comm c;
    int dims[1] = {n}, periods[1] = {1};
    M_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    enum { K = 4 };
    int s[K][2 * B], r[K][2 * B];
    MPI_Request q[K];
    for (int k = 0; k < K; k++) {
        for (int j = 0; j < 2; j++)
            for (int e = 0; e < B; e++)
                s[k][j * B + e] = val(me, j, e) + 100000 * k;
        M_OK(MPI_Ineighbor_alltoall(s[k], B, MPI_INT, r[k], B, MPI_INT, c, &q[k]));
    }
    for (int k = K - 1; k >= 0; k--)
        M_OK(MPI_Wait(&q[k], MPI_STATUS_IGNORE));
    int below = mod(me - 1, n), above = mod(me + 1, n);
    for (int k = 0; k < K; k++)
        for (int e = 0; e < B; e++) {
            expect(&r[k][e], val(below, 1, e) + 100000 * k, "in flight", 0, e);
            expect(&r[k][B + e], val(above, 0, e) + 100000 * k, "in flight", 1, e);
        }
    MPI_Request p;
    M_OK(MPI_Neighbor_alltoall_init(s[0], B, MPI_INT, r[0], B, MPI_INT, c, MPI_INFO_NULL, &p));
    for (int round = 0; round < 3; round++) {
        for (int j = 0; j < 2; j++)
            for (int e = 0; e < B; e++)
                s[0][j * B + e] = val(me, j, e) + 7 * round;
        M_OK(MPI_Start(&p));
        M_OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
        for (int e = 0; e < B; e++) {
            expect(&r[0][e], val(below, 1, e) + 7 * round, "persistent", 0, e);
            expect(&r[0][B + e], val(above, 0, e) + 7 * round, "persistent", 1, e);
        }
    }
    M_OK(MPI_Request_free(&p));
    M_OK(MPI_Comm_free(&c));
}

/* The refusals, each with its class, and the calls still work after them. */
static void refusals(int me, int n)
{
    int s[2 * B] = {0}, r[2 * B] = {0};
    MPI_Request q;
    M_CLASS(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_WORLD));
    MPI_Comm c;
    int dims[1] = {n}, periods[1] = {1};
    M_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    M_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    M_CLASS(MPI_ERR_BUFFER, MPI_Neighbor_alltoall(MPI_IN_PLACE, B, MPI_INT, r, B, MPI_INT, c));
    M_CLASS(MPI_ERR_COUNT, MPI_Neighbor_alltoall(s, -1, MPI_INT, r, B, MPI_INT, c));
    M_CLASS(MPI_ERR_TYPE, MPI_Neighbor_alltoall(s, B, MPI_DATATYPE_NULL, r, B, MPI_INT, c));
    M_CLASS(MPI_ERR_ARG, MPI_Ineighbor_alltoall(s, B, MPI_INT, r, B, MPI_INT, c, NULL));
    M_CLASS(MPI_ERR_ARG, MPI_Neighbor_alltoallv(s, NULL, NULL, MPI_INT, r, NULL, NULL, MPI_INT, c));
    M_CLASS(MPI_ERR_COMM, MPI_Ineighbor_alltoall(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_NULL, &q));
    for (int i = 0; i < 2 * B; i++)
        s[i] = val(me, i / B, i % B);
    M_OK(MPI_Neighbor_alltoall(s, B, MPI_INT, r, B, MPI_INT, c));
    for (int e = 0; e < B; e++)
        expect(&r[e], val(mod(me - 1, n), 1, e), "after the refusals", 0, e);
    M_OK(MPI_Comm_free(&c));
}

static void everything(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0, (void)arg;
    mt_init();
    ring(me, n);
    grid(me, n);
    graph(me, n);
    dist(me, n);
    in_flight(me, n);
    refusals(me, n);
    M_OK(MPI_Finalize());
}

START_TEST(test_mpi_neighbor)
{
    mt_run(_i, everything, NULL);
}
END_TEST

static Suite *mpi_neighbor_suite(void)
{
    Suite *s = suite_create("mpi_neighbor");
    TCase *t = tcase_create("mpi_neighbor");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_mpi_neighbor, 1, 5);
    tcase_add_loop_test(t, test_mpi_neighbor, 6, 7);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(mpi_neighbor_suite());
}
