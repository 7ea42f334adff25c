/*
 * Rank placement (bind.h). On a machine without SMT, with one package and one NUMA node,
 * the cores are exactly the CPUs this process may use, so the plan is read from a few
 * sysfs files and the affinity mask; anything else asks hwloc, whose topology already
 * leaves out the CPUs this process may not use (cgroups, taskset), so round-robin stays
 * inside them. SHMRUN_HWLOC=1 always asks hwloc (a test compares the two).
 */
#include "bind.h"

#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct shmrun_bind_plan {
    hwloc_topology_t topo; /* NULL on the simple path */
    enum shmrun_bind mode;
    int ntargets;
    int npus;
    int *cpus; /* the simple path: the cores (= CPUs) in order */
};

static int read_int(const char *path, int *v)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%d", v) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* The simple path: fills p->cpus and returns 0 when the machine qualifies. */
static int plan_simple(struct shmrun_bind_plan *p)
{
    const char *force = getenv("SHMRUN_HWLOC");
    int smt;
    if ((force && *force == '1') || read_int("/sys/devices/system/cpu/smt/active", &smt) != 0 ||
        smt != 0 || access("/sys/devices/system/node/node1", F_OK) == 0)
        return -1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) == 0)
        return -1;
    p->cpus = malloc((size_t)CPU_COUNT(&set) * sizeof *p->cpus);
    if (!p->cpus)
        return -1;
    int n = 0, package = -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        char path[96];
        int pk;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 c);
        if (read_int(path, &pk) != 0 || (package >= 0 && pk != package)) {
            free(p->cpus);
            p->cpus = NULL;
            return -1;
        }
        package = pk;
        p->cpus[n++] = c;
    }
    p->npus = p->ntargets = n;
    return 0;
}

struct shmrun_bind_plan *shmrun_bind_plan(enum shmrun_bind mode, int nranks)
{
    (void)nranks;
    struct shmrun_bind_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->mode = mode;
    if (mode == SHMRUN_BIND_CORE && plan_simple(p) == 0)
        return p;
    /* Placement needs cores, PUs and NUMA nodes only. Not loading hwloc's I/O, GL and
     * XML plugins, and not building the other objects, takes most of the time out of
     * discovery, which is most of shmrun's start-up (bench/startup.py). The variable is
     * ours only while we load: a user's own setting is kept, and the ranks never see
     * ours. */
    int ours = !getenv("HWLOC_PLUGINS_BLACKLIST");
    if (ours)
        setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml", 1);
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
    if (p && p->cpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(p->cpus[r % p->ntargets], &set);
        return sched_setaffinity(0, sizeof set, &set);
    }
    hwloc_obj_t o = target(p, r);
    if (!o)
        return 0;
    return hwloc_set_cpubind(p->topo, o->cpuset, HWLOC_CPUBIND_PROCESS);
}

void shmrun_bind_describe(const struct shmrun_bind_plan *p, int r, char *buf, size_t len)
{
    if (p && p->cpus) { /* as hwloc names it: core logical index, then its PU */
        snprintf(buf, len, "Core L#%d (PU %d)", r % p->ntargets, p->cpus[r % p->ntargets]);
        return;
    }
    hwloc_obj_t o = target(p, r);
    if (!o) {
        snprintf(buf, len, "not bound");
        return;
    }
    char pus[128];
    hwloc_bitmap_list_snprintf(pus, sizeof pus, o->cpuset);
    snprintf(buf, len, "%s L#%u (PU %s)", hwloc_obj_type_string(o->type), o->logical_index, pus);
}

int shmrun_bind_pus_of(const struct shmrun_bind_plan *p, int r, hwloc_bitmap_t set)
{
    hwloc_bitmap_zero(set);
    if (p && p->cpus) {
        hwloc_bitmap_set(set, (unsigned)p->cpus[r % p->ntargets]);
        return 0;
    }
    hwloc_obj_t o = target(p, r);
    if (!o)
        return -1;
    hwloc_bitmap_copy(set, o->cpuset);
    return 0;
}

void shmrun_bind_free(struct shmrun_bind_plan *p)
{
    if (!p)
        return;
    if (p->topo)
        hwloc_topology_destroy(p->topo);
    free(p->cpus);
    free(p);
}
