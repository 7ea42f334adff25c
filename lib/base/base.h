/*
 * Layer base: what every other layer builds on, with no knowledge of ranks, jobs or
 * shared memory.
 *
 * Owns: C11 atomics with named orders (atomics.h), levelled logging (log.h), the SHMC_*
 * configuration read and validated once (config.h), the public functions that need only this layer
 * (public.c), one intrusive list (list.h), dtype sizes (dtype.h), the monotonic clock (clock.h),
 * the host reduction kernels with the float16/bfloat16 conversions (reduction.h, half.h), bulk
 * copies (copy.h), and the memcheck annotation (memcheck.h). May call: libc only. Everything above
 * may call it.
 *
 * Layers, lowest first (docs/design.md draws the map; make check enforces it):
 *   base < shm < transport < device < p2p < coll < boot
 */
#ifndef SHMC_BASE_H
#define SHMC_BASE_H

#include "base/atomics.h"
#include "base/clock.h"
#include "base/dtype.h"
#include "base/list.h"
#include "base/log.h"

#endif /* SHMC_BASE_H */
