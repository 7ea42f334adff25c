/*
 * Errors of the MPI layer: codes and classes, their strings, error handlers, and raising
 * an error on a communicator. A code is either an MPI class itself (0 .. 60) or, for a
 * shmcomm error that no class names exactly (a collective's mismatch, a time-out, ...),
 * SHMC_MPI_CODE0 + its number, whose class is MPI_ERR_OTHER or the nearest one and whose
 * string is shmcomm's own. Classes and codes a program adds (MPI_Add_error_class,
 * MPI_Add_error_code) follow MPI_ERR_LASTCODE, as MPI asks (MPI_LASTUSEDCODE is the last of
 * them). The detail of the last error (which argument, which value) is kept for the fatal
 * handler's message.
 */
#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHMC_MPI_CODE0 64
#define SHMC_MPI_NSHMC 18 /* shmcomm's errors are -1 .. -18 */

static _Thread_local char detail[MPI_MAX_ERROR_STRING]; /* each thread's own error */

static const char *const class_names[] = {
    "MPI_SUCCESS: no error",
    "MPI_ERR_BUFFER: invalid buffer pointer",
    "MPI_ERR_COUNT: invalid count argument",
    "MPI_ERR_TYPE: invalid datatype",
    "MPI_ERR_TAG: invalid tag",
    "MPI_ERR_COMM: invalid communicator",
    "MPI_ERR_RANK: invalid rank",
    "MPI_ERR_REQUEST: invalid request",
    "MPI_ERR_ROOT: invalid root",
    "MPI_ERR_GROUP: invalid group",
    "MPI_ERR_OP: invalid reduction operation",
    "MPI_ERR_TOPOLOGY: invalid topology",
    "MPI_ERR_DIMS: invalid dimension argument",
    "MPI_ERR_ARG: invalid argument",
    "MPI_ERR_UNKNOWN: unknown error",
    "MPI_ERR_TRUNCATE: message truncated",
    "MPI_ERR_OTHER: other error",
    "MPI_ERR_INTERN: internal error",
    "MPI_ERR_IN_STATUS: error code is in status",
    "MPI_ERR_PENDING: pending request",
    "MPI_ERR_KEYVAL: invalid keyval",
    "MPI_ERR_NO_MEM: out of memory",
    "MPI_ERR_BASE: invalid base",
    "MPI_ERR_INFO_KEY: invalid info key",
    "MPI_ERR_INFO_VALUE: invalid info value",
    "MPI_ERR_INFO_NOKEY: no such info key",
    "MPI_ERR_SPAWN: spawn error",
    "MPI_ERR_PORT: invalid port",
    "MPI_ERR_SERVICE: invalid service",
    "MPI_ERR_NAME: invalid name",
    "MPI_ERR_WIN: invalid window",
    "MPI_ERR_SIZE: invalid size",
    "MPI_ERR_DISP: invalid displacement",
    "MPI_ERR_INFO: invalid info object",
    "MPI_ERR_LOCKTYPE: invalid lock type",
    "MPI_ERR_ASSERT: invalid assert",
    "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    "MPI_ERR_RMA_SYNC: wrong synchronisation of RMA calls",
    "MPI_ERR_FILE: invalid file handle",
    "MPI_ERR_NOT_SAME: collective arguments not identical",
    "MPI_ERR_AMODE: invalid access mode",
    "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported by shmcomm's MPI interface",
    "MPI_ERR_NO_SUCH_FILE: no such file",
    "MPI_ERR_FILE_EXISTS: file exists",
    "MPI_ERR_BAD_FILE: invalid file name",
    "MPI_ERR_ACCESS: permission denied",
    "MPI_ERR_NO_SPACE: not enough space",
    "MPI_ERR_QUOTA: quota exceeded",
    "MPI_ERR_READ_ONLY: read-only file or file system",
    "MPI_ERR_FILE_IN_USE: file in use",
    "MPI_ERR_DUP_DATAREP: data representation defined twice",
    "MPI_ERR_CONVERSION: conversion error",
    "MPI_ERR_IO: I/O error",
    "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    "MPI_ERR_RMA_RANGE: target memory out of the window",
    "MPI_ERR_RMA_SHARED: memory cannot be shared",
    "MPI_ERR_PROC_ABORTED: a peer process aborted or died, or a member left the "
    "communicator's collectives after a failure of its own (its error message says which)",
    "MPI_ERR_SESSION: invalid session",
    "MPI_ERR_VALUE_TOO_LARGE: value too large",
};
#define NCLASS ((int)(sizeof class_names / sizeof class_names[0]))

/* The class of each shmcomm error (index: -err). */
static const int shmc_class[SHMC_MPI_NSHMC + 1] = {
    [-SHMC_ERR_ARG] = MPI_ERR_ARG,
    [-SHMC_ERR_RANK] = MPI_ERR_RANK,
    [-SHMC_ERR_TAG] = MPI_ERR_TAG,
    [-SHMC_ERR_TRUNCATE] = MPI_ERR_TRUNCATE,
    [-SHMC_ERR_PEER_DEAD] = MPI_ERR_PROC_ABORTED,
    [-SHMC_ERR_ABORTED] = MPI_ERR_PROC_ABORTED,
    [-SHMC_ERR_TIMEOUT] = MPI_ERR_OTHER,
    [-SHMC_ERR_MISMATCH] = MPI_ERR_NOT_SAME,
    [-SHMC_ERR_NOMEM] = MPI_ERR_NO_MEM,
    [-SHMC_ERR_CUDA] = MPI_ERR_OTHER,
    [-SHMC_ERR_NOT_INIT] = MPI_ERR_OTHER,
    [-SHMC_ERR_SYS] = MPI_ERR_OTHER,
    [-SHMC_ERR_STATE] = MPI_ERR_OTHER,
    [-SHMC_ERR_NOSHM] = MPI_ERR_NO_MEM,
    [-SHMC_ERR_ENV] = MPI_ERR_OTHER,
    [-SHMC_ERR_CORRUPT] = MPI_ERR_INTERN,
    [-SHMC_ERR_LIMIT] = MPI_ERR_OTHER,
    [-SHMC_ERR_THREAD] = MPI_ERR_OTHER,
};

int shmc_mpi__err(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return code;
}

int shmc_mpi__from_shmc(int err)
{
    if (err >= 0)
        return MPI_SUCCESS;
    if (-err > SHMC_MPI_NSHMC)
        return shmc_mpi__err(MPI_ERR_INTERN, "shmcomm error %d", err);
    detail[0] = '\0'; /* the code's own string says it all */
    /* The codes a program compares with a class directly stay that class. */
    switch (err) {
    case SHMC_ERR_ARG:
    case SHMC_ERR_RANK:
    case SHMC_ERR_TAG:
    case SHMC_ERR_TRUNCATE:
    case SHMC_ERR_NOMEM:
    case SHMC_ERR_PEER_DEAD:
        return shmc_class[-err];
    default:
        return SHMC_MPI_CODE0 + -err;
    }
}

/* ---- classes, codes and strings added at run time ---------------------------------------- */

/* Added code MPI_ERR_LASTCODE + 1 + i is added[i]: its class (itself for a class) and its
 * string (NULL: none set, read as ""). */
struct added {
    int cls;
    char *str;
};
static struct added *added;
static int nadded;

static struct added *added_of(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < nadded ? &added[i] : NULL;
}

int shmc_mpi__last_used_code(void)
{
    return MPI_ERR_LASTCODE + nadded;
}

static int add(int cls, int *out, const char *fn)
{
    int rc = shmc_mpi__check_running();
    if (rc == MPI_SUCCESS && !out)
        rc = shmc_mpi__err(MPI_ERR_ARG, "the output argument is NULL");
    shmc_mpi__lock();
    if (rc == MPI_SUCCESS && nadded >= INT32_MAX - MPI_ERR_LASTCODE - 1)
        rc = shmc_mpi__err(MPI_ERR_OTHER, "no error code is left");
    struct added *t = rc == MPI_SUCCESS ? realloc(added, (size_t)(nadded + 1) * sizeof *t) : NULL;
    if (rc == MPI_SUCCESS && !t)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "an error code");
    if (rc == MPI_SUCCESS) {
        added = t;
        int code = MPI_ERR_LASTCODE + 1 + nadded;
        added[nadded++] = (struct added){cls < 0 ? code : cls, NULL};
        *out = code;
    }
    shmc_mpi__unlock();
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
}

int PMPI_Add_error_class(int *errorclass)
{
    return add(-1, errorclass, __func__);
}
SHMC_MPI_ALIAS(Add_error_class);

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    shmc_mpi__lock();
    const struct added *a = added_of(errorclass);
    int known = a && a->cls == errorclass;
    shmc_mpi__unlock();
    if ((errorclass < 0 || errorclass >= NCLASS) && !known)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "%d is not an error class", errorclass));
    return add(errorclass, errorcode, __func__);
}
SHMC_MPI_ALIAS(Add_error_code);

int PMPI_Add_error_string(int errorcode, const char *string)
{
    shmc_mpi__lock();
    struct added *a = added_of(errorcode);
    int rc = shmc_mpi__check_running();
    if (rc == MPI_SUCCESS && !a)
        rc = shmc_mpi__err(MPI_ERR_ARG,
                           "%d is no code or class added by the program: only "
                           "those take a string",
                           errorcode);
    if (rc == MPI_SUCCESS && !string)
        rc = shmc_mpi__err(MPI_ERR_ARG, "string is NULL");
    if (rc == MPI_SUCCESS && strlen(string) >= MPI_MAX_ERROR_STRING)
        rc = shmc_mpi__err(MPI_ERR_ARG, "the string is longer than MPI_MAX_ERROR_STRING - 1");
    char *copy = rc == MPI_SUCCESS ? strdup(string) : NULL;
    if (rc == MPI_SUCCESS && !copy)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "an error string");
    if (rc == MPI_SUCCESS) {
        free(a->str);
        a->str = copy;
    }
    shmc_mpi__unlock();
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Add_error_string);

void shmc_mpi__errors_end(void)
{
    for (int i = 0; i < nadded; i++)
        free(added[i].str);
    free(added);
    added = NULL;
    nadded = 0;
}

static int class_of(int code)
{
    if (code >= 0 && code < NCLASS)
        return code;
    if (code > SHMC_MPI_CODE0 && code <= SHMC_MPI_CODE0 + SHMC_MPI_NSHMC)
        return shmc_class[code - SHMC_MPI_CODE0];
    const struct added *a = added_of(code);
    return a ? a->cls : -1;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    shmc_mpi__lock();
    int c = class_of(errorcode);
    shmc_mpi__unlock();
    if (c < 0)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "%d is not an error code", errorcode));
    if (!errorclass)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "errorclass is NULL"));
    *errorclass = c;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Error_class);

static const char *string_of(int code)
{
    static char shmc_strings[SHMC_MPI_NSHMC + 1][MPI_MAX_ERROR_STRING];
    if (code >= 0 && code < NCLASS)
        return class_names[code];
    if (code > SHMC_MPI_CODE0 && code <= SHMC_MPI_CODE0 + SHMC_MPI_NSHMC) {
        int i = code - SHMC_MPI_CODE0;
        if (!shmc_strings[i][0]) {
            /* "MPI_ERR_OTHER: timed out": the class's name, then shmcomm's sentence */
            const char *cls = class_names[shmc_class[i]];
            int n = (int)(strchr(cls, ':') - cls);
            snprintf(shmc_strings[i], MPI_MAX_ERROR_STRING, "%.*s: %s", n, cls, shmc_strerror(-i));
        }
        return shmc_strings[i];
    }
    const struct added *a = added_of(code);
    return a ? (a->str ? a->str : "") : NULL;
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "string or resultlen is NULL"));
    shmc_mpi__lock(); /* (an added string may be replaced meanwhile; shmcomm's are made once) */
    const char *s = string_of(errorcode);
    int n = s ? snprintf(string, MPI_MAX_ERROR_STRING, "%s", s) : 0;
    shmc_mpi__unlock();
    if (!s)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "%d is not an error code", errorcode));
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Error_string);

/* ---- error handlers ------------------------------------------------------------------ */

/* A user handler lives while its handle or a communicator holds it (MPI 4.1, 9.3.4):
 * refs counts them, and its slot is reused once the last goes. */
#define MAX_HANDLERS 64
static MPI_Comm_errhandler_function *handlers[MAX_HANDLERS]; /* 0 .. 3: predefined */
static int refs[MAX_HANDLERS];
/* What each user handler was made for (SHMC_MPI_EH_*): a handler is called with a handle
 * of its kind (sessions' handlers are stored cast to the communicators' type and cast
 * back; windows' have the communicators' shape). */
static int kinds[MAX_HANDLERS];
static const char *const kind_names[] = {"communicators", "sessions", "windows"};
static const char *const kind_calls[] = {"Comm", "Session", "Win"};

/* Adds delta holds to handler h (the predefined ones are not counted). Under the lock. */
static void hold(MPI_Errhandler h, int delta)
{
    if (h <= MPI_ERRORS_ABORT || h >= MAX_HANDLERS || !handlers[h])
        return;
    if ((refs[h] += delta) <= 0) {
        refs[h] = 0;
        handlers[h] = NULL;
    }
}

void shmc_mpi__errh_set(struct shmc_mpi_comm *c, MPI_Errhandler h)
{
    shmc_mpi__lock();
    hold(h, 1);
    hold(c->errh, -1);
    c->errh = h;
    shmc_mpi__unlock();
}

static int handler_ok(MPI_Errhandler h)
{
    return h >= MPI_ERRORS_ARE_FATAL && h < MAX_HANDLERS &&
           (h <= MPI_ERRORS_ABORT || handlers[h] != NULL);
}

/* Makes a handler of a kind; returns an MPI code (not raised). */
static int create(MPI_Comm_errhandler_function *fn, int kind, MPI_Errhandler *errhandler)
{
    if (!fn || !errhandler)
        return shmc_mpi__err(MPI_ERR_ARG, "function or errhandler is NULL");
    shmc_mpi__lock();
    for (int h = MPI_ERRORS_ABORT + 1; h < MAX_HANDLERS; h++)
        if (!handlers[h]) {
            handlers[h] = fn;
            kinds[h] = kind;
            refs[h] = 1; /* the handle's */
            *errhandler = h;
            shmc_mpi__unlock();
            return MPI_SUCCESS;
        }
    shmc_mpi__unlock();
    return shmc_mpi__err(MPI_ERR_OTHER, "more than %d error handlers at once",
                         MAX_HANDLERS - MPI_ERRORS_ABORT - 1);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    int rc = create(fn, SHMC_MPI_EH_COMM, errhandler);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Comm_create_errhandler);

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    int rc = create((MPI_Comm_errhandler_function *)fn, SHMC_MPI_EH_SESSION, errhandler);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Session_create_errhandler);

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    int rc = create((MPI_Comm_errhandler_function *)fn, SHMC_MPI_EH_WIN, errhandler);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Win_create_errhandler);

int shmc_mpi__errh_check(MPI_Errhandler h, int kind)
{
    if (!handler_ok(h))
        return shmc_mpi__err(MPI_ERR_ARG, "%d is not an error handler", h);
    if (h > MPI_ERRORS_ABORT && kinds[h] != kind)
        return shmc_mpi__err(MPI_ERR_ARG,
                             "error handler %d was made for %s (MPI_%s_create_errhandler makes "
                             "one for %s)",
                             h, kind_names[kinds[h]], kind_calls[kind], kind_names[kind]);
    return MPI_SUCCESS;
}

void shmc_mpi__errh_hold(MPI_Errhandler h, int delta)
{
    shmc_mpi__lock();
    hold(h, delta);
    shmc_mpi__unlock();
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler || !handler_ok(*errhandler))
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "not an error handler"));
    /* A handler still set on a communicator stays usable there until the last goes. */
    shmc_mpi__lock();
    hold(*errhandler, -1);
    shmc_mpi__unlock();
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Errhandler_free);

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    int rc;
    struct shmc_mpi_comm *c = shmc_mpi__comm_any(comm, &rc);
    if (!c)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if ((rc = shmc_mpi__errh_check(errhandler, SHMC_MPI_EH_COMM)) != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    shmc_mpi__errh_set(c, errhandler);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_set_errhandler);

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    int rc;
    struct shmc_mpi_comm *c = shmc_mpi__comm_any(comm, &rc);
    if (!c)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    if (!errhandler)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "errhandler is NULL"));
    shmc_mpi__lock();
    hold(c->errh, 1); /* a new handle to it, which the program frees (MPI 4.1, 9.3.1) */
    *errhandler = c->errh;
    shmc_mpi__unlock();
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_get_errhandler);

MPI_Errhandler shmc_mpi__comm_errhandler(MPI_Comm comm)
{
    /* Read the table directly: a failed lookup would overwrite the error's detail. */
    struct shmc_mpi_comm *c = shmc_mpi__table_get(&shmc_mpi__comms, comm);
    if (!c) /* no such communicator (or none yet): the world's handler, as MPI 3 says */
        c = shmc_mpi__table_get(&shmc_mpi__comms, MPI_COMM_WORLD);
    return c ? c->errh : MPI_ERRORS_ARE_FATAL;
}

static const char *comm_label(MPI_Comm comm, char *buf, size_t len)
{
    if (comm == MPI_COMM_WORLD)
        return "MPI_COMM_WORLD";
    if (comm == MPI_COMM_SELF)
        return "MPI_COMM_SELF";
    snprintf(buf, len, "communicator %d", comm);
    return buf;
}

/* Hands code to handler h on behalf of fn, for obj (a session or a communicator: a
 * user handler's kind says which it takes; label names obj in the fatal message). */
static int invoke(MPI_Errhandler h, int kind, int obj, const char *label, int code, const char *fn)
{
    const char *name = fn && fn[0] == 'P' ? fn + 1 : fn; /* PMPI_Send: MPI_Send */
    if (h == MPI_ERRORS_RETURN)
        return code;
    if (h > MPI_ERRORS_ABORT && h < MAX_HANDLERS && handlers[h]) {
        if (kinds[h] == SHMC_MPI_EH_SESSION)
            ((MPI_Session_errhandler_function *)handlers[h])(&obj, &code);
        else
            handlers[h](&obj, &code);
        return code;
    }
    const char *s = string_of(code);
    fprintf(stderr, "shmcomm MPI: rank %d: %s on %s: %s%s%s\n", shmc_mpi__world_rank,
            name ? name : "MPI call", label, s ? s : "error", detail[0] ? ": " : "", detail);
    fprintf(stderr,
            "shmcomm MPI: rank %d: the error handler is MPI_ERRORS_ARE_FATAL: "
            "aborting the job (MPI_%s_set_errhandler with MPI_ERRORS_RETURN to "
            "handle errors)\n",
            shmc_mpi__world_rank, kind_calls[kind]);
    fflush(stderr);
    if (shmc_mpi__up)
        shmc_abort(1);
    exit(1);
}

int shmc_mpi__raise(MPI_Comm comm, int code, const char *fn)
{
    if (code == MPI_SUCCESS)
        return code;
    char lbl[32];
    return invoke(shmc_mpi__comm_errhandler(comm), SHMC_MPI_EH_COMM, comm,
                  comm_label(comm, lbl, sizeof lbl), code, fn);
}

int shmc_mpi__call_fail(const struct shmc_mpi_call *k, int rc)
{
    /* Before the handler runs: a fatal one ends the job, a returning one lets the program
     * go on, and the members must not be left waiting either way (mpi_impl.h). */
    if (k->coll && rc == MPI_ERR_NO_MEM)
        shmc_coll_quit(k->c->c, SHMC_ERR_NOMEM);
    return shmc_mpi__raise(k->h, rc, k->fn);
}

int shmc_mpi__raise_session(MPI_Session s, MPI_Errhandler h, int code, const char *fn)
{
    if (code == MPI_SUCCESS)
        return code;
    char lbl[32];
    snprintf(lbl, sizeof lbl, "session %d", s);
    return invoke(h, SHMC_MPI_EH_SESSION, s, lbl, code, fn);
}

int shmc_mpi__raise_win(MPI_Win w, MPI_Errhandler h, int code, const char *fn)
{
    if (code == MPI_SUCCESS)
        return code;
    char lbl[32];
    snprintf(lbl, sizeof lbl, "window %d", w);
    return invoke(h, SHMC_MPI_EH_WIN, w, lbl, code, fn);
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    int rc;
    if (!shmc_mpi__comm_any(comm, &rc))
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    detail[0] = '\0';
    shmc_mpi__raise(comm, errorcode, "PMPI_Comm_call_errhandler");
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Comm_call_errhandler);

int shmc_mpi__check_running(void)
{
    if (shmc_mpi__up)
        return MPI_SUCCESS;
    if (shmc_mpi__state == SHMC_MPI_FINALIZED)
        return shmc_mpi__err(MPI_ERR_OTHER, "called after MPI_Finalize");
    return shmc_mpi__err(MPI_ERR_OTHER, "called before MPI_Init (or MPI_Session_init)");
}

int shmc_mpi__unsupported(const char *name)
{
    return shmc_mpi__raise(
        MPI_COMM_WORLD,
        shmc_mpi__err(MPI_ERR_UNSUPPORTED_OPERATION,
                      "%s is not implemented by shmcomm's MPI interface (docs/mpi.md lists "
                      "what is)",
                      name),
        name);
}

int shmc_mpi__check_count(MPI_Count count)
{
    if (count < 0)
        return shmc_mpi__err(MPI_ERR_COUNT, "count %lld is negative", count);
    return MPI_SUCCESS;
}

int shmc_mpi__check_buf(const void *buf, MPI_Count count, const struct shmc_mpi_type *t)
{
    if (count < 0)
        return shmc_mpi__err(MPI_ERR_COUNT, "count %lld is negative", count);
    /* MPI_BOTTOM (NULL) is a valid base for types of absolute addresses: only a type
     * whose data starts at its origin cannot be read from there. */
    if (!buf && count > 0 && t->size > 0 && t->true_lb >= 0 && t->predefined)
        return shmc_mpi__err(MPI_ERR_BUFFER, "the buffer is NULL and count is %lld", count);
    return MPI_SUCCESS;
}
