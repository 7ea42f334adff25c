/*
 * What kind of machine this is, for a file of measurements made on one: the CPU model
 * (/proc/cpuinfo's first "model name") and the number of CPUs online; and what changes
 * from minute to minute on a shared host: how far apart its CPUs run now.
 */
#ifndef SHMC_MACHINE_H
#define SHMC_MACHINE_H

#include <stddef.h>

/* "AMD EPYC 9B45, 2 CPUs" into out; "unknown CPU, N CPUs" where the model is not known. */
void shmc__machine_desc(char *out, size_t len);

/* Who made the CPUs (/proc/cpuinfo's first "vendor_id"): the dispatch rules' machine
 * column may name one (coll/rules.h), since the same algorithm costs differently on
 * another maker's caches. SHMC_MAKER_OTHER where it is neither or cannot be read. Every
 * process of one machine finds the same. */
enum { SHMC_MAKER_OTHER, SHMC_MAKER_AMD, SHMC_MAKER_INTEL };

/* The maker assumed (SHMC_CPU_MAKER) where it is one of those, else the one read. */
int shmc__cpu_maker(int assumed);

/* The maker's name as the rules write it ("amd", "intel"; "other"). */
const char *shmc__cpu_maker_name(int maker);

/* Bytes of one core's level-2 cache as the C library reports it; 0 where it does not
 * know (some virtual machines and C libraries). */
size_t shmc__cache_l2(void);

/* CPUs this job may run on: shmrun says (SHMC_CPUS: it bound each rank to one core);
 * otherwise this process's affinity mask, which other launchers leave wide. */
int shmc__job_cpus(void);

/* The round trip of a cache line between the first two CPUs this process may run on, in
 * nanoseconds, as build/bench/line_rtt measures it but in a fraction of a millisecond: two
 * threads, one pinned to each, take turns storing into one line; the fastest of a few
 * short batches. 0 where it cannot tell: one CPU, no thread, or in four tries of 2 ms the
 * two threads never ran at once (their CPUs busy with other work). On a shared host the hypervisor runs the vCPUs
 * far apart for minutes at a time (docs/performance.md), which changes which algorithms
 * are fastest (coll/rules.h, the machine column). */
unsigned shmc__line_rtt_measure(void);

/* What a job of nranks records as its round trip: assumed if non-zero (SHMC_LINE_RTT_NS),
 * 0 for one rank (nothing to compare), else a measurement. */
unsigned shmc__line_rtt(unsigned assumed, unsigned nranks);

#endif /* SHMC_MACHINE_H */
