/*
 * shmc_cancel: a receive that no message has matched yet leaves the posted queue and is
 * freed. Once matched (or for a send, which a peer may be reading) the operation runs to
 * its end; cancelling then would lose a message the sender believes delivered.
 */
#include "p2p/p2p.h"

static int shmc_cancel_call(shmc_request **req)
{
    struct shmc__p2p *p = &shmc__p2p;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    if (!req)
        return SHMC_ERR_ARG;
    struct shmc__request *r = *req ? shmc__req_from_handle(&p->reqs, *req) : NULL;
    if (!r)
        return SHMC_ERR_ARG;
    if (r->kind != SHMC_REQ_RECV || r->state != SHMC_RS_ACTIVE || r->proto != SHMC_P_POSTED)
        return SHMC_ERR_STATE;
    shmc__p2p_cancel(p, r, SHMC_OK);
    shmc__req_free(&p->reqs, r);
    *req = NULL;
    return SHMC_OK;
}

SHMC_API int shmc_cancel(shmc_request **req)
{
    SHMC_GUARDED(&shmc__p2p, shmc_cancel_call(req));
}
