/*
 * Rank placement with hwloc (bind.h). hwloc's default topology already leaves out the
 * CPUs this process may not use (cgroups, taskset), so round-robin stays inside them.
 */
#include "bind.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

struct shmrun_bind_plan {
    hwloc_topology_t topo;
    enum shmrun_bind mode;
    int ntargets;
    int npus;
};

struct shmrun_bind_plan *shmrun_bind_plan(enum shmrun_bind mode, int nranks)
{
    (void)nranks;
    struct shmrun_bind_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->mode = mode;
    if (hwloc_topology_init(&p->topo) != 0 || hwloc_topology_load(p->topo) != 0) {
        fprintf(stderr, "shmrun: warning: cannot read the machine's topology; ranks are not "
                        "bound\n");
        free(p);
        return NULL;
    }
    p->npus = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU);
    if (mode == SHMRUN_BIND_CORE) {
        p->ntargets = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_CORE);
        if (p->ntargets <= 0) /* some VMs report no cores: use PUs */
            p->ntargets = p->npus;
    } else if (mode == SHMRUN_BIND_NUMA) {
        p->ntargets = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_NUMANODE);
    }
    if (p->ntargets < 0)
        p->ntargets = 0;
    return p;
}

int shmrun_bind_pus(const struct shmrun_bind_plan *p)
{
    return p && p->npus > 0 ? p->npus : 0;
}

int shmrun_bind_targets(const struct shmrun_bind_plan *p)
{
    return p ? p->ntargets : 0;
}

static hwloc_obj_t target(const struct shmrun_bind_plan *p, int r)
{
    if (!p || p->ntargets == 0)
        return NULL;
    unsigned idx = (unsigned)(r % p->ntargets);
    if (p->mode == SHMRUN_BIND_NUMA)
        return hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_NUMANODE, idx);
    hwloc_obj_t o = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_CORE, idx);
    return o ? o : hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_PU, idx);
}

int shmrun_bind_apply(const struct shmrun_bind_plan *p, int r)
{
    hwloc_obj_t o = target(p, r);
    if (!o)
        return 0;
    return hwloc_set_cpubind(p->topo, o->cpuset, HWLOC_CPUBIND_PROCESS);
}

void shmrun_bind_describe(const struct shmrun_bind_plan *p, int r, char *buf, size_t len)
{
    hwloc_obj_t o = target(p, r);
    if (!o) {
        snprintf(buf, len, "not bound");
        return;
    }
    char pus[128];
    hwloc_bitmap_list_snprintf(pus, sizeof pus, o->cpuset);
    snprintf(buf, len, "%s L#%u (PU %s)", hwloc_obj_type_string(o->type), o->logical_index, pus);
}

void shmrun_bind_free(struct shmrun_bind_plan *p)
{
    if (!p)
        return;
    hwloc_topology_destroy(p->topo);
    free(p);
}
