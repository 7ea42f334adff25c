/*
 * Graph and distributed graph topologies (MPI 4.1, 8.5.3 and 8.5.4): the communicators
 * keep the graph (every node's edges) or this rank's neighbours and weights, which the
 * queries hand back, and the neighbourhood collectives' lists (neighbor.c). One
 * machine has no placement to improve, so reorder changes nothing: a graph's nodes are
 * the first nnodes ranks in their order, a distributed graph keeps every rank's.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

int shmc_mpi_weights[2]; /* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (mpi.h) */

struct shmc_mpi_graph {
    int kind; /* MPI_GRAPH or MPI_DIST_GRAPH */
    int nnodes, nedges;
    int *index, *edges; /* MPI_GRAPH: as MPI_Graph_create takes them */
    int indeg, outdeg, weighted;
    int *src, *srcw, *dst, *dstw; /* MPI_DIST_GRAPH: this rank's neighbours */
};

int shmc_mpi__graph_kind(const struct shmc_mpi_comm *c)
{
    return c->graph ? c->graph->kind : MPI_UNDEFINED;
}

void shmc_mpi__graph_free(struct shmc_mpi_graph *g)
{
    if (!g)
        return;
    free(g->index);
    free(g->edges);
    free(g->src);
    free(g->srcw);
    free(g->dst);
    free(g->dstw);
    free(g);
}

static int *dup_ints(const int *a, int n, int *failed)
{
    if (!a || n <= 0)
        return NULL;
    int *b = malloc((size_t)n * sizeof *b);
    if (!b)
        *failed = 1;
    else
        memcpy(b, a, (size_t)n * sizeof *b);
    return b;
}

/* A graph of the given parts (copied); NULL without memory. */
static struct shmc_mpi_graph *make(int kind, int nnodes, const int *index, int nedges,
                                   const int *edges, int indeg, const int *src, const int *srcw,
                                   int outdeg, const int *dst, const int *dstw, int weighted)
{
    struct shmc_mpi_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    int failed = 0;
    *g = (struct shmc_mpi_graph){kind,
                                 nnodes,
                                 nedges,
                                 dup_ints(index, nnodes, &failed),
                                 dup_ints(edges, nedges, &failed),
                                 indeg,
                                 outdeg,
                                 weighted,
                                 dup_ints(src, indeg, &failed),
                                 dup_ints(srcw, indeg, &failed),
                                 dup_ints(dst, outdeg, &failed),
                                 dup_ints(dstw, outdeg, &failed)};
    if (failed) {
        shmc_mpi__graph_free(g);
        return NULL;
    }
    return g;
}

int shmc_mpi__graph_copy(const struct shmc_mpi_comm *from, struct shmc_mpi_comm *to)
{
    const struct shmc_mpi_graph *g = from->graph;
    if (!g)
        return MPI_SUCCESS;
    to->graph = make(g->kind, g->nnodes, g->index, g->nedges, g->edges, g->indeg, g->src, g->srcw,
                     g->outdeg, g->dst, g->dstw, g->weighted);
    return to->graph ? MPI_SUCCESS : shmc_mpi__err(MPI_ERR_NO_MEM, "a topology");
}

/* The end of every graph constructor: a copy of c's members made collectively (every
 * member calls, so that none waits; rc, this rank's argument check, leaves it out when
 * bad, and keep 0 leaves it out anyway), which takes graph g (freed otherwise). Hands the
 * new communicator to *out, or raises the first error on comm_old. */
static int finish(struct shmc_mpi_comm *c, MPI_Comm comm_old, int rc, int keep,
                  struct shmc_mpi_graph *g, MPI_Comm *out)
{
    shmc_comm *sc = NULL;
    MPI_Comm made = MPI_COMM_NULL;
    int err = shmc_comm_split(c->c, rc == MPI_SUCCESS && keep ? 0 : -1, c->rank, &sc);
    int mk = err == SHMC_OK ? shmc_mpi__comm_adopt(sc, c, &made) : shmc_mpi__from_shmc(err);
    if (rc == MPI_SUCCESS && mk == MPI_SUCCESS && !out)
        rc = shmc_mpi__err(MPI_ERR_ARG, "the output communicator is NULL");
    if (rc == MPI_SUCCESS && mk == MPI_SUCCESS) {
        if (made != MPI_COMM_NULL)
            ((struct shmc_mpi_comm *)shmc_mpi__table_get(&shmc_mpi__comms, made))->graph = g;
        else
            shmc_mpi__graph_free(g);
        *out = made;
        return MPI_SUCCESS;
    }
    shmc_mpi__graph_free(g);
    if (made != MPI_COMM_NULL)
        PMPI_Comm_free(&made);
    return SHMC_MPI_RAISE(comm_old, rc != MPI_SUCCESS ? rc : mk);
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    (void)reorder;
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm_old, &rc);
    if (!c)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (nnodes < 0 || nnodes > c->size)
        rc = shmc_mpi__err(MPI_ERR_ARG, "nnodes %d is not in 0..%d", nnodes, c->size);
    else if (!comm_graph || (nnodes > 0 && !index))
        rc = shmc_mpi__err(MPI_ERR_ARG, "index or comm_graph is NULL");
    int nedges = rc == MPI_SUCCESS && nnodes > 0 ? index[nnodes - 1] : 0;
    for (int i = 0; rc == MPI_SUCCESS && i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            rc = shmc_mpi__err(MPI_ERR_ARG, "index[%d] = %d is smaller than the one before", i,
                               index[i]);
    if (rc == MPI_SUCCESS && nedges > 0 && !edges)
        rc = shmc_mpi__err(MPI_ERR_ARG, "edges is NULL");
    for (int i = 0; rc == MPI_SUCCESS && i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            rc = shmc_mpi__err(MPI_ERR_ARG, "edges[%d] = %d is no node (0..%d)", i, edges[i],
                               nnodes - 1);
    struct shmc_mpi_graph *g = rc == MPI_SUCCESS ? make(MPI_GRAPH, nnodes, index, nedges, edges, 0,
                                                        NULL, NULL, 0, NULL, NULL, 0)
                                                 : NULL;
    if (rc == MPI_SUCCESS && !g)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a graph");
    return finish(c, comm_old, rc, c->rank < nnodes, g, comm_graph);
}
SHMC_MPI_ALIAS(Graph_create);

/* The graph of a communicator of the kind asked for, or NULL with the error. */
static const struct shmc_mpi_graph *graph_of(MPI_Comm h, int kind, int *rc)
{
    struct shmc_mpi_comm *c = shmc_mpi__comm(h, rc);
    if (c && (!c->graph || c->graph->kind != kind)) {
        *rc = shmc_mpi__err(MPI_ERR_TOPOLOGY, "communicator %d has no %s topology", h,
                            kind == MPI_GRAPH ? "graph" : "distributed graph");
        return NULL;
    }
    return c ? c->graph : NULL;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_graph *g = graph_of(comm, MPI_GRAPH, &rc);
    if (g && (!nnodes || !nedges))
        rc = shmc_mpi__err(MPI_ERR_ARG, "nnodes or nedges is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    *nnodes = g->nnodes;
    *nedges = g->nedges;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Graphdims_get);

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_graph *g = graph_of(comm, MPI_GRAPH, &rc);
    if (g && ((maxindex > 0 && !index) || (maxedges > 0 && !edges)))
        rc = shmc_mpi__err(MPI_ERR_ARG, "index or edges is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    for (int i = 0; i < g->nnodes && i < maxindex; i++)
        index[i] = g->index[i];
    for (int i = 0; i < g->nedges && i < maxedges; i++)
        edges[i] = g->edges[i];
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Graph_get);

static int node_arg(const struct shmc_mpi_graph *g, int rank, const void *out)
{
    if (rank < 0 || rank >= g->nnodes)
        return shmc_mpi__err(MPI_ERR_RANK, "rank %d is no node of the graph (0..%d)", rank,
                             g->nnodes - 1);
    return out ? MPI_SUCCESS : shmc_mpi__err(MPI_ERR_ARG, "the output is NULL");
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_graph *g = graph_of(comm, MPI_GRAPH, &rc);
    if (g)
        rc = node_arg(g, rank, nneighbors);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    *nneighbors = g->index[rank] - (rank ? g->index[rank - 1] : 0);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Graph_neighbors_count);

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_graph *g = graph_of(comm, MPI_GRAPH, &rc);
    if (g)
        rc = node_arg(g, rank, maxneighbors > 0 ? (const void *)neighbors : "");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    int first = rank ? g->index[rank - 1] : 0;
    for (int i = first, k = 0; i < g->index[rank] && k < maxneighbors; i++, k++)
        neighbors[k] = g->edges[i];
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Graph_neighbors);

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    (void)index, (void)edges;
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm, &rc);
    if (c && (nnodes <= 0 || nnodes > c->size || !newrank))
        rc = shmc_mpi__err(MPI_ERR_ARG, "nnodes %d is not in 1..%d, or newrank is NULL", nnodes,
                           c->size);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(c ? comm : MPI_COMM_WORLD, rc);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Graph_map);

/* ---- distributed graphs ---------------------------------------------------------------- */

/* Checks n ranks of c and their weights (weights may be MPI_UNWEIGHTED or, for n 0,
 * MPI_WEIGHTS_EMPTY). */
static int check_ranks(const struct shmc_mpi_comm *c, int n, const int *ranks, const int *w,
                       const char *what)
{
    if (n < 0)
        return shmc_mpi__err(MPI_ERR_ARG, "the %s degree %d is negative", what, n);
    if (n > 0 && !ranks)
        return shmc_mpi__err(MPI_ERR_ARG, "the %s ranks are NULL", what);
    if (n > 0 && !w)
        return shmc_mpi__err(MPI_ERR_ARG, "the %s weights are NULL (MPI_UNWEIGHTED?)", what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return shmc_mpi__err(MPI_ERR_RANK, "%s rank %d is outside 0..%d", what, ranks[i],
                                 c->size - 1);
    return MPI_SUCCESS;
}

static int real_weights(const int *w)
{
    return w && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm_old, &rc);
    if (!c)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if ((rc = shmc_mpi__info_check(info)) == MPI_SUCCESS &&
        (rc = check_ranks(c, indegree, sources, sourceweights, "source")) == MPI_SUCCESS &&
        (rc = check_ranks(c, outdegree, destinations, destweights, "destination")) == MPI_SUCCESS &&
        !comm_dist_graph)
        rc = shmc_mpi__err(MPI_ERR_ARG, "comm_dist_graph is NULL");
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    struct shmc_mpi_graph *g =
        rc == MPI_SUCCESS
            ? make(MPI_DIST_GRAPH, 0, NULL, 0, NULL, indegree, sources,
                   real_weights(sourceweights) ? sourceweights : NULL, outdegree, destinations,
                   real_weights(destweights) ? destweights : NULL, weighted)
            : NULL;
    if (rc == MPI_SUCCESS && !g)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a graph");
    return finish(c, comm_old, rc, 1, g, comm_dist_graph);
}
SHMC_MPI_ALIAS(Dist_graph_create_adjacent);

/* Every rank's edges gathered to all (source, destination, weight), each rank keeping the
 * ones that end or start at it, in the order of the ranks that gave them. */
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm_old, &rc);
    if (!c)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    long mine = 0;
    if ((rc = shmc_mpi__info_check(info)) == MPI_SUCCESS &&
        (n < 0 || (n > 0 && (!sources || !degrees))))
        rc = shmc_mpi__err(MPI_ERR_ARG, "n %d is negative, or sources or degrees is NULL", n);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        if (degrees[i] < 0)
            rc = shmc_mpi__err(MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
        else
            mine += degrees[i];
    }
    if (rc == MPI_SUCCESS && (mine > 1 << 24 || (mine > 0 && (!destinations || !weights))))
        rc = shmc_mpi__err(MPI_ERR_ARG, "destinations or weights is NULL, or over 2^24 edges");
    int w = weights != MPI_UNWEIGHTED;
    int *edge = rc == MPI_SUCCESS ? malloc((size_t)(mine ? mine : 1) * 3 * sizeof *edge) : NULL;
    if (rc == MPI_SUCCESS && !edge)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "the graph's edges");
    for (int i = 0, k = 0; rc == MPI_SUCCESS && i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            edge[3 * k] = sources[i];
            edge[3 * k + 1] = destinations[k];
            edge[3 * k + 2] = w && real_weights(weights) ? weights[k] : 1;
            if (sources[i] < 0 || sources[i] >= c->size || destinations[k] < 0 ||
                destinations[k] >= c->size)
                rc = shmc_mpi__err(MPI_ERR_RANK, "edge %d -> %d names a rank outside 0..%d",
                                   sources[i], destinations[k], c->size - 1);
        }
    /* Every rank gathers, one with bad arguments giving no edges and a flag, so that all
     * of them fail together. */
    enum { UNWEIGHTED = 1, BAD = 2 };
    int cnt[2] = {rc == MPI_SUCCESS ? (int)mine * 3 : 0,
                  (w ? 0 : UNWEIGHTED) | (rc == MPI_SUCCESS ? 0 : BAD)};
    int *counts = malloc((size_t)c->size * 2 * sizeof *counts);
    int *displs = malloc((size_t)c->size * sizeof *displs);
    int err = counts && displs ? PMPI_Allgather(cnt, 2, MPI_INT, counts, 2, MPI_INT, comm_old)
                               : MPI_ERR_NO_MEM;
    int total = 0, unweighted = 0;
    for (int r = 0; err == MPI_SUCCESS && r < c->size; r++) {
        int flags = counts[2 * r + 1];
        displs[r] = total;
        total += counts[2 * r];
        unweighted |= flags & UNWEIGHTED;
        if ((flags & BAD) && rc == MPI_SUCCESS)
            rc = shmc_mpi__err(MPI_ERR_ARG, "rank %d passed bad arguments", r);
        counts[r] = counts[2 * r]; /* compacted in place: r <= 2r */
    }
    int *all = err == MPI_SUCCESS ? malloc((size_t)(total ? total : 1) * sizeof *all) : NULL;
    if (err == MPI_SUCCESS && !all)
        err = MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS)
        err = PMPI_Allgatherv(edge ? edge : (int[1]){0}, cnt[0], MPI_INT, all, counts, displs,
                              MPI_INT, comm_old);
    free(edge);
    free(counts);
    free(displs);
    int indeg = 0, outdeg = 0;
    for (int i = 0; err == MPI_SUCCESS && i < total; i += 3) {
        indeg += all[i + 1] == c->rank;
        outdeg += all[i] == c->rank;
    }
    int *in = malloc((size_t)(indeg ? indeg : 1) * 2 * sizeof *in);
    int *out = malloc((size_t)(outdeg ? outdeg : 1) * 2 * sizeof *out);
    if (err == MPI_SUCCESS && (!in || !out))
        err = MPI_ERR_NO_MEM;
    for (int i = 0, a = 0, b = 0; err == MPI_SUCCESS && i < total; i += 3) {
        if (all[i + 1] == c->rank) {
            in[a] = all[i];
            in[indeg + a++] = all[i + 2];
        }
        if (all[i] == c->rank) {
            out[b] = all[i + 1];
            out[outdeg + b++] = all[i + 2];
        }
    }
    free(all);
    struct shmc_mpi_graph *g = NULL;
    if (rc == MPI_SUCCESS && err == MPI_SUCCESS &&
        !(g = make(MPI_DIST_GRAPH, 0, NULL, 0, NULL, indeg, in, unweighted ? NULL : in + indeg,
                   outdeg, out, unweighted ? NULL : out + outdeg, !unweighted)))
        err = MPI_ERR_NO_MEM;
    free(in);
    free(out);
    if (rc == MPI_SUCCESS && err != MPI_SUCCESS)
        rc = err == MPI_ERR_NO_MEM ? shmc_mpi__err(err, "a distributed graph") : err;
    return finish(c, comm_old, rc, 1, g, comm_dist_graph);
}
SHMC_MPI_ALIAS(Dist_graph_create);

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_graph *g = graph_of(comm, MPI_DIST_GRAPH, &rc);
    if (g && (!indegree || !outdegree || !weighted))
        rc = shmc_mpi__err(MPI_ERR_ARG, "an output is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    *indegree = g->indeg;
    *outdegree = g->outdeg;
    *weighted = g->weighted;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Dist_graph_neighbors_count);

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_graph *g = graph_of(comm, MPI_DIST_GRAPH, &rc);
    if (g && ((maxindegree > 0 && !sources) || (maxoutdegree > 0 && !destinations)))
        rc = shmc_mpi__err(MPI_ERR_ARG, "sources or destinations is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    for (int i = 0; i < g->indeg && i < maxindegree; i++) {
        sources[i] = g->src[i];
        if (real_weights(sourceweights))
            sourceweights[i] = g->srcw ? g->srcw[i] : 1;
    }
    for (int i = 0; i < g->outdeg && i < maxoutdegree; i++) {
        destinations[i] = g->dst[i];
        if (real_weights(destweights))
            destweights[i] = g->dstw ? g->dstw[i] : 1;
    }
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Dist_graph_neighbors);

int shmc_mpi__graph_nbrs(const struct shmc_mpi_comm *c, struct shmc_mpi_nbrs *n)
{
    const struct shmc_mpi_graph *g = c->graph;
    *n = (struct shmc_mpi_nbrs){0};
    if (g->kind == MPI_DIST_GRAPH) {
        *n = (struct shmc_mpi_nbrs){g->indeg, g->outdeg, g->src, g->dst, NULL, 0};
        return MPI_SUCCESS;
    }
    /* A graph's neighbours of a node are its edges, both ways (MPI_Graph_neighbors). */
    int first = c->rank ? g->index[c->rank - 1] : 0;
    int k = g->index[c->rank] - first;
    const int *e = k > 0 ? g->edges + first : NULL;
    *n = (struct shmc_mpi_nbrs){k, k, e, e, NULL, 0};
    return MPI_SUCCESS;
}
