/*
 * Start-up, finalization and the environment queries: MPI_Init on shmc_init, the
 * thread level and the layer's lock (mpi_impl.h, "threads"), clocks, versions, the
 * processor name, memory allocation and addresses.
 */
#include "mpi_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int shmc_mpi__state = SHMC_MPI_BEFORE;
int shmc_mpi__world_rank = -1;
static int thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;
int shmc_mpi__mt;
static pthread_mutex_t mu;

void shmc_mpi__lock_slow(void)
{
    pthread_mutex_lock(&mu);
}

void shmc_mpi__unlock_slow(void)
{
    pthread_mutex_unlock(&mu);
}

/* The runtime (the C library and the layer's tables) is up while the world model (MPI_Init
 * .. MPI_Finalize) or a session needs it. It comes up with the first of them; the last
 * session's end leaves it up (dormant) while the world model may still start, since
 * under shmrun a process joins its job once: MPI_Finalize, or the process's exit (an
 * atexit hook), takes it down. life guards the coming up and going down against threads
 * making sessions at once; under it, sessions counts the live sessions. */
int shmc_mpi__up;
static pthread_mutex_t life = PTHREAD_MUTEX_INITIALIZER;
static int sessions;
static int exit_hook;

static int runtime_up(int required)
{
    if (shmc_mpi__up)
        return MPI_SUCCESS;
    shmc_comm *world = NULL;
    int multiple = required >= MPI_THREAD_MULTIPLE;
    int err = shmc_init_thread(multiple ? SHMC_THREAD_MULTIPLE : SHMC_THREAD_SERIALIZED, &world);
    if (err != SHMC_OK)
        return shmc_mpi__from_shmc(err);
    shmc_mpi__world_rank = shmc_comm_rank(world);
    int rc = shmc_mpi__comm_start(world);
    if (rc != MPI_SUCCESS) {
        shmc_finalize();
        return rc;
    }
    thread_level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                   : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                    : required;
    if (multiple) {
        /* Recursive: callbacks run under it (attributes' copy and delete) may call MPI. */
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&mu, &a);
        pthread_mutexattr_destroy(&a);
        shmc_mpi__mt = 1;
    }
    main_thread = pthread_self();
    shmc_mpi__up = 1;
    return MPI_SUCCESS;
}

/* Takes the runtime down: the program's objects first (attributes' delete callbacks,
 * MPI_COMM_SELF's before all, may still call MPI: MPI 4.1, 11.2.2), then what it still
 * owes its peers, then the tables and the C library. */
static int runtime_down(void)
{
    int rc = shmc_mpi__comm_attrs_end();
    if (rc == MPI_SUCCESS)
        rc = shmc_mpi__type_attrs_end();
    if (rc != MPI_SUCCESS)
        return rc;
    /* Buffered sends and freed-but-active requests complete first: their messages are
     * the program's, and MPI says they are delivered. */
    shmc_mpi__bsend_end();
    shmc_mpi__request_end();
    shmc_mpi__messages_end();
    shmc_mpi__win_end();
    shmc_mpi__comm_end();
    shmc_mpi__group_end();
    shmc_mpi__type_end();
    shmc_mpi__f90_end();
    shmc_mpi__ops_end();
    shmc_mpi__attr_end();
    shmc_mpi__session_end();
    shmc_mpi__errors_end();
    int err = shmc_finalize();
    shmc_mpi__up = 0;
    if (shmc_mpi__mt) {
        shmc_mpi__mt = 0;
        pthread_mutex_destroy(&mu);
    }
    return err != SHMC_OK && err != SHMC_ERR_ABORTED ? shmc_mpi__from_shmc(err) : MPI_SUCCESS;
}

/* A process that used sessions alone, or ended them all, and exits without MPI_Finalize:
 * what it owes its peers is delivered and the C library let go, as MPI_Finalize would. */
static void at_exit(void)
{
    pthread_mutex_lock(&life);
    if (shmc_mpi__up && shmc_mpi__state != SHMC_MPI_RUNNING)
        runtime_down();
    pthread_mutex_unlock(&life);
}

int shmc_mpi__session_up(int required, int *provided)
{
    pthread_mutex_lock(&life);
    int rc = runtime_up(required);
    if (rc == MPI_SUCCESS) {
        sessions++;
        if (!exit_hook)
            exit_hook = atexit(at_exit) == 0;
        *provided = thread_level;
    }
    pthread_mutex_unlock(&life);
    return rc;
}

int shmc_mpi__session_down(void)
{
    pthread_mutex_lock(&life);
    int rc = MPI_SUCCESS;
    /* The last session after MPI_Finalize: nothing will need the runtime again. */
    if (--sessions == 0 && shmc_mpi__state == SHMC_MPI_FINALIZED)
        rc = runtime_down();
    pthread_mutex_unlock(&life);
    return rc;
}

int shmc_mpi__thread_level(void)
{
    return thread_level;
}

static int start(int required, int *provided, const char *fn)
{
    if (shmc_mpi__state != SHMC_MPI_BEFORE)
        return shmc_mpi__raise(MPI_COMM_WORLD,
                               shmc_mpi__err(MPI_ERR_OTHER, "%s",
                                             shmc_mpi__state == SHMC_MPI_RUNNING
                                                 ? "MPI is initialised already"
                                                 : "MPI was finalized and cannot start again"),
                               fn);
    pthread_mutex_lock(&life);
    int rc = runtime_up(required);
    if (rc == MPI_SUCCESS) {
        shmc_mpi__state = SHMC_MPI_RUNNING;
        main_thread = pthread_self();
    }
    pthread_mutex_unlock(&life);
    if (rc != MPI_SUCCESS)
        return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
    if (provided) /* a session may have brought the runtime up at another level */
        *provided = thread_level;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return start(MPI_THREAD_SINGLE, NULL, __func__);
}
SHMC_MPI_ALIAS(Init);

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    return start(required, provided, __func__);
}
SHMC_MPI_ALIAS(Init_thread);

int PMPI_Initialized(int *flag)
{
    if (!flag)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    *flag = shmc_mpi__state != SHMC_MPI_BEFORE;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Initialized);

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    *flag = shmc_mpi__state == SHMC_MPI_FINALIZED;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Finalized);

int PMPI_Finalize(void)
{
    if (shmc_mpi__state != SHMC_MPI_RUNNING)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_OTHER, "%s",
                                                            shmc_mpi__state == SHMC_MPI_BEFORE
                                                                ? "called before MPI_Init"
                                                                : "called after MPI_Finalize"));
    /* Live sessions keep the runtime: the last one's MPI_Session_finalize takes it down. */
    pthread_mutex_lock(&life);
    int rc = sessions ? MPI_SUCCESS : runtime_down();
    /* A delete callback's error leaves MPI running, as the callback asked. */
    if (rc == MPI_SUCCESS || !shmc_mpi__up)
        shmc_mpi__state = SHMC_MPI_FINALIZED;
    pthread_mutex_unlock(&life);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}
SHMC_MPI_ALIAS(Finalize);

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm; /* every process of the job goes, as most MPIs do for any comm */
    fprintf(stderr, "shmcomm MPI: rank %d called MPI_Abort with error code %d\n",
            shmc_mpi__world_rank, errorcode);
    fflush(stderr);
    int code = errorcode & 0xff ? errorcode & 0xff : 1;
    if (shmc_mpi__up)
        shmc_abort(code);
    exit(code);
}
SHMC_MPI_ALIAS(Abort);

int PMPI_Query_thread(int *provided)
{
    if (!provided)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "provided is NULL"));
    *provided = thread_level;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Query_thread);

int PMPI_Is_thread_main(int *flag)
{
    if (!flag)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    *flag = shmc_mpi__up && pthread_equal(main_thread, pthread_self());
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Is_thread_main);

double PMPI_Wtime(void)
{
    /* CLOCK_MONOTONIC is one clock for every process of the machine: MPI_WTIME_IS_GLOBAL. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
SHMC_MPI_ALIAS(Wtime);

double PMPI_Wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
SHMC_MPI_ALIAS(Wtick);

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "version or subversion is NULL"));
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_version);

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "version or resultlen is NULL"));
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "shmcomm MPI interface (MPI %d.%d) on libshmcomm %s", MPI_VERSION,
                     MPI_SUBVERSION, shmc_version());
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_library_version);

/* Profiling control: for a profiling tool that defines MPI_Pcontrol; the library's own
 * does nothing, as MPI specifies. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Pcontrol);

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_ARG, "name or resultlen is NULL"));
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_processor_name);

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    int rc = shmc_mpi__info_check(info);
    if (rc == MPI_SUCCESS && size < 0)
        rc = shmc_mpi__err(MPI_ERR_SIZE, "size %ld is negative", (long)size);
    if (rc == MPI_SUCCESS && !baseptr)
        rc = shmc_mpi__err(MPI_ERR_ARG, "baseptr is NULL");
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD,
                              shmc_mpi__err(MPI_ERR_NO_MEM, "%ld bytes", (long)size));
    memcpy(baseptr, &p, sizeof p);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Alloc_mem);

int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Free_mem);

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, shmc_mpi__err(MPI_ERR_ARG, "address is NULL"));
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Get_address);

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
SHMC_MPI_ALIAS(Aint_add);

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
SHMC_MPI_ALIAS(Aint_diff);
