/*
 * malloc failing at chosen moments, in one rank: a test program that includes this
 * replaces malloc, calloc and realloc with versions that fail while `refuse` is set in
 * the calling process, or once after `refuse_once` is (the library is linked statically,
 * so its allocations come here too); a rank sets it around the calls under test. Include
 * it once per program.
 *
 * Sanitizers replace malloc themselves: SANITIZED is then 1 and nothing is replaced
 * (such tests skip; robustness/check_nomem caps the address space in every build).
 */
#ifndef SHMC_TEST_REFUSE_MALLOC_H
#define SHMC_TEST_REFUSE_MALLOC_H

#include <errno.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static volatile int refuse;
static volatile unsigned refused;
/* Set: the next allocation of this process fails, and the flag clears (one allocation
 * that fails, as a large one does where small ones still succeed). */
static volatile int refuse_once;

#if !SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* Counts a refusal and says so while `refuse` is set. */
static int refusing(void)
{
    if (refuse_once) {
        refuse_once = 0;
        refused++;
        errno = ENOMEM;
        return 1;
    }
    if (!refuse)
        return 0;
    refused++;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return refusing() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return refusing() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return refusing() ? NULL : __libc_realloc(p, n);
}
#endif

#endif /* SHMC_TEST_REFUSE_MALLOC_H */
