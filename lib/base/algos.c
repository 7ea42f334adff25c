/*
 * The collectives and their algorithms by name, and which algorithm each collective has
 * (config.h): the names as the environment and the documents spell them. Here, below the
 * collectives, so that shmrun (which links only base and shm) can refuse a bad
 * SHMC_ALGO_* before any rank starts.
 */
#include <ctype.h>
#include <stdio.h>

#include "base/config.h"

#define NAME(id, name) name,
#define ALGO_NAME(id, name, device) name,
#define ALGO_DEVICE(id, name, device) device,
const char *const shmc__coll_names[SHMC_C_COUNT] = {SHMC_COLLECTIVES(NAME)};
const char *const shmc__algo_names[SHMC_A_COUNT] = {SHMC_ALGORITHMS(ALGO_NAME)};
static const unsigned char takes_device[SHMC_A_COUNT] = {SHMC_ALGORITHMS(ALGO_DEVICE)};
#undef NAME
#undef ALGO_NAME
#undef ALGO_DEVICE

#define PAIR(coll, algo, stem) [SHMC_C_##coll][SHMC_A_##algo] = 1,
static const unsigned char implemented[SHMC_C_COUNT][SHMC_A_COUNT] = {SHMC_IMPLEMENTED(PAIR)};
#undef PAIR

int shmc__algo_valid(int c, int a)
{
    if (c < 0 || c >= SHMC_C_COUNT || a < 0 || a >= SHMC_A_COUNT)
        return 0;
    return a == SHMC_A_AUTO || implemented[c][a];
}

int shmc__algo_device(int a)
{
    return a > SHMC_A_AUTO && a < SHMC_A_COUNT && takes_device[a];
}

void shmc__algo_var(int c, char *var, size_t len)
{
    size_t k = (size_t)snprintf(var, len, "SHMC_ALGO_");
    for (const char *p = shmc__coll_names[c]; *p && k + 1 < len; p++)
        var[k++] = (char)toupper((unsigned char)*p);
    var[k] = '\0';
}
