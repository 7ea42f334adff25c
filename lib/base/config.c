/*
 * Reads and validates the SHMC_* environment variables (see config.h) by the table of
 * settings (settings.h). Called once per process, before anything uses the values; not
 * thread-safe (nothing else runs yet).
 */
#include "base/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/settings.h"
#include "shmcomm.h"

int shmc__config_load(struct shmc__config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < shmc__nsettings; i++)
        shmc__setting_default(&shmc__settings[i], cfg);
    /* SHMC_DEBUG (the table's first) before the others, so that their messages obey it. */
    for (size_t i = 0; i < shmc__nsettings; i++) {
        const struct shmc__setting *st = &shmc__settings[i];
        int rc;
        if (strstr(st->name, "<NAME>")) {
            /* A family: each member's variable (SHMC_ALGO_ALLREDUCE, ...). */
            for (int c = 0; c < SHMC_C_COUNT; c++) {
                char var[64];
                shmc__algo_var(c, var, sizeof var);
                if ((rc = shmc__setting_parse(st, var, getenv(var), cfg)) != SHMC_OK)
                    return rc;
            }
            continue;
        }
        if ((rc = shmc__setting_parse(st, st->name, getenv(st->name), cfg)) != SHMC_OK)
            return rc;
        if (i == 0)
            shmc__log_level = cfg->debug;
    }
    return SHMC_OK;
}

int shmc__config_set(struct shmc__config *cfg, const char *name, const char *value)
{
    if (!name || !value || !*value) {
        SHMC_ERROR("shmc_config_set needs a variable name and a value");
        return SHMC_ERR_ENV;
    }
    const struct shmc__setting *st = shmc__setting_find(name);
    if (!st) {
        SHMC_ERROR("%s is not a shmcomm variable (docs/configuration.md lists them)", name);
        return SHMC_ERR_ENV;
    }
    if (!st->runtime) {
        SHMC_ERROR("%s is read once, when shmc_init runs: set it in the environment "
                   "before the job starts",
                   name);
        return SHMC_ERR_STATE;
    }
    int rc = shmc__setting_parse(st, name, value, cfg);
    if (rc == SHMC_OK)
        shmc__log_level = cfg->debug;
    return rc;
}
