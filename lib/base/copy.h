/*
 * Bulk copies of host memory that avoid a slow case of the C library's memcpy.
 *
 * glibc copies from a few KiB up to about the L2 size with `rep movsb`. On the AMD EPYC
 * this was written on (family 25), `rep movsb` runs about twenty times slower when the
 * destination lies 1 to 15 bytes after the source modulo 4096 (the loads wait on the
 * stores just made to the same page offset; build/bench/copy_bench shows it at each
 * distance). The library's copies meet every offset: a
 * slot's or a ring record's data sits wherever the arena puts it, and user buffers are
 * wherever the user's allocator put them. shmc__copy takes a plain vector loop for those
 * offsets (up to 63, which also covers the short distances some Intel parts are slow
 * at) and memcpy for every other one. The loop was as fast as memcpy's best case on that
 * AMD; on an Intel Xeon it is level with memcpy from a few tens of KiB and a little
 * slower below, where memcpy is not slow at these offsets (build/bench/copy_bench).
 *
 * A copy longer than SHMC_COPY_PIECE goes as memcpy calls of that many bytes each. glibc
 * picks its method by the length of one call: on AMD parts it leaves `rep movsb` above
 * the L2 size for a vector loop that copied a MiB a fifth slower than 128 KiB calls did
 * (bench/copy_bench's last column); elsewhere `rep movsb` takes both lengths and the
 * pieces change nothing. Open MPI's datatype engine copies in the same pieces.
 *
 * dst and src must not overlap, as for memcpy. Stateless; callable from any thread.
 */
#ifndef SHMC_COPY_H
#define SHMC_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Below this many bytes memcpy does not use `rep movsb`, and the check would cost more
 * than it saves. */
#define SHMC_COPY_LOOP_MIN 1024u

/* The longest memcpy call a copy makes. */
#define SHMC_COPY_PIECE (128u * 1024u)

/* The copy for destinations 1 to 63 bytes after the source modulo 4096 (copy.c). */
void shmc__copy_near(void *dst, const void *src, size_t n);

/* A copy whose stores bypass the caches (non-temporal, on x86-64; a plain copy elsewhere)
 * and are visible to every CPU when it returns, as plain stores would be before a
 * release store that follows. For data that another core reads next, when the host runs
 * the cores far apart: the reader then fetches it from memory, which was faster there
 * than from the writer's cache, and slower when the cores are near (coll/stage.c). */
void shmc__copy_stream(void *dst, const void *src, size_t n);

/* A copy of more than SHMC_COPY_PIECE bytes at a gap memcpy is fast at (copy.c). */
void shmc__copy_pieces(void *dst, const void *src, size_t n);

/* Always inlined: a test and a call of memcpy; as a call of its own (the compiler's choice in
 * a large caller) it added 6 instructions to the blocking receive. */
__attribute__((always_inline)) static inline void shmc__copy(void *dst, const void *src, size_t n)
{
    uintptr_t gap = ((uintptr_t)dst - (uintptr_t)src) & 4095u;
    if (n >= SHMC_COPY_LOOP_MIN && gap - 1u < 63u)
        shmc__copy_near(dst, src, n);
    else if (n > SHMC_COPY_PIECE)
        shmc__copy_pieces(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif
