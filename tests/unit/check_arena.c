/*
 * Unit test of shm/arena.c: the layout formula, and attach refusing segments that are
 * not a valid arena of this user and job.
 */
#include <check.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "shm/arena.h"

START_TEST(test_arena_ring_formula)
{
    /* 1 MiB rings while all of them fit 16 MiB, then halving down to 64 KiB... */
    ck_assert_uint_eq(shmc__ring_bytes_for(2, 0), 1u << 20);
    ck_assert_uint_eq(shmc__ring_bytes_for(4, 0), 1u << 20);
    ck_assert_uint_eq(shmc__ring_bytes_for(5, 0), 512u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(8, 0), 256u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(9, 0), 128u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(16, 0), 64u << 10);
    /* ...which the older rule keeps up to 32 ranks (all rings within 64 MiB). */
    ck_assert_uint_eq(shmc__ring_bytes_for(17, 0), 64u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(32, 0), 64u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(33, 0), 32u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(64, 0), 16u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(256, 0), 8u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(64, 4096), 4096);

    struct shmc__layout l;
    ck_assert_int_eq(shmc__arena_layout(64, 0, &l), SHMC_OK);
    /* What creation reserves for 64 ranks (all but the staging buffers and the slot
     * entries, which each rank reserves at its first staged call or making of a
     * communicator) is well under 100 MiB. */
    ck_assert_uint_lt(l.stage_off, 100ull << 20);
    ck_assert_uint_eq(l.ring_stride, 128 + (16u << 10));
    ck_assert_uint_eq(l.total_size % 4096, 0);
    ck_assert_int_eq(shmc__arena_layout(1, 0, &l), SHMC_OK);
    ck_assert_int_eq(shmc__arena_layout(0, 0, &l), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__arena_layout(SHMC_MAX_RANKS + 1, 0, &l), SHMC_ERR_LIMIT);
    ck_assert_int_eq(shmc__arena_layout(4, 3000, &l), SHMC_ERR_ARG);
}
END_TEST

/* The staging buffers: 1 MiB each up to 8 ranks, halved as ranks double beyond, never
 * under 32 KiB; two per rank and lane; page-aligned, after everything else but the slot
 * entries, which end the arena. */
START_TEST(test_arena_stage_formula)
{
    ck_assert_uint_eq(shmc__stage_bytes_for(1), 1u << 20);
    ck_assert_uint_eq(shmc__stage_bytes_for(8), 1u << 20);
    ck_assert_uint_eq(shmc__stage_bytes_for(9), 512u << 10);
    ck_assert_uint_eq(shmc__stage_bytes_for(16), 512u << 10);
    ck_assert_uint_eq(shmc__stage_bytes_for(128), 64u << 10);
    ck_assert_uint_eq(shmc__stage_bytes_for(256), 32u << 10);
    const unsigned ns[] = {1, 2, 3, 8, 17, 256};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        struct shmc__layout l;
        ck_assert_int_eq(shmc__arena_layout(ns[i], 0, &l), SHMC_OK);
        ck_assert_uint_eq(l.stage_bytes, shmc__stage_bytes_for(ns[i]));
        ck_assert_uint_eq(l.stage_off % 4096, 0);
        ck_assert_uint_ge(l.stage_off, l.xdesc_off + (uint64_t)ns[i] * l.xdesc_stride);
        /* then each rank's slot entries, page-aligned, to the end */
        ck_assert_uint_eq(l.entry_off % 4096, 0);
        ck_assert_uint_ge(l.entry_off, l.stage_off + SHMC_LANES * 2ull * ns[i] * l.stage_bytes);
        ck_assert_uint_lt(l.entry_off,
                          l.stage_off + SHMC_LANES * 2ull * ns[i] * l.stage_bytes + 4096);
        ck_assert_uint_ge(l.total_size,
                          l.entry_off + SHMC_SLOT_ENTRIES * (uint64_t)ns[i] * l.coll_stride);
        ck_assert_uint_lt(l.total_size,
                          l.entry_off + SHMC_SLOT_ENTRIES * (uint64_t)ns[i] * l.coll_stride + 4096);
        /* One lane's buffers, all ranks together, within the budget. */
        ck_assert_uint_le(2ull * ns[i] * l.stage_bytes,
                          ns[i] <= 256 ? SHMC_STAGE_BUDGET : 2ull * ns[i] * SHMC_STAGE_MIN);
    }
}
END_TEST

/* Creates a valid arena for 4 ranks and returns its fd (name already unlinked). */
static int make_arena(struct shmc__arena *a)
{
    struct shmc__layout l;
    char name[64];
    ck_assert_int_eq(shmc__arena_layout(4, 0, &l), SHMC_OK);
    ck_assert_int_eq(shmc__arena_unique_name(name, sizeof name), SHMC_OK);
    const struct shmc__pair_cost pc = {123, 456};
    ck_assert_int_eq(shmc__arena_create(a, name, &l, 1, 0, 0, &pc), SHMC_OK);
    return a->fd;
}

/* Attach refuses f's arena with a message containing why. */
static void refused(struct shmc__arena *b, int fd, unsigned nranks, const char *why)
{
    char msg[4096];
    shmct_stderr_begin();
    int rc = shmc__arena_attach_fd(b, fd, nranks);
    shmct_stderr_end(msg, sizeof msg);
    ck_assert_int_eq(rc, SHMC_ERR_CORRUPT);
    SHMCT_ASSERT_CONTAINS(msg, why);
}

START_TEST(test_arena_attach_checks)
{
    struct shmc__arena a, b;
    int fd = make_arena(&a);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, dup(fd), 4), SHMC_OK);
    ck_assert_uint_eq(b.hdr->nranks, 4);
    /* (the creator's figures, for every rank) */
    ck_assert_uint_eq(b.line_rtt_ns, 123);
    ck_assert_uint_eq(b.sc_cost_pct, 456);
    shmc__arena_detach(&b);

    int fd2 = dup(fd);
    refused(&b, fd2, 8, "made for 4 ranks but this process was told the job has 8");
    /* Wrong magic, version, offsets: each refused, saying which. */
    struct shmc__arena_hdr saved = *a.hdr;
    a.hdr->magic = 0x1234;
    refused(&b, fd2, 4, "does not start with shmcomm's magic number");
    *a.hdr = saved;
    a.hdr->version = 99;
    char why[96];
    snprintf(why, sizeof why, "layout version 99; this library speaks version %u",
             SHMC_ARENA_VERSION);
    refused(&b, fd2, 4, why);
    *a.hdr = saved;
    a.hdr->ring_off += 64;
    refused(&b, fd2, 4, "region offsets do not match");
    *a.hdr = saved;
    a.hdr->nranks = 100000;
    refused(&b, fd2, 0, "claims 100000 ranks");
    *a.hdr = saved;
    /* A size that does not match the header. */
    ck_assert_int_eq(ftruncate(fd2, (off_t)a.size + 4096), 0);
    refused(&b, fd2, 4, "bytes but its header says");
    ck_assert_int_eq(ftruncate(fd2, (off_t)a.size), 0);
    /* Readable by others. */
    ck_assert_int_eq(fchmod(fd2, 0644), 0);
    refused(&b, fd2, 4, "has mode 644; shmcomm creates it 0600");
    ck_assert_int_eq(fchmod(fd2, 0600), 0);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 4), SHMC_OK);
    shmc__arena_detach(&b);
    shmc__arena_detach(&a);
}
END_TEST

START_TEST(test_arena_not_an_arena)
{
    struct shmc__arena b;
    char msg[4096];
    int fd = memfd_create("junk", 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fchmod(fd, 0600), 0); /* so the checks reach the contents */
    refused(&b, fd, 1, "is 0 bytes, too small to be an arena");
    ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
    refused(&b, fd, 1, "does not start with shmcomm's magic number");
    close(fd);
    shmct_stderr_begin();
    ck_assert_int_eq(shmc__arena_attach_fd(&b, 12345, 1), SHMC_ERR_SYS); /* not open */
    SHMCT_ASSERT_CONTAINS(shmct_stderr_end(msg, sizeof msg), "Bad file descriptor");
}
END_TEST

START_TEST(test_arena_no_name_left)
{
    struct shmc__arena a;
    char names[1024];
    int before = shmct_shm_segments(names, sizeof names);
    make_arena(&a);
    ck_assert_int_eq(shmct_shm_segments(names, sizeof names), before);
    shmc__arena_detach(&a);
}
END_TEST

static Suite *arena_suite(void)
{
    Suite *s = suite_create("arena");
    TCase *t = tcase_create("layout");
    tcase_add_test(t, test_arena_ring_formula);
    tcase_add_test(t, test_arena_stage_formula);
    tcase_add_test(t, test_arena_attach_checks);
    tcase_add_test(t, test_arena_not_an_arena);
    tcase_add_test(t, test_arena_no_name_left);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(arena_suite());
}
