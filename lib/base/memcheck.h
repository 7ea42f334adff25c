/*
 * Telling valgrind's memcheck about memory another process wrote. A peer's
 * process_vm_writev into our buffer (coop.c, coll/direct.c) happens outside this
 * process, so memcheck would still think those bytes uninitialised and report every
 * later use of them. When valgrind's header is there at build time, the receiver marks
 * such a range defined once the peer has counted it as written; the request costs a few
 * instructions and does nothing outside valgrind. Without the header it compiles away.
 */
#ifndef SHMC_MEMCHECK_H
#define SHMC_MEMCHECK_H

#include <stddef.h>

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define SHMC_HAVE_MEMCHECK 1
#endif
#endif

static inline void shmc__mark_defined(const void *p, size_t n)
{
#ifdef SHMC_HAVE_MEMCHECK
    VALGRIND_MAKE_MEM_DEFINED(p, n);
#else
    (void)p;
    (void)n;
#endif
}

#endif /* SHMC_MEMCHECK_H */
