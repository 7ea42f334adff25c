/*
 * The vector copy loop of shmc__copy (copy.h): 128 bytes a step, every load of a step
 * before its stores. AVX2, its stores aligned, where the CPU has it (chosen at each call:
 * the check is one load of what libgcc found at start-up), 16-byte moves otherwise, which
 * every x86-64 and the compiler's generic vectors elsewhere give. And the streaming copy
 * (shmc__copy_stream): 16-byte non-temporal stores, which every x86-64 has.
 */
#include "base/copy.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Every store of the loop 32-byte aligned: at these distances the loads and the stores
 * cannot both be, and a store that splits two cache lines cost this loop half its speed
 * on an Intel Xeon, where a load that does costs little (the commit has the figures).
 * The first 32 bytes go unaligned, and the loop rewrites the few of them past d's first
 * boundary with the same bytes (n >= SHMC_COPY_LOOP_MIN; dst and src do not overlap). */
__attribute__((target("avx2"))) static void copy_avx2(uint8_t *d, const uint8_t *s, size_t n)
{
    _mm256_storeu_si256((__m256i *)(void *)d, _mm256_loadu_si256((const __m256i *)(const void *)s));
    size_t i = 32 - ((uintptr_t)d & 31);
    for (; i + 128 <= n; i += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 96));
        _mm256_store_si256((__m256i *)(void *)(d + i), a);
        _mm256_store_si256((__m256i *)(void *)(d + i + 32), b);
        _mm256_store_si256((__m256i *)(void *)(d + i + 64), c);
        _mm256_store_si256((__m256i *)(void *)(d + i + 96), e);
    }
    memcpy(d + i, s + i, n - i); /* under 128 bytes: no `rep movsb` */
}
#define HAVE_AVX2_COPY 1
#endif

static void copy_generic(uint8_t *d, const uint8_t *s, size_t n)
{
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        uint8_t t[128]; /* all loads of the step, then all stores */
        memcpy(t, s + i, sizeof t);
        memcpy(d + i, t, sizeof t);
    }
    memcpy(d + i, s + i, n - i);
}

void shmc__copy_near(void *dst, const void *src, size_t n)
{
#ifdef HAVE_AVX2_COPY
    if (__builtin_cpu_supports("avx2")) {
        copy_avx2(dst, src, n);
        return;
    }
#endif
    copy_generic(dst, src, n);
}

void shmc__copy_pieces(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i += SHMC_COPY_PIECE)
        memcpy(d + i, s + i, n - i < SHMC_COPY_PIECE ? n - i : SHMC_COPY_PIECE);
}

#if defined(__x86_64__) && defined(__GNUC__)
void shmc__copy_stream(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > n)
        head = n;
    memcpy(d, s, head);
    size_t i = head;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_stream_si128((__m128i *)(void *)(d + i), a);
        _mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
    }
    for (; i + 16 <= n; i += 16)
        _mm_stream_si128((__m128i *)(void *)(d + i),
                         _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
    memcpy(d + i, s + i, n - i);
    /* Streaming stores are weakly ordered: they must be globally visible before any
     * release store that follows publishes them (the caller's round). */
    _mm_sfence();
}
#else
void shmc__copy_stream(void *dst, const void *src, size_t n)
{
    shmc__copy(dst, src, n);
}
#endif
