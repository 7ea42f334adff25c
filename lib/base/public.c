/*
 * The public functions that need nothing but the base layer: shmc_strerror, generated
 * from the same list as the codes (SHMC_ERROR_MAP in shmcomm.h) so that a new code cannot
 * lack its text, shmc_version and shmc_dtype_size. Pure functions; any thread.
 */
#include "base/dtype.h"
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

SHMC_API size_t shmc_dtype_size(shmc_dtype dtype)
{
    return shmc__dtype_size(dtype);
}
