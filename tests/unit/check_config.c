/*
 * Unit test of base/config.c: sizes as people write them, every variable read from the
 * environment and refused with its name when malformed, and the runtime setter's rules
 * (which variables it takes, which it refuses as fixed at shmc_init).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "base/settings.h"
#include "harness.h"

START_TEST(test_config_parse_size)
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

/* Loads the configuration with one variable set; returns the result and, in msg, what
 * was printed. */
static int load_with(const char *var, const char *value, struct shmc__config *cfg, char *msg,
                     size_t len)
{
    setenv(var, value, 1);
    shmct_stderr_begin();
    int rc = shmc__config_load(cfg);
    shmct_stderr_end(msg, len);
    unsetenv(var);
    return rc;
}

START_TEST(test_config_algo_env)
{
    struct shmc__config cfg;
    char msg[1024];
    setenv("SHMC_ALGO_BARRIER", "RD", 1);
    ck_assert_int_eq(load_with("SHMC_ALGO_ALLREDUCE", "ring", &cfg, msg, sizeof msg), SHMC_OK);
    unsetenv("SHMC_ALGO_BARRIER");
    ck_assert_int_eq(cfg.algo[SHMC_C_ALLREDUCE], SHMC_A_RING);
    ck_assert_int_eq(cfg.algo[SHMC_C_BARRIER], SHMC_A_RD);
    ck_assert_int_eq(cfg.algo[SHMC_C_GATHER], SHMC_A_AUTO);

    ck_assert_int_eq(load_with("SHMC_ALGO_ALLREDUCE", "fastest", &cfg, msg, sizeof msg),
                     SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(msg, "SHMC_ALGO_ALLREDUCE='fastest' is not an algorithm of allreduce: "
                               "use one of auto, tree, ring, shm, rd, direct");
    ck_assert_int_eq(load_with("SHMC_ALGO_GATHER", "rd", &cfg, msg, sizeof msg), SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(msg, "use one of auto, tree, ring, shm");
}
END_TEST

START_TEST(test_config_bad_values)
{
    struct shmc__config cfg;
    char msg[1024];
    ck_assert_int_eq(load_with("SHMC_EAGER_LIMIT", "lots", &cfg, msg, sizeof msg), SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(msg, "SHMC_EAGER_LIMIT='lots' is not a valid size");
    ck_assert_int_eq(load_with("SHMC_RING_SIZE", "12000", &cfg, msg, sizeof msg), SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(msg, "not a power of two");
    ck_assert_int_eq(load_with("SHMC_SPIN", "-3", &cfg, msg, sizeof msg), SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(msg, "SHMC_SPIN='-3' is not valid: use a whole number from 0 to "
                               "100000000, or auto");
    /* A number's setting takes the word its default is documented as, meaning it. */
    ck_assert_int_eq(load_with("SHMC_SPIN", "42", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert_uint_eq(cfg.spin, 42);
    ck_assert_int_eq(load_with("SHMC_SPIN", "auto", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert_uint_eq(cfg.spin, ~0u);
    ck_assert_int_eq(load_with("SHMC_SINGLE_COPY_MIN", "AUTO", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert(cfg.single_copy_min == (size_t)~0ull);
    ck_assert_int_eq(load_with("SHMC_SINGLE_COPY_MIN", "0", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert(cfg.single_copy_min == 0);
    ck_assert_int_eq(load_with("SHMC_CPU_FAMILY", "read", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert_uint_eq(cfg.cpu_family, ~0u);
    ck_assert_int_eq(load_with("SHMC_LINE_RTT_NS", "measured", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert_uint_eq(cfg.line_rtt_ns, 0);
    ck_assert_int_eq(load_with("SHMC_CPU_FAMILY", "auto", &cfg, msg, sizeof msg), SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(msg, "from 0 to 255, or read");
    ck_assert_int_eq(load_with("SHMC_EAGER_LIMIT", "autox", &cfg, msg, sizeof msg), SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(msg, "optionally with a k, M or G suffix, or auto");
    ck_assert_int_eq(load_with("SHMC_CHECK", "perhaps", &cfg, msg, sizeof msg), SHMC_ERR_ENV);
    SHMCT_ASSERT_CONTAINS(
        msg, "SHMC_CHECK='perhaps' is not valid: use calls (the default), 1/full, or 0/off");
    ck_assert_int_eq(load_with("SHMC_FAKE_DEVICE", "noipc", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert_int_eq(cfg.fake_device, SHMC_FAKE_NOIPC);
    ck_assert_int_eq(load_with("SHMC_FAKE_DEVICE", "sometimes", &cfg, msg, sizeof msg),
                     SHMC_ERR_ENV);
    ck_assert_int_eq(load_with("SHMC_FAKE_DEVICE", "gpus:3", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert_int_eq(cfg.fake_device, 1);
    ck_assert_int_eq(cfg.fake_gpus, 3);
    ck_assert_int_eq(load_with("SHMC_FAKE_DEVICE", "1", &cfg, msg, sizeof msg), SHMC_OK);
    ck_assert_int_eq(cfg.fake_gpus, 0);
    static const char *const bad_gpus[] = {"gpus:", "gpus:0", "gpus:257", "gpus:2x", "gpus:-1"};
    for (size_t i = 0; i < sizeof bad_gpus / sizeof bad_gpus[0]; i++) {
        ck_assert_int_eq(load_with("SHMC_FAKE_DEVICE", bad_gpus[i], &cfg, msg, sizeof msg),
                         SHMC_ERR_ENV);
        SHMCT_ASSERT_CONTAINS(msg, "give a number of GPUs from 1 to 256");
    }
}
END_TEST

/* shmc__config_set changes only what it may, and says why it refuses the rest. */
START_TEST(test_config_set)
{
    struct shmc__config cfg;
    char msg[1024];
    ck_assert_int_eq(shmc__config_load(&cfg), SHMC_OK);
    ck_assert_int_eq(shmc__config_set(&cfg, "SHMC_ALGO_ALLTOALL", "tree"), SHMC_OK);
    ck_assert_int_eq(cfg.algo[SHMC_C_ALLTOALL], SHMC_A_TREE);
    ck_assert_int_eq(shmc__config_set(&cfg, "SHMC_ALGO_ALLTOALL", "auto"), SHMC_OK);
    ck_assert_int_eq(cfg.algo[SHMC_C_ALLTOALL], SHMC_A_AUTO);
    ck_assert_int_eq(shmc__config_set(&cfg, "SHMC_CHECK", "on"), SHMC_OK);
    ck_assert_int_eq(cfg.check, 1);
    ck_assert_int_eq(shmc__config_set(&cfg, "SHMC_SINGLE_COPY", "0"), SHMC_OK);
    ck_assert_int_eq(cfg.single_copy, 0);
    int level = shmc__log_level;
    ck_assert_int_eq(shmc__config_set(&cfg, "SHMC_DEBUG", "3"), SHMC_OK);
    ck_assert_int_eq(shmc__log_level, 3);
    shmc__log_level = level;

    struct {
        const char *name, *value, *why;
        int rc;
    } bad[] = {
        {"SHMC_RING_SIZE", "16k", "is read once, when shmc_init runs", SHMC_ERR_STATE},
        {"SHMC_SPIN", "10", "is read once", SHMC_ERR_STATE},
        {"SHMC_ALGO_BARRIER", "direct", "is not an algorithm of barrier", SHMC_ERR_ENV},
        {"SHMC_CHECK", "maybe", "SHMC_CHECK='maybe' is not valid", SHMC_ERR_ENV},
        {"SHMC_NONSENSE", "1", "SHMC_NONSENSE is not a shmcomm variable", SHMC_ERR_ENV},
        {"SHMC_CHECK", "", "needs a variable name and a value", SHMC_ERR_ENV},
        {NULL, "1", "needs a variable name and a value", SHMC_ERR_ENV},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct shmc__config before = cfg;
        shmct_stderr_begin();
        int rc = shmc__config_set(&cfg, bad[i].name, bad[i].value);
        shmct_stderr_end(msg, sizeof msg);
        ck_assert_int_eq(rc, bad[i].rc);
        SHMCT_ASSERT_CONTAINS(msg, bad[i].why);
        ck_assert_msg(memcmp(&before, &cfg, sizeof cfg) == 0, "a refused set changed %zu", i);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *t = tcase_create("config");
    tcase_add_test(t, test_config_parse_size);
    tcase_add_test(t, test_config_algo_env);
    tcase_add_test(t, test_config_bad_values);
    tcase_add_test(t, test_config_set);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
