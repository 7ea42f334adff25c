/*
 * MPI 4's sessions (MPI 4.1, 11.3): a program or a library starts MPI without MPI_Init,
 * learns the process sets, and makes communicators from their groups
 * (MPI_Comm_create_from_group). A session holds the runtime up (env.c) and has an error
 * handler of its own. The process sets are MPI's two, "mpi://WORLD" (the job) and
 * "mpi://SELF" (this process), named without regard to case as MPI asks; the thread
 * level is the runtime's, which the first of MPI_Init and the sessions chooses.
 */
#include "mpi_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct session {
    MPI_Errhandler errh;
};

/* Sessions by handle (1 ..). Its own lock: MPI_Session_init is thread-safe at every
 * level, and may run while the runtime, whose lock this would be, is not up. */
static struct session **table;
static int cap;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};
#define NPSETS ((int)(sizeof psets / sizeof psets[0]))

static const char *const level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

/* The session of a handle (its error handler copied to *errh), or NULL. */
static struct session *lookup(MPI_Session h, MPI_Errhandler *errh)
{
    pthread_mutex_lock(&mu);
    struct session *s = h > 0 && h < cap ? table[h] : NULL;
    if (s && errh)
        *errh = s->errh;
    pthread_mutex_unlock(&mu);
    return s;
}

/* An error of a call on session h: to its handler, or for a handle that names no session,
 * to the world's (MPI_ERRORS_ARE_FATAL while no communicator exists). */
static int raise_on(MPI_Session h, int code, const char *fn)
{
    MPI_Errhandler e;
    if (code == MPI_SUCCESS)
        return code;
    if (!lookup(h, &e))
        return shmc_mpi__raise(MPI_COMM_WORLD, code, fn);
    return shmc_mpi__raise_session(h, e, code, fn);
}

/* Checks handle h and returns MPI_SUCCESS, or raises MPI_ERR_SESSION on the world. */
static int check(MPI_Session h, const char *fn)
{
    if (lookup(h, NULL))
        return MPI_SUCCESS;
    return shmc_mpi__raise(MPI_COMM_WORLD,
                           shmc_mpi__err(MPI_ERR_SESSION, "%d is not a session%s", h,
                                         h == MPI_SESSION_NULL ? " (MPI_SESSION_NULL)" : ""),
                           fn);
}

/* The thread level an info object asks for (MPI_THREAD_SINGLE without one). */
static int level_asked(MPI_Info info, int *level)
{
    *level = MPI_THREAD_SINGLE;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    char v[64];
    int flag = 0;
    int rc = PMPI_Info_get(info, "thread_level", (int)sizeof v - 1, v, &flag);
    if (rc != MPI_SUCCESS || !flag)
        return rc;
    for (int l = 0; l < 4; l++)
        if (!strcasecmp(v, level_names[l])) {
            *level = l;
            return MPI_SUCCESS;
        }
    return shmc_mpi__err(MPI_ERR_INFO_VALUE,
                         "thread_level \"%s\" is none of MPI_THREAD_SINGLE, "
                         "MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED and MPI_THREAD_MULTIPLE",
                         v);
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    const char *fn = __func__;
    int level = MPI_THREAD_SINGLE, provided = 0;
    if (errhandler == MPI_ERRHANDLER_NULL)
        errhandler = MPI_ERRORS_ARE_FATAL;
    int rc = shmc_mpi__info_check(info);
    if (rc == MPI_SUCCESS && !session)
        rc = shmc_mpi__err(MPI_ERR_ARG, "session is NULL");
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__errh_check(errhandler, SHMC_MPI_EH_SESSION);
    if (rc == MPI_SUCCESS)
        rc = level_asked(info, &level);
    if (rc != MPI_SUCCESS)
        return shmc_mpi__raise_session(
            MPI_SESSION_NULL,
            shmc_mpi__errh_check(errhandler, SHMC_MPI_EH_SESSION) == MPI_SUCCESS ? errhandler : MPI_ERRORS_ARE_FATAL,
            rc, fn);
    struct session *s = malloc(sizeof *s);
    if (!s)
        return shmc_mpi__raise_session(MPI_SESSION_NULL, errhandler,
                                       shmc_mpi__err(MPI_ERR_NO_MEM, "a session"), fn);
    if ((rc = shmc_mpi__session_up(level, &provided)) != MPI_SUCCESS) {
        free(s);
        return shmc_mpi__raise_session(MPI_SESSION_NULL, errhandler, rc, fn);
    }
    s->errh = errhandler;
    shmc_mpi__errh_hold(errhandler, 1);
    pthread_mutex_lock(&mu);
    int h = 1;
    while (h < cap && table[h])
        h++;
    if (h >= cap) {
        int n = cap ? 2 * cap : 8;
        struct session **t = realloc(table, (size_t)n * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&mu);
            shmc_mpi__errh_hold(errhandler, -1);
            free(s);
            shmc_mpi__session_down();
            return shmc_mpi__raise_session(MPI_SESSION_NULL, errhandler,
                                           shmc_mpi__err(MPI_ERR_NO_MEM, "a session"), fn);
        }
        memset(t + cap, 0, (size_t)(n - cap) * sizeof *t);
        table = t;
        cap = n;
    }
    table[h] = s;
    pthread_mutex_unlock(&mu);
    *session = h;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_init);

int PMPI_Session_finalize(MPI_Session *session)
{
    if (!session)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "session is NULL"));
    int rc = check(*session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&mu);
    struct session *s = table[*session];
    table[*session] = NULL;
    pthread_mutex_unlock(&mu);
    shmc_mpi__errh_hold(s->errh, -1);
    free(s);
    *session = MPI_SESSION_NULL;
    rc = shmc_mpi__session_down();
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Session_finalize);

void shmc_mpi__session_end(void)
{
    pthread_mutex_lock(&mu);
    for (int h = 0; h < cap; h++)
        free(table[h]);
    free(table);
    table = NULL;
    cap = 0;
    pthread_mutex_unlock(&mu);
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!info_used)
        return raise_on(session, shmc_mpi__err(MPI_ERR_ARG, "info_used is NULL"), __func__);
    MPI_Info i = MPI_INFO_NULL;
    rc = PMPI_Info_create(&i);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(i, "thread_level", level_names[shmc_mpi__thread_level()]);
    if (rc != MPI_SUCCESS) {
        if (i != MPI_INFO_NULL)
            PMPI_Info_free(&i);
        return raise_on(session, rc, __func__);
    }
    *info_used = i;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_get_info);

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = shmc_mpi__info_check(info)) == MPI_SUCCESS && !npset_names)
        rc = shmc_mpi__err(MPI_ERR_ARG, "npset_names is NULL");
    if (rc != MPI_SUCCESS)
        return raise_on(session, rc, __func__);
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_get_num_psets);

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = shmc_mpi__info_check(info)) == MPI_SUCCESS && !pset_len)
        rc = shmc_mpi__err(MPI_ERR_ARG, "pset_len is NULL");
    if (rc == MPI_SUCCESS && (n < 0 || n >= NPSETS))
        rc = shmc_mpi__err(MPI_ERR_ARG, "process set %d: there are %d (0 .. %d)", n, NPSETS,
                           NPSETS - 1);
    if (rc == MPI_SUCCESS && *pset_len < 0)
        rc = shmc_mpi__err(MPI_ERR_ARG, "pset_len %d is negative", *pset_len);
    if (rc == MPI_SUCCESS && *pset_len > 0 && !pset_name)
        rc = shmc_mpi__err(MPI_ERR_ARG, "pset_name is NULL");
    if (rc != MPI_SUCCESS)
        return raise_on(session, rc, __func__);
    /* A length of 0 asks for the length (its terminating NUL counted); otherwise at most
     * *pset_len - 1 characters are copied, and the NUL. */
    int len = (int)strlen(psets[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]);
    *pset_len = len;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_get_nth_pset);

/* The process set named name: 0 (WORLD), 1 (SELF) or -1 with the error's detail. */
static int pset_of(const char *name)
{
    for (int i = 0; name && i < NPSETS; i++)
        if (!strcasecmp(name, psets[i]))
            return i;
    shmc_mpi__err(MPI_ERR_ARG, "\"%s\" is no process set (there are mpi://WORLD and mpi://SELF)",
                  name ? name : "(null)");
    return -1;
}

static int pset_size(int p)
{
    if (p == 1)
        return 1;
    const struct shmc_mpi_comm *w = shmc_mpi__table_get(&shmc_mpi__comms, MPI_COMM_WORLD);
    return w ? w->size : 0;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    int p = pset_of(pset_name);
    if (p < 0)
        rc = MPI_ERR_ARG;
    else if (!info)
        rc = shmc_mpi__err(MPI_ERR_ARG, "info is NULL");
    MPI_Info i = MPI_INFO_NULL;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_create(&i);
    if (rc == MPI_SUCCESS) {
        char v[16];
        snprintf(v, sizeof v, "%d", pset_size(p));
        rc = PMPI_Info_set(i, "mpi_size", v);
    }
    if (rc != MPI_SUCCESS) {
        if (i != MPI_INFO_NULL)
            PMPI_Info_free(&i);
        return raise_on(session, rc, __func__);
    }
    *info = i;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_get_pset_info);

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    int p = pset_of(pset_name);
    if (p < 0)
        rc = MPI_ERR_ARG;
    else if (!newgroup)
        rc = shmc_mpi__err(MPI_ERR_ARG, "newgroup is NULL");
    int n = p < 0 ? 0 : pset_size(p);
    int *world = rc == MPI_SUCCESS ? malloc((size_t)n * sizeof *world) : NULL;
    if (rc == MPI_SUCCESS && !world)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a group of %d", n);
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            world[i] = p == 1 ? shmc_mpi__world_rank : i;
        rc = shmc_mpi__group_new(n, world, newgroup);
    }
    return rc == MPI_SUCCESS ? rc : raise_on(session, rc, __func__);
}
SHMC_MPI_ALIAS(Group_from_session_pset);

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = shmc_mpi__errh_check(errhandler, SHMC_MPI_EH_SESSION)) != MPI_SUCCESS)
        return raise_on(session, rc, __func__);
    shmc_mpi__errh_hold(errhandler, 1);
    pthread_mutex_lock(&mu);
    struct session *s = table[session];
    MPI_Errhandler old = s->errh;
    s->errh = errhandler;
    pthread_mutex_unlock(&mu);
    shmc_mpi__errh_hold(old, -1);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_set_errhandler);

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!errhandler)
        return raise_on(session, shmc_mpi__err(MPI_ERR_ARG, "errhandler is NULL"), __func__);
    MPI_Errhandler e = MPI_ERRORS_ARE_FATAL;
    lookup(session, &e);
    shmc_mpi__errh_hold(e, 1); /* a new handle to it, which the program frees */
    *errhandler = e;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_get_errhandler);

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    int rc = check(session, __func__);
    if (rc != MPI_SUCCESS)
        return rc;
    shmc_mpi__err(errorcode, "%s", ""); /* no detail: the program's own code */
    raise_on(session, errorcode, __func__);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Session_call_errhandler);

MPI_Fint PMPI_Session_c2f(MPI_Session h)
{
    return (MPI_Fint)h;
}
SHMC_MPI_ALIAS(Session_c2f);

MPI_Session PMPI_Session_f2c(MPI_Fint h)
{
    return (MPI_Session)h;
}
SHMC_MPI_ALIAS(Session_f2c);
