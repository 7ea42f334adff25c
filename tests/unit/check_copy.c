/*
 * shmc__copy (base/copy.h): the bytes arrive intact whatever the distance between the
 * buffers modulo 4096 (the loop for 1 to 63, memcpy for the rest) and whatever the
 * length (the loop's 128-byte steps and its tail, and the memcpy calls of
 * SHMC_COPY_PIECE bytes of a long copy), and nothing outside the destination is written.
 * The same of shmc__copy_stream, whose streaming stores start at the destination's first
 * 16-byte boundary: every alignment of both ends, every tail.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy.h"
#include "harness.h"

#define ROOM (4 * 4096 + 2 * SHMC_COPY_PIECE)

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 131u + (i >> 8) * 7u + 1u);
}

/* Copies len bytes from src offset so to dst offset do and checks every byte of dst's
 * buffer: the copy where it should be, the fill elsewhere. */
static void (*copy)(void *, const void *, size_t) = shmc__copy_near;

static void one(uint8_t *src, uint8_t *dst, size_t so, size_t dof, size_t len)
{
    memset(dst, 0xee, ROOM);
    if (copy == shmc__copy_near)
        shmc__copy(dst + dof, src + so, len);
    else
        copy(dst + dof, src + so, len);
    size_t bad = ROOM;
    for (size_t i = 0; i < ROOM && bad == ROOM; i++)
        if (dst[i] != (i >= dof && i < dof + len ? pattern(so + i - dof) : 0xee))
            bad = i;
    ck_assert_msg(bad == ROOM,
                  "src+%zu dst+%zu len %zu: byte %zu is wrong (distance %% 4096 = %zu)", so, dof,
                  len, bad, (dof - so + 4096 * 4) % 4096);
}

START_TEST(test_copy_every_distance)
{
    uint8_t *src = aligned_alloc(4096, ROOM), *dst = aligned_alloc(4096, ROOM);
    ck_assert(src && dst);
    for (size_t i = 0; i < ROOM; i++)
        src[i] = pattern(i);
    /* Distances 0 to 70 and around 4096 (both signs), each at a length the loop takes
     * with a tail, one below the loop's minimum, and a large one; at a few of them, one
     * piece, just over, and two and a bit (the last three lengths). */
    const size_t lens[] = {0,
                           1,
                           SHMC_COPY_LOOP_MIN - 1,
                           SHMC_COPY_LOOP_MIN,
                           1024 + 127,
                           64 * 1024 - 5,
                           SHMC_COPY_PIECE,
                           SHMC_COPY_PIECE + 1,
                           2 * SHMC_COPY_PIECE + 77};
    const size_t nlens = sizeof lens / sizeof lens[0];
    for (size_t d = 0; d <= 70; d++) {
        int pieces = d == 0 || d == 1 || d == 63 || d == 64;
        for (size_t li = 0; li < (pieces ? nlens : nlens - 3); li++) {
            one(src, dst, 100, 100 + d, lens[li]);    /* dst d bytes after src */
            one(src, dst, 100 + d, 100, lens[li]);    /* dst d bytes before */
            one(src, dst, 5, 4096 + 5 + d, lens[li]); /* d after, a page apart */
            one(src, dst, 4096 + 7 + d, 7, lens[li]); /* d before, a page apart */
        }
    }
    free(src);
    free(dst);
}
END_TEST

START_TEST(test_copy_stream)
{
    uint8_t *src = aligned_alloc(4096, ROOM), *dst = aligned_alloc(4096, ROOM);
    ck_assert(src && dst);
    for (size_t i = 0; i < ROOM; i++)
        src[i] = pattern(i);
    copy = shmc__copy_stream;
    const size_t lens[] = {0, 1, 15, 16, 17, 63, 64, 65, 127, 4096 + 33, 64 * 1024 - 5};
    for (size_t d = 0; d < 32; d++)
        for (size_t so = 0; so < 20; so += 3)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
                one(src, dst, so, 64 + d, lens[li]);
    copy = shmc__copy_near;
    free(src);
    free(dst);
}
END_TEST

static Suite *copy_suite(void)
{
    Suite *s = suite_create("copy");
    TCase *t = tcase_create("copy");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_copy_every_distance);
    tcase_add_test(t, test_copy_stream);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(copy_suite());
}
