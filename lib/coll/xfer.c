/*
 * Messages on the collective context (xfer.h): thin wrappers over the point-to-point
 * layer that take comm ranks, expect exact sizes and clean up after themselves.
 */
#include "coll/xfer.h"

#include "base/log.h"
#include "coll/callword.h"
#include "coll/local.h"
#include "p2p/outq.h"
#include "p2p/take.h"

/* Messages carry their call's tag (base/callword.h; 0 with SHMC_CHECK=0). A receive takes
 * whatever comes next from its source on the context, and compares tags when it ends
 * (shmc__cx_waitall): between one pair on one communicator collectives' messages arrive
 * in call order, so the next message from src is this call's unless src made another.
 *
 * A message of a call on a communicator whose collectives are quit already (a member's
 * quit read while an earlier step of this call waited) is not posted: the quit has been
 * acted on, so nothing would fail its request, and the member that quit neither sends
 * nor reads any more. */
static int quit_already(const struct shmc__cx *x, struct shmc__request **req)
{
    *req = NULL;
    return shmc__cx_quit(x, x->c->quit);
}

/* A send of `bytes` to comm rank dst; in an exchange (`exchange`: this rank receives in
 * the same step) by single copy where the exchange rule takes it (xfer.h). */
static int isend(const struct shmc__cx *x, const void *buf, size_t bytes, int dst, int exchange,
                 struct shmc__request **req)
{
    if (x->c->quit)
        return quit_already(x, req);
    struct shmc__p2p *p = x->co->p2p;
    int w = shmc__comm_world_rank(x->c, dst), tag = shmc__call_tag(x->hash);
    if (exchange && shmc__exchange_single_copy(x->co, w, bytes, x->dev))
        return shmc__cx_quit(x, shmc__post_ssend(p, buf, bytes, 1, w, tag, x->ctx, x->c, req));
    /* An eager message that fits the mailbox now needs no request: NULL is a finished
     * one to waitall and cancel (the roots of the flat collectives send n - 1 of them). */
    if (shmc__send_now(p, buf, bytes, x->dev, w, tag, x->ctx)) {
        *req = NULL;
        return SHMC_OK;
    }
    return shmc__cx_quit(x, shmc__post_send(p, buf, bytes, 1, w, tag, x->ctx, x->c, x->dev, req));
}

int shmc__cx_isend(const struct shmc__cx *x, const void *buf, size_t bytes, int dst,
                   struct shmc__request **req)
{
    return isend(x, buf, bytes, dst, 0, req);
}

static int irecv(const struct shmc__cx *x, void *buf, size_t bytes, int src, int kept,
                 struct shmc__request **req)
{
    if (x->c->quit)
        return quit_already(x, req);
    int (*post)(struct shmc__p2p *, void *, size_t, size_t, int, int, uint32_t,
                const struct shmc__comm *, int, struct shmc__request **) =
        kept ? shmc__post_recv_kept : shmc__post_recv;
    return shmc__cx_quit(x, post(x->co->p2p, buf, bytes, 1, shmc__comm_world_rank(x->c, src),
                                 x->hash ? SHMC_ANY : 0, x->ctx, x->c, x->dev, req));
}

int shmc__cx_irecv(const struct shmc__cx *x, void *buf, size_t bytes, int src,
                   struct shmc__request **req)
{
    return irecv(x, buf, bytes, src, 0, req);
}

int shmc__cx_irecv_kept(const struct shmc__cx *x, void *buf, size_t bytes, int src,
                        struct shmc__request **req)
{
    return irecv(x, buf, bytes, src, 1, req);
}

/* A message from world rank peer of another call (another tag, shmc__cx_isend, or another
 * size than the algorithm expects, if sized): says so. */
static void other_call(const struct shmc__cx *x, int peer, int sized)
{
    SHMC_CX_MISMATCH(x,
                     "; rank %d sent it a message of %s (another collective, count, dtype, op or "
                     "root; SHMC_CHECK=1 says which)",
                     shmc__comm_local_rank(x->c, peer), sized ? "another size" : "another call");
}

/* The failure protocol's rule for a call's own requests (p2p/quit.c): on the first that
 * fails, this rank quits at once (a peer may be waiting for a message we would have sent
 * later, and stops only when it learns), then waits for the rest, each of which a peer
 * either finishes or declines. Only then may the buffers go back to the caller. */
int shmc__cx_waitall(const struct shmc__cx *x, size_t n, struct shmc__request **reqs)
{
    /* Every message went as it was posted (an eager send straight into its mailbox: NULL):
     * nothing to wait for. A root's sends of a small broadcast or scatter, each call. */
    uintptr_t any = 0;
    for (size_t i = 0; i < n; i++)
        any |= (uintptr_t)reqs[i];
    if (!any)
        return SHMC_OK;
    struct shmc__p2p *p = x->co->p2p;
    int first = SHMC_OK, said = 0, want = x->hash ? shmc__call_tag(x->hash) : SHMC_ANY;
    int err = shmc__wait_requests_exact(p, n, reqs, want);
    if (err != SHMC_OK) {
        shmc__cx_quit(x, x->c->quit ? x->c->quit : err);
        shmc__wait_requests(p, n, reqs);
    }
    for (size_t i = 0; i < n; i++) {
        struct shmc__request *r = reqs[i];
        if (!r)
            continue;
        /* A message of another size or tag than the algorithm expects means the ranks
         * made different calls: said once, by every rank that got one, even where an
         * earlier request ended with a peer's quit for it (with many messages in flight,
         * every rank that found it may have seen another's quit first). */
        int mismatch = shmc__req_other_call(r, want);
        if (mismatch && !said) {
            other_call(x, r->peer, r->msg_bytes != r->bytes);
            said = 1;
        }
        int rc = shmc__finish(p, r, NULL);
        if (mismatch)
            rc = SHMC_ERR_MISMATCH;
        if (first == SHMC_OK)
            first = rc;
        reqs[i] = NULL;
    }
    return shmc__cx_quit(x, first);
}

int shmc__cx_send(const struct shmc__cx *x, const void *buf, size_t bytes, int dst)
{
    struct shmc__request *r;
    int rc = shmc__cx_isend(x, buf, bytes, dst, &r);
    /* (an eager message that went at once has no request: no wait to call) */
    return rc != SHMC_OK || !r ? rc : shmc__cx_waitall(x, 1, &r);
}

static int recv(const struct shmc__cx *x, void *buf, size_t bytes, int src, int kept)
{
    /* With nothing else pending, the message is taken from src's mailbox with no request
     * (p2p/take.h), as shmc_recv does: a non-root's whole part of a small broadcast.
     * What is first there is then this call's message or another call's, never a later
     * one of this call (a receive takes whatever comes next from its source: above). */
    struct shmc__p2p *p = x->co->p2p;
    int w = shmc__comm_world_rank(x->c, src);
    if (!x->c->quit && shmc__take_may(p, w, x->dev)) {
        int want = x->hash ? shmc__call_tag(x->hash) : SHMC_ANY;
        shmc_status st;
        int rc = shmc__take_eager(p, buf, bytes, 1, w, x->hash ? SHMC_ANY_TAG : 0, x->ctx, w,
                                  shmc__take_spins(p), &st);
        if (rc != 1) {
            if (rc == SHMC_OK && st.count == bytes && (want == SHMC_ANY || st.tag == want))
                return SHMC_OK;
            other_call(x, w, rc == SHMC_ERR_TRUNCATE || st.count != bytes);
            return shmc__cx_quit(x, SHMC_ERR_MISMATCH);
        }
    }
    struct shmc__request *r;
    int rc = irecv(x, buf, bytes, src, kept, &r);
    return rc != SHMC_OK ? rc : shmc__cx_waitall(x, 1, &r);
}

int shmc__cx_recv(const struct shmc__cx *x, void *buf, size_t bytes, int src)
{
    return recv(x, buf, bytes, src, 0);
}

int shmc__cx_recv_kept(const struct shmc__cx *x, void *buf, size_t bytes, int src)
{
    return recv(x, buf, bytes, src, 1);
}

int shmc__cx_sendrecv_copy(const struct shmc__cx *x, const void *sbuf, size_t sbytes, int dst,
                           void *rbuf, size_t rbytes, int src, void *cdst, const void *csrc,
                           size_t cbytes)
{
    struct shmc__request *r[2] = {NULL, NULL};
    int rc = SHMC_OK;
    /* The receive first, so that a large message from src finds it posted. */
    if (src >= 0)
        rc = shmc__cx_irecv(x, rbuf, rbytes, src, &r[0]);
    if (rc == SHMC_OK && dst >= 0)
        rc = isend(x, sbuf, sbytes, dst, src >= 0, &r[1]);
    if (rc != SHMC_OK) {
        shmc__cx_cancel(x, 2, r);
        return rc;
    }
    return shmc__cx_copy_waitall(x, cdst, csrc, cbytes, 2, r);
}

int shmc__cx_sendrecv(const struct shmc__cx *x, const void *sbuf, size_t sbytes, int dst,
                      void *rbuf, size_t rbytes, int src)
{
    return shmc__cx_sendrecv_copy(x, sbuf, sbytes, dst, rbuf, rbytes, src, NULL, NULL, 0);
}

int shmc__cx_post_all(const struct shmc__cx *x, uint8_t *base, size_t stride, size_t bytes,
                      int recv, struct shmc__request **reqs, size_t *nreq)
{
    int rc = SHMC_OK;
    *nreq = 0;
    for (int k = 1; k < x->n && rc == SHMC_OK; k++) {
        int r = (x->me + k) % x->n;
        uint8_t *b = base + (size_t)r * stride;
        rc = recv ? shmc__cx_irecv(x, b, bytes, r, &reqs[*nreq])
                  : shmc__cx_isend(x, b, bytes, r, &reqs[*nreq]);
        if (rc == SHMC_OK)
            ++*nreq;
    }
    if (rc != SHMC_OK)
        shmc__cx_cancel(x, *nreq, reqs);
    return rc;
}

void shmc__cx_cancel(const struct shmc__cx *x, size_t n, struct shmc__request **reqs)
{
    struct shmc__p2p *p = x->co->p2p;
    for (size_t i = 0; i < n; i++) {
        if (reqs[i] && reqs[i]->state == SHMC_RS_ACTIVE) {
            /* Requests left over from a failed call: quit (which fails those nobody
             * works on), then wait for the others (see shmc__cx_waitall). */
            shmc__cx_quit(x, x->c->quit ? x->c->quit : SHMC_ERR_PEER_DEAD);
            shmc__wait_requests(p, n, reqs);
            break;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        shmc__req_free(&p->reqs, reqs[i]);
        reqs[i] = NULL;
    }
}

int shmc__cx_copy_waitall(const struct shmc__cx *x, void *dst, const void *src, size_t bytes,
                          size_t n, struct shmc__request **reqs)
{
    int crc = shmc__cx_copy(x, dst, src, bytes);
    int wrc = shmc__cx_waitall(x, n, reqs);
    return crc != SHMC_OK ? crc : wrc;
}
