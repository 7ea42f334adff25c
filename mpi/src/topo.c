/*
 * Cartesian topologies: MPI_Cart_create (the first prod(dims) ranks in their order; one
 * machine has no placement to improve, so reorder changes nothing), MPI_Cart_sub, the
 * coordinate queries and shifts, MPI_Cart_map, MPI_Dims_create and MPI_Topo_test. Graph
 * and distributed graph topologies are graph.c's.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

static struct shmc_mpi_comm *cart(MPI_Comm h, int *rc)
{
    struct shmc_mpi_comm *c = shmc_mpi__comm(h, rc);
    if (c && c->ndims == 0) {
        *rc = shmc_mpi__err(MPI_ERR_TOPOLOGY, "communicator %d has no Cartesian topology", h);
        return NULL;
    }
    return c;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    (void)reorder;
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm_old, &rc);
    if (!c)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    long n = 1;
    if (ndims < 0)
        rc = shmc_mpi__err(MPI_ERR_DIMS, "ndims %d is negative", ndims);
    else if (ndims > 0 && (!dims || !periods))
        rc = shmc_mpi__err(MPI_ERR_ARG, "dims or periods is NULL");
    else if (!comm_cart)
        rc = shmc_mpi__err(MPI_ERR_ARG, "comm_cart is NULL");
    for (int i = 0; rc == MPI_SUCCESS && i < ndims; i++) {
        if (dims[i] <= 0)
            rc = shmc_mpi__err(MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
        else if ((n *= dims[i]) > c->size)
            rc = shmc_mpi__err(MPI_ERR_TOPOLOGY, "the grid has more points than the %d ranks",
                               c->size);
    }
    MPI_Comm out = MPI_COMM_NULL;
    /* Every rank takes part in the split, a rank with bad arguments as no color. */
    shmc_comm *sc = NULL;
    int err = shmc_comm_split(c->c, rc == MPI_SUCCESS && c->rank < n ? 0 : -1, c->rank, &sc);
    if (rc != MPI_SUCCESS) {
        shmc_comm_free(&sc);
        return SHMC_MPI_RAISE(comm_old, rc);
    }
    if (err != SHMC_OK)
        return SHMC_MPI_RAISE(comm_old, shmc_mpi__from_shmc(err));
    if (sc) {
        int *wr = malloc((size_t)n * sizeof *wr);
        if (!wr) {
            shmc_comm_free(&sc);
            return SHMC_MPI_RAISE(comm_old, shmc_mpi__err(MPI_ERR_NO_MEM, "a communicator"));
        }
        memcpy(wr, c->world, (size_t)n * sizeof *wr); /* the first n ranks, in order */
        if ((rc = shmc_mpi__comm_new(sc, wr, c, &out)) != MPI_SUCCESS)
            return SHMC_MPI_RAISE(comm_old, rc);
        struct shmc_mpi_comm *nc = shmc_mpi__table_get(&shmc_mpi__comms, out);
        size_t k = (size_t)(ndims ? ndims : 1);
        nc->dims = malloc(k * sizeof *nc->dims);
        nc->periods = malloc(k * sizeof *nc->periods);
        if (!nc->dims || !nc->periods) {
            PMPI_Comm_free(&out);
            return SHMC_MPI_RAISE(comm_old, shmc_mpi__err(MPI_ERR_NO_MEM, "a topology"));
        }
        for (int i = 0; i < ndims; i++) {
            nc->dims[i] = dims[i];
            nc->periods[i] = periods[i] != 0;
        }
        /* A 0-dimensional grid is one point: a topology all the same. */
        nc->ndims = ndims ? ndims : -1;
    }
    *comm_cart = out;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Cart_create);

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm, &rc);
    if (c && c->ndims == 0)
        rc = shmc_mpi__err(MPI_ERR_TOPOLOGY, "communicator %d has no Cartesian topology", comm);
    if (rc == MPI_SUCCESS && !ndims)
        rc = shmc_mpi__err(MPI_ERR_ARG, "ndims is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    *ndims = c->ndims > 0 ? c->ndims : 0;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Cartdim_get);

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm, &rc);
    if (c && !status)
        rc = shmc_mpi__err(MPI_ERR_ARG, "status is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    *status = c->ndims != 0 ? MPI_CART : shmc_mpi__graph_kind(c);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Topo_test);

static int coords_of(const struct shmc_mpi_comm *c, int rank, int maxdims, int *coords)
{
    int nd = c->ndims > 0 ? c->ndims : 0;
    for (int i = nd - 1; i >= 0; i--) {
        if (i < maxdims)
            coords[i] = rank % c->dims[i];
        rank /= c->dims[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = cart(comm, &rc);
    if (c && maxdims > 0 && (!dims || !periods || !coords))
        rc = shmc_mpi__err(MPI_ERR_ARG, "dims, periods or coords is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    for (int i = 0; i < c->ndims && i < maxdims; i++) {
        dims[i] = c->dims[i];
        periods[i] = c->periods[i];
    }
    return coords_of(c, c->rank, maxdims, coords);
}
SHMC_MPI_ALIAS(Cart_get);

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = cart(comm, &rc);
    if (c && (rank < 0 || rank >= c->size))
        rc = shmc_mpi__err(MPI_ERR_RANK, "rank %d is outside 0..%d", rank, c->size - 1);
    else if (c && maxdims > 0 && !coords)
        rc = shmc_mpi__err(MPI_ERR_ARG, "coords is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    return coords_of(c, rank, maxdims, coords);
}
SHMC_MPI_ALIAS(Cart_coords);

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = cart(comm, &rc);
    if (c && (!rank || (c->ndims > 0 && !coords)))
        rc = shmc_mpi__err(MPI_ERR_ARG, "coords or rank is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    int r = 0;
    for (int i = 0; i < c->ndims; i++) {
        int x = coords[i];
        if (c->periods[i])
            x = ((x % c->dims[i]) + c->dims[i]) % c->dims[i];
        else if (x < 0 || x >= c->dims[i])
            return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG,
                                                      "coords[%d] = %d is outside 0..%d of a "
                                                      "non-periodic dimension",
                                                      i, x, c->dims[i] - 1));
        r = r * c->dims[i] + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Cart_rank);

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = cart(comm, &rc);
    if (c && (direction < 0 || direction >= c->ndims))
        rc = shmc_mpi__err(MPI_ERR_ARG, "direction %d is outside 0..%d", direction, c->ndims - 1);
    else if (c && (!rank_source || !rank_dest))
        rc = shmc_mpi__err(MPI_ERR_ARG, "rank_source or rank_dest is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    int co[64] = {0};
    int *coords = c->ndims <= 64 ? co : malloc((size_t)c->ndims * sizeof *coords);
    if (!coords)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "coordinates"));
    coords_of(c, c->rank, c->ndims, coords);
    int d = c->dims[direction], here = coords[direction];
    for (int s = -1; s <= 1; s += 2) {
        int x = here + s * disp, r = MPI_PROC_NULL;
        if (c->periods[direction])
            x = ((x % d) + d) % d;
        if (x >= 0 && x < d) {
            coords[direction] = x;
            r = 0;
            for (int i = 0; i < c->ndims; i++)
                r = r * c->dims[i] + coords[i];
        }
        *(s < 0 ? rank_source : rank_dest) = r;
    }
    if (coords != co)
        free(coords);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Cart_shift);

/* The divisors of n (> 0), increasing, in a new array of *count. */
static int *divisors(int n, int *count)
{
    int *small = malloc(2 * 1600 * sizeof *small), ns = 0, nl = 0; /* 1536: most of an int */
    if (!small)
        return NULL;
    int *large = small + 1600;
    for (int p = 1; (long)p * p <= n; p++)
        if (n % p == 0) {
            small[ns++] = p;
            if (p != n / p)
                large[nl++] = n / p;
        }
    for (int i = nl - 1; i >= 0; i--)
        small[ns++] = large[i];
    *count = ns;
    return small;
}

/* The search for the most balanced grid: the best tuple so far and the work left. */
struct bal {
    const int *div; /* the divisors of the number split, increasing */
    int ndiv, k;
    int cur[64], best[64];
    int found;
    long budget; /* steps left: a pathological case stops with the best found */
};

/* Is cur (complete, non-increasing) better than best: a smaller spread (largest less
 * smallest), then, from the smallest dimension up, the first that differs larger. */
static int better(const struct bal *b)
{
    int sc = b->cur[0] - b->cur[b->k - 1], sb = b->best[0] - b->best[b->k - 1];
    if (!b->found || sc != sb)
        return !b->found || sc < sb;
    for (int i = b->k - 1; i >= 0; i--)
        if (b->cur[i] != b->best[i])
            return b->cur[i] > b->best[i];
    return 0;
}

/* x^e, or a value past n once it passes n. */
static long power_upto(long x, int e, long n)
{
    long p = 1;
    for (int i = 0; i < e && p <= n; i++)
        p *= x;
    return p;
}

/* Places dimension i (of k, non-increasing, at most maxd) so that the rest multiply to n. */
static void place(struct bal *b, int i, long n, int maxd)
{
    if (--b->budget < 0)
        return;
    int left = b->k - i;
    if (left == 1) {
        if (n > maxd)
            return;
        b->cur[i] = (int)n;
        if (better(b)) {
            memcpy(b->best, b->cur, (size_t)b->k * sizeof *b->cur);
            b->found = 1;
        }
        return;
    }
    for (int j = 0; j < b->ndiv && b->div[j] <= maxd; j++) {
        int x = b->div[j];
        if (n % x || power_upto(x, left, n) < n)
            continue; /* x is the largest of the rest: x^left must reach n */
        /* With x the largest, the smallest is at most r, the (left - 1)th root of n / x,
         * so the spread is at least x - r, which only grows with x: past the best found,
         * stop. */
        if (b->found && i == 0) {
            long q = n / x, r = 1;
            while (power_upto(r + 1, left - 1, q) <= q)
                r++;
            if (x - r > b->best[0] - b->best[b->k - 1])
                break;
        }
        b->cur[i] = x;
        place(b, i + 1, n / x, x);
    }
}

/* Writes n as k factors, non-increasing, as balanced as can be (the least spread between
 * the largest and the smallest, then the larger dimensions from the smallest up: the
 * grids MPICH makes), into d. */
static void balanced(int n, int k, const int *div, int ndiv, int *d)
{
    struct bal *b = calloc(1, sizeof *b);
    if (!b) { /* the plain answer: n along the first dimension */
        for (int i = 0; i < k; i++)
            d[i] = i ? 1 : n;
        return;
    }
    *b = (struct bal){.div = div, .ndiv = ndiv, .k = k, .budget = 4000000};
    place(b, 0, n, n);
    for (int i = 0; i < k; i++)
        d[i] = b->found ? b->best[i] : (i ? 1 : n);
    free(b);
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    if (nnodes <= 0 || ndims < 0 || (ndims > 0 && !dims))
        return SHMC_MPI_RAISE(
            MPI_COMM_WORLD,
            shmc_mpi__err(MPI_ERR_ARG, "nnodes %d, ndims %d or dims is bad", nnodes, ndims));
    long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return SHMC_MPI_RAISE(
                MPI_COMM_WORLD,
                shmc_mpi__err(MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]));
        if (dims[i] > 0)
            fixed *= dims[i];
        else
            free_dims++;
    }
    if (nnodes % fixed)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_DIMS,
                                                            "%d nodes cannot be split along the "
                                                            "fixed dimensions (product %ld)",
                                                            nnodes, fixed));
    int left = (int)(nnodes / fixed);
    if (free_dims == 0) {
        if (left != 1)
            return SHMC_MPI_RAISE(
                MPI_COMM_WORLD,
                shmc_mpi__err(MPI_ERR_DIMS, "the dimensions' product is not %d", nnodes));
        return MPI_SUCCESS;
    }
    /* As balanced as can be: a search over left's divisors, largest dimension first. */
    int d[64];
    int nd = free_dims < 64 ? free_dims : 64;
    int ndiv = 0, *div = divisors(left, &ndiv);
    if (!div)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_NO_MEM, "divisors"));
    balanced(left, nd, div, ndiv, d);
    free(div);
    /* Non-increasing order, as MPI asks. */
    for (int i = 0; i < nd; i++)
        for (int j = i + 1; j < nd; j++)
            if (d[j] > d[i]) {
                int t = d[i];
                d[i] = d[j];
                d[j] = t;
            }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = k < nd ? d[k++] : 1;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Dims_create);

/* The grid of the dimensions kept: ranks with equal coordinates in the dropped ones form
 * one, ordered as the grid orders them. */
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = cart(comm, &rc);
    if (c && ((c->ndims > 0 && !remain_dims) || !newcomm))
        rc = shmc_mpi__err(MPI_ERR_ARG, "remain_dims or newcomm is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    int nd = c->ndims > 0 ? c->ndims : 0, kept = 0, color = 0, key = 0;
    int co[64], *coords = nd <= 64 ? co : malloc((size_t)nd * sizeof *coords);
    int *dims = malloc((size_t)(nd ? nd : 1) * sizeof *dims);
    int *periods = malloc((size_t)(nd ? nd : 1) * sizeof *periods);
    if (!coords || !dims || !periods) {
        if (coords != co)
            free(coords);
        free(dims);
        free(periods);
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "a sub-grid"));
    }
    coords_of(c, c->rank, nd, coords);
    for (int i = 0; i < nd; i++) {
        if (remain_dims[i]) {
            key = key * c->dims[i] + coords[i];
            dims[kept] = c->dims[i];
            periods[kept++] = c->periods[i];
        } else {
            color = color * c->dims[i] + coords[i];
        }
    }
    if (coords != co)
        free(coords);
    /* Nothing kept: a zero-dimensional grid, which (as MPI_Cart_create of no dimensions
     * makes it, and as MPICH does) holds the grid's first process alone; the others get
     * MPI_COMM_NULL. */
    if (!kept)
        color = c->rank == 0 ? 0 : -1;
    shmc_comm *sc = NULL;
    int err = shmc_comm_split(c->c, color, key, &sc);
    if (err == SHMC_OK)
        rc = shmc_mpi__comm_adopt(sc, c, newcomm);
    else
        rc = shmc_mpi__from_shmc(err);
    if (rc != MPI_SUCCESS) {
        free(dims);
        free(periods);
        return SHMC_MPI_RAISE(comm, rc);
    }
    struct shmc_mpi_comm *n = shmc_mpi__table_get(&shmc_mpi__comms, *newcomm);
    if (!n) { /* MPI_COMM_NULL */
        free(dims);
        free(periods);
        return MPI_SUCCESS;
    }
    n->dims = dims;
    n->periods = periods;
    n->ndims = kept ? kept : -1; /* nothing kept: a grid of one point */
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Cart_sub);

/* Where this rank would be in a grid of dims over comm: the grid's first ranks keep their
 * order (as MPI_Cart_create places them), the others are outside it. */
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm, &rc);
    (void)periods;
    long n = 1;
    if (c && (ndims < 0 || (ndims > 0 && !dims) || !newrank))
        rc = shmc_mpi__err(MPI_ERR_ARG, "ndims %d is negative, or dims or newrank is NULL", ndims);
    for (int i = 0; rc == MPI_SUCCESS && i < ndims; i++)
        if (dims[i] <= 0 || (n *= dims[i]) > c->size)
            rc = shmc_mpi__err(MPI_ERR_DIMS,
                               "dims[%d] = %d: not positive, or more points than "
                               "ranks",
                               i, dims[i]);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(c ? comm : MPI_COMM_WORLD, rc);
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Cart_map);

int shmc_mpi__cart_nbrs(const struct shmc_mpi_comm *c, struct shmc_mpi_nbrs *n)
{
    int nd = c->ndims > 0 ? c->ndims : 0;
    *n = (struct shmc_mpi_nbrs){2 * nd, 2 * nd, NULL, NULL, NULL, 1};
    if (!nd)
        return MPI_SUCCESS;
    if (!(n->own = malloc((size_t)(2 * nd) * sizeof *n->own)))
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a Cartesian topology's neighbours");
    /* Row-major coordinates (coords_of): dimension i's stride is the product of the later
     * dimensions' sizes. */
    int stride = 1;
    for (int i = nd - 1; i >= 0; i--) {
        int d = c->dims[i], here = c->rank / stride % d;
        for (int s = -1; s <= 1; s += 2) {
            int x = here + s, r = MPI_PROC_NULL;
            if (c->periods[i])
                x = (x + d) % d;
            if (x >= 0 && x < d)
                r = c->rank + (x - here) * stride;
            n->own[2 * i + (s > 0)] = r;
        }
        stride *= d;
    }
    n->src = n->dst = n->own;
    return MPI_SUCCESS;
}
