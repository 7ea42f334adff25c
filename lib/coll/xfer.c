/*
 * Point-to-point on a communicator's collective context, for the mailbox algorithms:
 * thin wrappers over the matching engine that take comm ranks, expect exact sizes and
 * clean up after themselves.
 */
#include "coll.h"

#define COLL_TAG 0

int shmc__cx_isend(const struct shmc__cx *x, const void *buf, size_t bytes, int dst,
                   struct shmc__request **req)
{
    return shmc__post_send(buf, bytes, 1, shmc__comm_world_rank(x->c, dst), COLL_TAG, x->ctx, x->c,
                           x->dev, req);
}

int shmc__cx_irecv(const struct shmc__cx *x, void *buf, size_t bytes, int src,
                   struct shmc__request **req)
{
    return shmc__post_recv(buf, bytes, 1, shmc__comm_world_rank(x->c, src), COLL_TAG, x->ctx, x->c,
                           x->dev, req);
}

int shmc__cx_waitall(size_t n, struct shmc__request **reqs)
{
    int first = SHMC_OK;
    shmc__wait_requests(n, reqs);
    for (size_t i = 0; i < n; i++) {
        struct shmc__request *r = reqs[i];
        if (!r)
            continue;
        /* A message of another size than the algorithm expects means the ranks called
         * the collective with different counts. */
        int mismatch = r->kind == SHMC_REQ_RECV && r->err == SHMC_OK && r->msg_bytes != r->bytes;
        int rc = shmc__finish(r, NULL);
        if (rc == SHMC_ERR_TRUNCATE || mismatch)
            rc = SHMC_ERR_MISMATCH;
        if (first == SHMC_OK)
            first = rc;
        reqs[i] = NULL;
    }
    return first;
}

int shmc__cx_send(const struct shmc__cx *x, const void *buf, size_t bytes, int dst)
{
    struct shmc__request *r;
    int rc = shmc__cx_isend(x, buf, bytes, dst, &r);
    return rc != SHMC_OK ? rc : shmc__cx_waitall(1, &r);
}

int shmc__cx_recv(const struct shmc__cx *x, void *buf, size_t bytes, int src)
{
    struct shmc__request *r;
    int rc = shmc__cx_irecv(x, buf, bytes, src, &r);
    return rc != SHMC_OK ? rc : shmc__cx_waitall(1, &r);
}

int shmc__cx_sendrecv(const struct shmc__cx *x, const void *sbuf, size_t sbytes, int dst,
                      void *rbuf, size_t rbytes, int src)
{
    struct shmc__request *r[2] = {NULL, NULL};
    int rc = SHMC_OK;
    /* The receive first, so that a large message from src finds it posted. */
    if (src >= 0)
        rc = shmc__cx_irecv(x, rbuf, rbytes, src, &r[0]);
    if (rc == SHMC_OK && dst >= 0)
        rc = shmc__cx_isend(x, sbuf, sbytes, dst, &r[1]);
    if (rc != SHMC_OK) {
        shmc__cx_cancel(2, r);
        return rc;
    }
    return shmc__cx_waitall(2, r);
}

void shmc__cx_cancel(size_t n, struct shmc__request **reqs)
{
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        if (reqs[i]->state == SHMC_RS_ACTIVE)
            shmc__req_dequeue(reqs[i]);
        shmc__req_free(reqs[i]);
        reqs[i] = NULL;
    }
}
