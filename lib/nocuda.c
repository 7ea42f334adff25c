/*
 * The device backend of a build without CUDA (memkind.h): no buffer is device memory.
 */
#include <stdio.h>

#include "memkind.h"

int shmc__dev_probe(char *why, size_t len)
{
    if (why && len)
        snprintf(why, len,
                 "this libshmcomm was built without CUDA (build with make CUDA=1 "
                 "where the CUDA Toolkit is installed)");
    return 0;
}

const char *shmc__dev_backend(void)
{
    return "none";
}
