/*
 * Groups: ordered lists of world ranks, local objects (no communication). MPI_GROUP_EMPTY
 * is handle 1; the set operations keep MPI's orders (union: the first group's members,
 * then the second's that are new; intersection and difference: the first group's order).
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

static struct shmc_mpi_table groups = SHMC_MPI_TABLE_INIT;
static struct shmc_mpi_group empty = {0, NULL};

struct shmc_mpi_group *shmc_mpi__group(MPI_Group h, int *rc)
{
    if (h == MPI_GROUP_EMPTY)
        return &empty;
    struct shmc_mpi_group *g = h > MPI_GROUP_EMPTY ? shmc_mpi__table_get(&groups, h) : NULL;
    if (g)
        return g;
    *rc = shmc_mpi__err(MPI_ERR_GROUP, "%d is not a group%s", h,
                        h == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
    return NULL;
}

int shmc_mpi__group_new(int n, int *world, MPI_Group *out)
{
    if (n == 0) {
        free(world);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct shmc_mpi_group *g = malloc(sizeof *g);
    int h = g ? shmc_mpi__table_put(&groups, MPI_GROUP_EMPTY + 1, g) : -1;
    if (h < 0) {
        free(g);
        free(world);
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a group");
    }
    g->n = n;
    g->world = world;
    *out = h;
    return MPI_SUCCESS;
}

void shmc_mpi__group_end(void)
{
    for (int h = 0; h < groups.cap; h++) {
        struct shmc_mpi_group *g = shmc_mpi__table_get(&groups, h);
        if (g) {
            free(g->world);
            free(g);
        }
    }
    shmc_mpi__table_end(&groups);
}

static int index_of(const struct shmc_mpi_group *g, int world)
{
    for (int i = 0; i < g->n; i++)
        if (g->world[i] == world)
            return i;
    return -1;
}

#define GROUP_OR_RAISE(var, h)                                                                     \
    int rc_ = MPI_SUCCESS;                                                                         \
    struct shmc_mpi_group *var = shmc_mpi__group((h), &rc_);                                       \
    if (!var)                                                                                      \
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc_);
#define RAISE_IF(cond, code, ...)                                                                  \
    if (cond)                                                                                      \
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err((code), __VA_ARGS__));

int PMPI_Group_size(MPI_Group group, int *size)
{
    GROUP_OR_RAISE(g, group);
    RAISE_IF(!size, MPI_ERR_ARG, "size is NULL");
    *size = g->n;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Group_size);

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    GROUP_OR_RAISE(g, group);
    RAISE_IF(!rank, MPI_ERR_ARG, "rank is NULL");
    int i = index_of(g, shmc_mpi__world_rank);
    *rank = i >= 0 ? i : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Group_rank);

int PMPI_Group_free(MPI_Group *group)
{
    RAISE_IF(!group, MPI_ERR_ARG, "group is NULL");
    GROUP_OR_RAISE(g, *group);
    if (g != &empty) {
        free(g->world);
        free(g);
        shmc_mpi__table_set(&groups, *group, NULL);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Group_free);

/* Makes a group of the members of g picked by pick[0..n-1] (indices into g). */
static int subset(const struct shmc_mpi_group *g, const int *pick, int n, MPI_Group *out)
{
    int *wr = malloc((size_t)(n ? n : 1) * sizeof *wr);
    if (!wr)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_NO_MEM, "a group"));
    for (int i = 0; i < n; i++)
        wr[i] = g->world[pick[i]];
    int rc = shmc_mpi__group_new(n, wr, out);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}

/* Checks a list of n distinct ranks of g; fills mark[] (g->n entries) with 1 for each. */
static int check_list(const struct shmc_mpi_group *g, int n, const int *ranks, char *mark)
{
    if (n < 0 || n > g->n)
        return shmc_mpi__err(MPI_ERR_ARG, "n %d is outside 0..%d", n, g->n);
    if (n > 0 && !ranks)
        return shmc_mpi__err(MPI_ERR_ARG, "ranks is NULL");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->n)
            return shmc_mpi__err(MPI_ERR_RANK, "ranks[%d] = %d is outside 0..%d", i, ranks[i],
                                 g->n - 1);
        if (mark[ranks[i]])
            return shmc_mpi__err(MPI_ERR_RANK, "rank %d is listed twice", ranks[i]);
        mark[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

static int incl_excl(MPI_Group group, int n, const int *ranks, int excl, MPI_Group *newgroup)
{
    GROUP_OR_RAISE(g, group);
    RAISE_IF(!newgroup, MPI_ERR_ARG, "newgroup is NULL");
    char *mark = calloc((size_t)g->n + 1, 1);
    int *pick = malloc(((size_t)g->n + 1) * sizeof *pick);
    int rc =
        mark && pick ? check_list(g, n, ranks, mark) : shmc_mpi__err(MPI_ERR_NO_MEM, "a group");
    int k = 0;
    if (rc == MPI_SUCCESS && !excl)
        for (int i = 0; i < n; i++)
            pick[k++] = ranks[i];
    if (rc == MPI_SUCCESS && excl)
        for (int i = 0; i < g->n; i++)
            if (!mark[i])
                pick[k++] = i;
    if (rc == MPI_SUCCESS)
        rc = subset(g, pick, k, newgroup);
    else
        rc = SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    free(mark);
    free(pick);
    return rc;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, 0, newgroup);
}
SHMC_MPI_ALIAS(Group_incl);

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, 1, newgroup);
}
SHMC_MPI_ALIAS(Group_excl);

/* Expands ranges (first, last, stride) into a list of ranks. */
static int expand(const struct shmc_mpi_group *g, int n, int ranges[][3], int **out, int *count)
{
    if (n < 0)
        return shmc_mpi__err(MPI_ERR_ARG, "n %d is negative", n);
    if (n > 0 && !ranges)
        return shmc_mpi__err(MPI_ERR_ARG, "ranges is NULL");
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return shmc_mpi__err(MPI_ERR_ARG, "range %d has stride 0", i);
        if (first < 0 || first >= g->n || last < 0 || last >= g->n)
            return shmc_mpi__err(MPI_ERR_RANK, "range %d (%d, %d, %d) leaves 0..%d", i, first, last,
                                 stride, g->n - 1);
        if ((last - first) / stride >= 0)
            total += (last - first) / stride + 1;
        if (total > g->n)
            return shmc_mpi__err(MPI_ERR_RANK, "the ranges name more ranks than the group has");
    }
    int *r = malloc((size_t)(total ? total : 1) * sizeof *r);
    if (!r)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "a group");
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (int x = first; stride > 0 ? x <= last : x >= last; x += stride)
            r[k++] = x;
    }
    *out = r;
    *count = k;
    return MPI_SUCCESS;
}

static int range_incl_excl(MPI_Group group, int n, int ranges[][3], int excl, MPI_Group *newgroup)
{
    GROUP_OR_RAISE(g, group);
    int *r = NULL, k = 0;
    int rc = expand(g, n, ranges, &r, &k);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    rc = incl_excl(group, k, r, excl, newgroup);
    free(r);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, 0, newgroup);
}
SHMC_MPI_ALIAS(Group_range_incl);

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, 1, newgroup);
}
SHMC_MPI_ALIAS(Group_range_excl);

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    GROUP_OR_RAISE(a, group1);
    int rc = MPI_SUCCESS;
    struct shmc_mpi_group *b = shmc_mpi__group(group2, &rc);
    if (!b)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    RAISE_IF(n < 0, MPI_ERR_ARG, "n %d is negative", n);
    RAISE_IF(n > 0 && (!ranks1 || !ranks2), MPI_ERR_ARG, "ranks1 or ranks2 is NULL");
    for (int i = 0; i < n; i++) {
        RAISE_IF(ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->n), MPI_ERR_RANK,
                 "ranks1[%d] = %d is outside 0..%d", i, ranks1[i], a->n - 1);
    }
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        int j = index_of(b, a->world[ranks1[i]]);
        ranks2[i] = j >= 0 ? j : MPI_UNDEFINED;
    }
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Group_translate_ranks);

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    GROUP_OR_RAISE(a, group1);
    int rc = MPI_SUCCESS;
    struct shmc_mpi_group *b = shmc_mpi__group(group2, &rc);
    if (!b)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    RAISE_IF(!result, MPI_ERR_ARG, "result is NULL");
    *result = MPI_UNEQUAL;
    if (a->n != b->n)
        return MPI_SUCCESS;
    int same_order = 1, same_set = 1;
    for (int i = 0; i < a->n; i++) {
        same_order &= a->world[i] == b->world[i];
        same_set &= index_of(b, a->world[i]) >= 0;
    }
    *result = same_order ? MPI_IDENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Group_compare);

enum { UNION, INTERSECTION, DIFFERENCE };

static int set_op(MPI_Group group1, MPI_Group group2, int op, MPI_Group *newgroup)
{
    GROUP_OR_RAISE(a, group1);
    int rc = MPI_SUCCESS;
    struct shmc_mpi_group *b = shmc_mpi__group(group2, &rc);
    if (!b)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    RAISE_IF(!newgroup, MPI_ERR_ARG, "newgroup is NULL");
    int *wr = malloc((size_t)(a->n + b->n + 1) * sizeof *wr);
    RAISE_IF(!wr, MPI_ERR_NO_MEM, "a group");
    int k = 0;
    for (int i = 0; i < a->n; i++) {
        int in_b = index_of(b, a->world[i]) >= 0;
        if (op == UNION || (op == INTERSECTION) == in_b)
            wr[k++] = a->world[i];
    }
    if (op == UNION)
        for (int i = 0; i < b->n; i++)
            if (index_of(a, b->world[i]) < 0)
                wr[k++] = b->world[i];
    rc = shmc_mpi__group_new(k, wr, newgroup);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, UNION, newgroup);
}
SHMC_MPI_ALIAS(Group_union);

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, INTERSECTION, newgroup);
}
SHMC_MPI_ALIAS(Group_intersection);

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, DIFFERENCE, newgroup);
}
SHMC_MPI_ALIAS(Group_difference);
