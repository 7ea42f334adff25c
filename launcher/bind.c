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
    /* Placement needs cores, PUs and NUMA nodes only. Not loading hwloc's I/O, GL and
     * XML plugins, and not building the other objects, takes discovery from about 4 ms
     * to 1 ms, most of shmrun's start-up (docs/performance.md). The variable is ours
     * only while we load: a user's own setting is kept, and the ranks never see ours. */
    int ours = !getenv("HWLOC_PLUGINS_BLACKLIST");
    if (ours)
        setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml",
               1);
    int rc = hwloc_topology_init(&p->topo);
    if (rc == 0) {
        hwloc_topology_set_all_types_filter(p->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
        hwloc_topology_set_type_filter(p->topo, HWLOC_OBJ_PU, HWLOC_TYPE_FILTER_KEEP_ALL);
        hwloc_topology_set_type_filter(p->topo, HWLOC_OBJ_CORE, HWLOC_TYPE_FILTER_KEEP_ALL);
        hwloc_topology_set_type_filter(p->topo, HWLOC_OBJ_NUMANODE, HWLOC_TYPE_FILTER_KEEP_ALL);
        rc = hwloc_topology_load(p->topo);
    }
    if (ours)
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    if (rc != 0) {
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
