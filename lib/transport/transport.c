/*
 * Choosing a transport for each peer, and what is the same for every transport: the
 * endpoint's initial state and its liveness flag. The list holds the shared-memory
 * transport alone today; a transport for ranks on other machines goes after it.
 */
#include <string.h>

#include "base/log.h"
#include "transport/transport.h"

static const struct shmc__transport *const transports[] = {&shmc__transport_shm};

void shmc__tp_init(struct shmc__tp *t, struct shmc__arena *a, int rank, int size, int fenced,
                   int want_single_copy)
{
    t->arena = a;
    t->rank = rank;
    t->size = size;
    t->fenced = fenced;
    t->cma_self = want_single_copy && shmc__cma_probe();
    if (want_single_copy && !t->cma_self)
        SHMC_INFO("process_vm_readv is not available (%s): large messages go through the "
                  "mailboxes",
                  strerror(errno));
}

int shmc__ep_connect(const struct shmc__tp *t, struct shmc__ep *ep, int peer)
{
    memset(ep, 0, sizeof *ep);
    ep->cb = shmc__arena_cb(t->arena, (unsigned)peer);
    ep->fenced = t->fenced;
    ep->peer = peer;
    ep->pidfd = -1;
    ep->sc = t->cma_self ? SHMC_SC_ALLOWED : SHMC_SC_REFUSED;
    ep->put_ok = 1;
    for (size_t i = 0; i < sizeof transports / sizeof *transports; i++) {
        if (transports[i]->reaches(t, peer)) {
            ep->ops = transports[i];
            return ep->ops->connect(t, ep, peer);
        }
    }
    SHMC_ERROR("no transport reaches rank %d", peer);
    return SHMC_ERR_SYS;
}

void shmc__ep_disconnect(struct shmc__ep *ep)
{
    if (ep->ops)
        ep->ops->disconnect(ep);
    ep->ops = NULL;
}

int shmc__ep_refresh(const struct shmc__tp *t, struct shmc__ep *ep, int probe)
{
    if (ep->gone || !ep->ops->left(t, ep, probe))
        return 0;
    ep->gone = 1;
    return 1;
}

int shmc__ep_break(struct shmc__ep *ep, const char *what)
{
    if (ep->broken)
        return 0;
    ep->broken = 1;
    if (what)
        SHMC_ERROR("%s: shared memory was corrupted; operations with rank %d fail with "
                   "SHMC_ERR_CORRUPT",
                   what, ep->peer);
    return 1;
}
