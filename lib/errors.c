/*
 * shmc_strerror, generated from the same list as the codes (SHMC_ERROR_MAP in
 * shmcomm.h), so a new code cannot lack its text. Pure function; any thread.
 */
#include "shmcomm.h"

SHMC_API const char *shmc_strerror(int err)
{
    switch (err) {
    case SHMC_OK:
        return "success";
#define SHMC_XX_CASE(name, value, text)                                                            \
    case SHMC_ERR_##name:                                                                          \
        return text;
        SHMC_ERROR_MAP(SHMC_XX_CASE)
#undef SHMC_XX_CASE
    default:
        return "unknown shmcomm error code";
    }
}

SHMC_API const char *shmc_version(void)
{
    return SHMC_VERSION_STRING;
}
