/*
 * docs/configuration.md against base/config.c: every variable the library reads has a
 * row there, and the default that row gives is the one the code has, read from a
 * configuration loaded with no SHMC_ variable set. (scripts/docs_check.sh checks the
 * rest: the other programs' variables have rows, and no document names a variable
 * nothing reads.)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "harness.h"

extern char **environ;

static char doc[1 << 16];

/* The default column of var's row ("| `var` | default | meaning |"), or NULL. */
static const char *default_of(const char *var, char *out, size_t len)
{
    char head[96];
    snprintf(head, sizeof head, "\n| `%s` | ", var);
    const char *p = strstr(doc, head);
    if (!p)
        return NULL;
    p += strlen(head);
    const char *end = strstr(p, " |");
    if (!end || (size_t)(end - p) >= len)
        return NULL;
    memcpy(out, p, (size_t)(end - p));
    out[end - p] = '\0';
    return out;
}

static const char *num(char *buf, unsigned long long v)
{
    snprintf(buf, 32, "%llu", v);
    return buf;
}

static const char *automatic(char *buf, unsigned v)
{
    return v == ~0u ? "auto" : num(buf, v);
}

START_TEST(test_config_docs_defaults)
{
    char path[512];
    snprintf(path, sizeof path, "%s/docs/configuration.md", SHMC_SRC_DIR);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "cannot read %s", path);
    size_t n = fread(doc + 1, 1, sizeof doc - 2, f); /* doc[0]: a newline before row 1 */
    fclose(f);
    doc[0] = '\n';
    doc[n + 1] = '\0';

    /* The code's defaults: nothing set. */
    for (char **e = environ; *e;) {
        if (!strncmp(*e, "SHMC_", 5)) {
            char name[128];
            size_t k = strcspn(*e, "=");
            snprintf(name, sizeof name, "%.*s", (int)k, *e);
            unsetenv(name);
            e = environ;
        } else {
            e++;
        }
    }
    struct shmc__config c;
    ck_assert_int_eq(shmc__config_load(&c), SHMC_OK);

    char b[16][32];
    const struct {
        const char *var, *want;
    } rows[] = {
        {"SHMC_DEBUG", num(b[0], (unsigned long long)c.debug)},
        {"SHMC_EAGER_LIMIT", num(b[1], c.eager_limit)},
        {"SHMC_RING_SIZE", c.ring_bytes ? num(b[2], c.ring_bytes) : "by rank count"},
        {"SHMC_SINGLE_COPY", num(b[3], (unsigned long long)c.single_copy)},
        {"SHMC_SINGLE_COPY_MIN", num(b[4], c.single_copy_min)},
        {"SHMC_SPIN", automatic(b[5], c.spin)},
        {"SHMC_YIELD", automatic(b[6], c.yield)},
        {"SHMC_SPIN_ELSEWHERE", automatic(b[7], c.spin_elsewhere_us)},
        {"SHMC_ATTACH_TIMEOUT", num(b[8], c.attach_timeout_s)},
        {"SHMC_TIMEOUT", num(b[9], c.hang_timeout_s)},
        {"SHMC_CHECK", c.check == SHMC_CHECK_CALLS  ? "calls"
                       : c.check == SHMC_CHECK_FULL ? "full"
                                                    : "off"},
        {"SHMC_MEMFD", num(b[10], (unsigned long long)c.memfd)},
        {"SHMC_JOB_ID", c.job_id ? c.job_id : "from the launcher"},
        {"SHMC_THREADS", c.threads ? "multiple" : "serialized"},
        {"SHMC_COLL_OVERLAP", num(b[13], (unsigned long long)c.coll_overlap)},
        {"SHMC_CUDA", num(b[11], (unsigned long long)c.cuda)},
        {"SHMC_FAKE_DEVICE", num(b[12], (unsigned long long)c.fake_device)},
        {"SHMC_ALGO_<NAME>", c.algo[0] == SHMC_A_AUTO ? "auto" : "?"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char got[128];
        ck_assert_msg(default_of(rows[i].var, got, sizeof got),
                      "docs/configuration.md has no row for %s", rows[i].var);
        ck_assert_msg(!strcmp(got, rows[i].want),
                      "docs/configuration.md gives %s the default '%s'; the code has '%s'",
                      rows[i].var, got, rows[i].want);
    }
    /* Every collective's algorithm variable, by its name, in that row. */
    for (int k = 0; k < SHMC_C_COUNT; k++) {
        ck_assert_int_eq(c.algo[k], SHMC_A_AUTO);
        char name[64] = "`";
        size_t j = 1;
        for (const char *s = shmc__coll_names[k]; *s && j < sizeof name - 2; s++)
            name[j++] = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
        name[j++] = '`';
        name[j] = '\0';
        const char *row = strstr(doc, "\n| `SHMC_ALGO_<NAME>` |");
        const char *end = row ? strchr(row + 1, '\n') : NULL;
        const char *at = row ? strstr(row, name) : NULL;
        ck_assert_msg(at && at < end, "the SHMC_ALGO_<NAME> row does not name %s", name);
    }
}
END_TEST

static Suite *config_docs_suite(void)
{
    Suite *s = suite_create("config_docs");
    TCase *t = tcase_create("defaults");
    tcase_add_test(t, test_config_docs_defaults);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(config_docs_suite());
}
