/*
 * Unit test of base/log.c: an error or warning said again and again (the same message,
 * whatever its numbers) stops after a bound, its last line saying so, while other
 * messages and the levels a person asked for (info, debug) go on.
 */
#include <check.h>
#include <pthread.h>
#include <string.h>

#include "base/log.h"
#include "harness.h"

/* How many lines of text hold needle. */
static int lines_with(const char *text, const char *needle)
{
    int k = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        k++;
    return k;
}

static char out[1 << 16];

START_TEST(test_log_repeats_bounded)
{
    int level = shmc__log_level;
    shmct_stderr_begin();
    for (int i = 0; i < 200; i++)
        SHMC_ERROR("the same failure, number %d", i);
    SHMC_ERROR("another message");
    shmct_stderr_end(out, sizeof out);
    int said = lines_with(out, "the same failure");
    ck_assert_int_eq(said, SHMC_LOG_REPEAT_MAX);
    ck_assert_int_eq(lines_with(out, "does not say it again"), 1);
    /* The note is on the last one said. */
    const char *note = strstr(out, "does not say it again");
    ck_assert_ptr_null(strstr(note, "the same failure"));
    ck_assert_int_eq(lines_with(out, "another message"), 1);

    /* Debug output, asked for, is never cut. */
    shmc__log_level = SHMC_LOG_DEBUG;
    shmct_stderr_begin();
    for (int i = 0; i < 200; i++)
        SHMC_DEBUG("a debug line, number %d", i);
    shmct_stderr_end(out, sizeof out);
    shmc__log_level = level;
    ck_assert_int_eq(lines_with(out, "a debug line"), 200);
}
END_TEST

static void *repeat(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        SHMC_WARN("a failure that threads repeat, number %d", i);
    return NULL;
}

/* Threads that log the same message at once share its count: the bound holds exactly and
 * the last line alone says so. */
START_TEST(test_log_repeats_threads)
{
    enum { THREADS = 4 };
    int level = shmc__log_level;
    shmc__log_level = SHMC_LOG_WARN;
    shmct_stderr_begin();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, repeat, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    shmct_stderr_end(out, sizeof out);
    shmc__log_level = level;
    ck_assert_int_eq(lines_with(out, "threads repeat"), SHMC_LOG_REPEAT_MAX);
    ck_assert_int_eq(lines_with(out, "does not say it again"), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("log");
    TCase *t = tcase_create("log");
    tcase_add_test(t, test_log_repeats_bounded);
    tcase_add_test(t, test_log_repeats_threads);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
