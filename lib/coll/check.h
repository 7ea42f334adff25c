/*
 * SHMC_CHECK: the members agree that they all made the same call (check.c).
 */
#ifndef SHMC_CHECK_H
#define SHMC_CHECK_H

#include <stddef.h>

#include "coll/cx.h"

/* SHMC_OK if every member called collective coll with the same count, dtype, op, root
 * and memory kind; otherwise SHMC_ERR_MISMATCH on every member, with a message naming
 * which ranks called what. */
int shmc__coll_check(int coll, const struct shmc__cx *x, size_t count);

#endif /* SHMC_CHECK_H */
