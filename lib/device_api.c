/*
 * The public device helpers (shmcomm.h): choosing the GPU of this rank. Everything else
 * about device buffers is automatic, inside the calls that take buffers (memkind.h).
 */
#include "internal.h"
#include "memkind.h"

SHMC_API int shmc_device_select(int *device)
{
    if (device)
        *device = -1;
    if (shmc__g.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    if (!device)
        return SHMC_ERR_ARG;
    return shmc__dev_select(shmc__g.local_rank, device);
}
