/*
 * The arena and configuration on their own: the layout formula, and attach refusing
 * segments that are not a valid arena of this user and job.
 */
#include <check.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "config.h"
#include "harness.h"

START_TEST(test_arena_ring_formula)
{
    ck_assert_uint_eq(shmc__ring_bytes_for(2, 0), 64u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(32, 0), 64u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(33, 0), 32u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(64, 0), 16u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(256, 0), 8u << 10);
    ck_assert_uint_eq(shmc__ring_bytes_for(64, 4096), 4096);

    struct shmc__layout l;
    ck_assert_int_eq(shmc__arena_layout(64, 0, &l), SHMC_OK);
    /* 64 ranks fit in well under 100 MiB. */
    ck_assert_uint_lt(l.total_size, 100ull << 20);
    ck_assert_uint_eq(l.ring_stride, 128 + (16u << 10));
    ck_assert_uint_eq(l.total_size % 4096, 0);
    ck_assert_int_eq(shmc__arena_layout(1, 0, &l), SHMC_OK);
    ck_assert_int_eq(shmc__arena_layout(0, 0, &l), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc__arena_layout(SHMC_MAX_RANKS + 1, 0, &l), SHMC_ERR_LIMIT);
    ck_assert_int_eq(shmc__arena_layout(4, 3000, &l), SHMC_ERR_ARG);
}
END_TEST

START_TEST(test_arena_parse_size)
{
    size_t v;
    ck_assert_int_eq(shmc__parse_size("4096", &v), 0);
    ck_assert_uint_eq(v, 4096);
    ck_assert_int_eq(shmc__parse_size("64k", &v), 0);
    ck_assert_uint_eq(v, 65536);
    ck_assert_int_eq(shmc__parse_size("2MiB", &v), 0);
    ck_assert_uint_eq(v, 2u << 20);
    ck_assert_int_eq(shmc__parse_size("1G", &v), 0);
    ck_assert_uint_eq(v, 1u << 30);
    ck_assert_int_eq(shmc__parse_size("", &v), -1);
    ck_assert_int_eq(shmc__parse_size("-1", &v), -1);
    ck_assert_int_eq(shmc__parse_size("12q", &v), -1);
    ck_assert_int_eq(shmc__parse_size("k", &v), -1);
    ck_assert_int_eq(shmc__parse_size("99999999999999999999", &v), -1);
}
END_TEST

/* Creates a valid arena for 4 ranks and returns its fd (name already unlinked). */
static int make_arena(struct shmc__arena *a)
{
    struct shmc__layout l;
    char name[64];
    ck_assert_int_eq(shmc__arena_layout(4, 0, &l), SHMC_OK);
    ck_assert_int_eq(shmc__arena_unique_name(name, sizeof name), SHMC_OK);
    ck_assert_int_eq(shmc__arena_create(a, name, &l, 1, 0), SHMC_OK);
    return a->fd;
}

START_TEST(test_arena_attach_checks)
{
    struct shmc__arena a, b;
    int fd = make_arena(&a);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, dup(fd), 4), SHMC_OK);
    ck_assert_uint_eq(b.hdr->nranks, 4);
    shmc__arena_detach(&b);

    int fd2 = dup(fd);
    /* Wrong rank count. */
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 8), SHMC_ERR_CORRUPT);
    /* Wrong magic, version, offsets: each refused. */
    struct shmc__arena_hdr saved = *a.hdr;
    a.hdr->magic = 0x1234;
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 4), SHMC_ERR_CORRUPT);
    *a.hdr = saved;
    a.hdr->version = 99;
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 4), SHMC_ERR_CORRUPT);
    *a.hdr = saved;
    a.hdr->ring_off += 64;
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 4), SHMC_ERR_CORRUPT);
    *a.hdr = saved;
    a.hdr->nranks = 100000;
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 0), SHMC_ERR_CORRUPT);
    *a.hdr = saved;
    /* A size that does not match the header. */
    ck_assert_int_eq(ftruncate(fd2, (off_t)a.size + 4096), 0);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 4), SHMC_ERR_CORRUPT);
    ck_assert_int_eq(ftruncate(fd2, (off_t)a.size), 0);
    /* Readable by others. */
    ck_assert_int_eq(fchmod(fd2, 0644), 0);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 4), SHMC_ERR_CORRUPT);
    ck_assert_int_eq(fchmod(fd2, 0600), 0);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd2, 4), SHMC_OK);
    shmc__arena_detach(&b);
    shmc__arena_detach(&a);
}
END_TEST

START_TEST(test_arena_not_an_arena)
{
    struct shmc__arena b;
    int fd = memfd_create("junk", 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fchmod(fd, 0600), 0); /* so the checks reach the contents */
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd, 1), SHMC_ERR_CORRUPT); /* empty */
    ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, fd, 1), SHMC_ERR_CORRUPT); /* zeros */
    close(fd);
    ck_assert_int_eq(shmc__arena_attach_fd(&b, 12345, 1), SHMC_ERR_SYS); /* not open */
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
    tcase_add_test(t, test_arena_parse_size);
    tcase_add_test(t, test_arena_attach_checks);
    tcase_add_test(t, test_arena_not_an_arena);
    tcase_add_test(t, test_arena_no_name_left);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(arena_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
