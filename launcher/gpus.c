/*
 * GPUs for --report-bindings (gpus.h). Placement loads hwloc without I/O objects, for
 * speed (bind.c); this report loads a topology of its own with the important PCI devices,
 * only when asked. hwloc's Linux component finds them in sysfs by itself, so its plugins
 * (PCI names through libpciaccess, which also leaks, GL, OpenCL, libxml) stay unloaded
 * here too, unless the user set HWLOC_PLUGINS_BLACKLIST. A GPU is an NVIDIA (vendor
 * 10de) display or 3D controller; its place is the CPUs of its closest non-I/O ancestor
 * (its package or NUMA node). GPUs are numbered in PCI bus order, which is CUDA's order
 * for identical GPUs (and always with CUDA_DEVICE_ORDER=PCI_BUS_ID); CUDA_VISIBLE_DEVICES
 * renumbers them, which is said.
 * HWLOC_XMLFILE makes hwloc read a saved topology instead, as the tests do.
 */
#include "gpus.h"

#include <stdlib.h>

#define MAX_GPUS 64

struct gpu {
    char busid[16];
    hwloc_bitmap_t near; /* the CPUs it is attached to */
};

static int find_gpus(struct gpu *gpus)
{
    hwloc_topology_t topo;
    int n = 0, rc;
    int ours = !getenv("HWLOC_PLUGINS_BLACKLIST");
    if (ours)
        setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml", 1);
    if ((rc = hwloc_topology_init(&topo)) == 0) {
        hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
        if ((rc = hwloc_topology_load(topo)) != 0)
            hwloc_topology_destroy(topo);
    }
    if (ours)
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    if (rc != 0)
        return -1;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o)) && n < MAX_GPUS;) {
        const struct hwloc_pcidev_attr_s *pci = &o->attr->pcidev;
        if (pci->vendor_id != 0x10de || (pci->class_id >> 8) != 0x03)
            continue;
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
        snprintf(gpus[n].busid, sizeof gpus[n].busid, "%04x:%02x:%02x.%x", pci->domain, pci->bus,
                 pci->dev, pci->func);
        gpus[n].near = hwloc_bitmap_dup(
            anc && anc->cpuset ? anc->cpuset : hwloc_topology_get_topology_cpuset(topo));
        if (gpus[n].near)
            n++;
    }
    hwloc_topology_destroy(topo);
    return n;
}

void shmrun_gpus_report(const struct shmrun_bind_plan *plan, int n, FILE *out)
{
    struct gpu gpus[MAX_GPUS];
    int ng = find_gpus(gpus);
    if (ng <= 0) {
        fprintf(out, "shmrun: no NVIDIA GPU found%s\n",
                ng < 0 ? " (cannot read the machine's topology)" : "");
        return;
    }
    char text[256];
    for (int i = 0; i < ng; i++) {
        hwloc_bitmap_list_snprintf(text, sizeof text, gpus[i].near);
        fprintf(out, "shmrun: GPU %d is PCI %s, near PU %s\n", i, gpus[i].busid, text);
    }
    if (getenv("CUDA_VISIBLE_DEVICES"))
        fprintf(out, "shmrun: CUDA_VISIBLE_DEVICES is set: CUDA numbers only the GPUs it names, "
                     "in its order\n");
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    for (int r = 0; mine && r < n; r++) {
        int g = r % ng; /* shmc_device_select: LOCAL_RANK modulo the GPUs; LOCAL_RANK = rank */
        if (shmrun_bind_pus_of(plan, r, mine) != 0) {
            fprintf(out, "shmrun: rank %d gets GPU %d (not bound)\n", r, g);
            continue;
        }
        if (hwloc_bitmap_isincluded(mine, gpus[g].near)) {
            fprintf(out, "shmrun: rank %d gets GPU %d, near it\n", r, g);
            continue;
        }
        size_t k = 0;
        text[0] = '\0';
        for (int i = 0; i < ng && k < sizeof text; i++)
            if (hwloc_bitmap_isincluded(mine, gpus[i].near))
                k += (size_t)snprintf(text + k, sizeof text - k, "%sGPU %d", k ? ", " : "", i);
        fprintf(out, "shmrun: rank %d gets GPU %d, not near it (near it: %s)\n", r, g,
                k ? text : "none");
    }
    hwloc_bitmap_free(mine);
    for (int i = 0; i < ng; i++)
        hwloc_bitmap_free(gpus[i].near);
}
