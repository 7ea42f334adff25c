/*
 * What kind of machine this is, for a file of measurements made on one: the CPU model
 * (/proc/cpuinfo's first "model name") and the number of CPUs online; and what changes
 * from minute to minute on a shared host: how far apart its CPUs run now.
 */
#ifndef SHMC_MACHINE_H
#define SHMC_MACHINE_H

#include <stddef.h>

/* "AMD EPYC 9B45 (family 26, model 2), 2 CPUs" into out: the CPUs' name, family and model
 * as /proc/cpuinfo gives them, "unknown CPU, N CPUs" where it gives no name. */
void shmc__machine_desc(char *out, size_t len);

/* The value of the first line of the file at path (/proc/cpuinfo's format: "key<blanks>:
 * value") whose key is key, whole, blanks trimmed, into out; 0 where there is none. */
int shmc__cpuinfo_at(const char *path, const char *key, char *out, size_t len);

/* Who made the CPUs (/proc/cpuinfo's first "vendor_id"): the dispatch rules' machine
 * column may name one (coll/rules.h), since the same algorithm costs differently on
 * another maker's caches. SHMC_MAKER_OTHER where it is neither or cannot be read. Every
 * process of one machine finds the same. */
enum { SHMC_MAKER_OTHER, SHMC_MAKER_AMD, SHMC_MAKER_INTEL };

/* The maker assumed (SHMC_CPU_MAKER) where it is one of those, else the one read. */
int shmc__cpu_maker(int assumed);

/* The maker's name as the rules write it ("amd", "intel"; "other"). */
const char *shmc__cpu_maker_name(int maker);

/* The CPUs' family (/proc/cpuinfo's first "cpu family"), 1 to 255: the dispatch rules'
 * machine column may name one after the maker (amd26:near), where the machines of one
 * family were measured to favour other algorithms than the rules for the maker's. The
 * family assumed (SHMC_CPU_FAMILY) where it is not ~0u; else the one read, 0 where it
 * cannot be read or is out of range. Every process of one machine finds the same. */
unsigned shmc__cpu_family(unsigned assumed);

/* Bytes of one core's level-2 cache as the C library reports it; 0 where it does not
 * know (some virtual machines and C libraries). */
size_t shmc__cache_l2(void);

/* CPUs this job may run on: shmrun says (SHMC_CPUS: it bound each rank to one core);
 * otherwise this process's affinity mask, which other launchers leave wide. */
int shmc__job_cpus(void);

/* What the job's first two CPUs cost each other now, measured together by two threads, one
 * pinned to each (shmc__pair_measure); 0 in a field: not known. */
struct shmc__pair_cost {
    /* The round trip of a cache line, in nanoseconds, as build/bench/line_rtt measures it
     * but in a fraction of a millisecond: the threads take turns storing into one line;
     * the fastest of a few short batches. On a shared host the hypervisor runs the vCPUs
     * far apart for minutes at a time (docs/performance.md), which changes which
     * algorithms are fastest (coll/rules.h, the machine column). */
    unsigned rtt_ns;
    /* A single copy's time over a plain copy's, in percent: one thread copies
     * SHMC_PAIR_COPY_BYTES that the other has just written, once with memcpy, once with
     * process_vm_readv of its own process, the fastest of a few of each. The kernel's
     * copy pins every page and copies it alone; how much that costs against a copy in
     * user space depends on the kernel and the hypervisor, and decides whether a large
     * message is faster through the mailbox or by single copy (shmc__single_copy_min_auto). */
    unsigned sc_pct;
};

/* The bytes of the copies shmc__pair_measure times: where both sides copy a single copy
 * (from 64 KiB, p2p/coop.h, on AMD's CPUs), and the choice between the protocols matters. */
#define SHMC_PAIR_COPY_BYTES (64u << 10)

/* Both figures, 0 where it cannot tell: one CPU, no thread, or in four tries of 2 ms the
 * two threads never ran at once (their CPUs busy with other work); the single copy's also
 * where process_vm_readv fails. */
void shmc__pair_measure(struct shmc__pair_cost *out);

/* The smallest message sent by single copy where SHMC_SINGLE_COPY_MIN leaves it to the
 * library: from a single copy's cost sc_pct (0: not known) and whether the job began far
 * (machine.c says why; every process computes the same from the arena's figures). */
size_t shmc__single_copy_min_auto(unsigned sc_pct, int far);

/* What a job of nranks records: each figure assumed where non-zero (SHMC_LINE_RTT_NS,
 * SHMC_SINGLE_COPY_COST), 0s for one rank (nothing to compare), else measured. */
void shmc__pair_cost(unsigned assumed_rtt_ns, unsigned assumed_sc_pct, unsigned nranks,
                     struct shmc__pair_cost *out);

#endif /* SHMC_MACHINE_H */
