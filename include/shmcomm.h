/*
 * shmcomm — shared-memory communication for the processes of one job on one machine.
 *
 * This is the only public header. Every exported name starts with shmc_ or SHMC_.
 *
 * Threads: the library is "serialised": any thread may call it, but calls into the
 * library from one process must not overlap in time (the application serialises them,
 * as with MPI_THREAD_SERIALIZED). Calls on one communicator therefore come from one
 * thread at a time. The reason is speed: the message path takes no lock. A call that
 * finds another thread of its process inside the library returns SHMC_ERR_THREAD at
 * once and does nothing (docs/design.md, "Threads": the first thread to call checks
 * with plain loads and stores, any other with one compare-and-swap per call).
 * shmc_init_thread(SHMC_THREAD_MULTIPLE, ...) asks for a mode in which threads may
 * overlap, at a cost (build/bench/thread_bench and measure show it).
 *
 * Return codes: every fallible function returns SHMC_OK (0) or a negative SHMC_ERR_*
 * code; shmc_strerror() turns a code into a sentence. The library never exits or aborts
 * the process because of a caller's mistake; it returns an error instead.
 *
 * Buffers and counts: a message is `count` elements of `dtype`; its size in bytes is
 * count * shmc_dtype_size(dtype). Sender and receiver may use different dtypes: the
 * bytes are delivered as they are and the receiver's count is computed with its own
 * element size. A count of 0 is valid and the buffer may then be NULL.
 */
#ifndef SHMCOMM_H
#define SHMCOMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SHMC_API __attribute__((visibility("default")))
#else
#define SHMC_API
#endif

#define SHMC_VERSION_MAJOR 0
#define SHMC_VERSION_MINOR 1
#define SHMC_VERSION_PATCH 0
#define SHMC_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------------------------- */
/* Types                                                                                */
/* ---------------------------------------------------------------------------------- */

/* A communicator: the world (every rank of the job) or a group of ranks. An opaque
 * handle, not an address: a handle kept after shmc_comm_free, or one the library never
 * returned, is refused with SHMC_ERR_ARG rather than read. */
typedef struct shmc_comm shmc_comm;

/* A pending non-blocking operation, created by shmc_isend/shmc_irecv and released by
 * shmc_wait, by shmc_test once it reports completion, or by shmc_waitall. An opaque
 * handle too: one kept after its operation completed is refused with SHMC_ERR_ARG, even
 * when a later request reuses its memory. */
typedef struct shmc_request shmc_request;

/* The one handle of every request complete as its call started: a nonblocking collective
 * whose part on this rank was all done in its start (the others had arrived, or it only
 * sends, and what it sends fitted the mailboxes), and likewise shmc_sched_start and
 * shmc_comm_idup, may set *req to it instead of a request of its own, whose making and freeing would be a
 * large part of such a call. The waits, tests and array calls take it as any complete
 * request (result SHMC_OK, a status that says nothing) and set it to NULL; several may be
 * held at once, and one kept after its wait is taken as complete again (not refused, as
 * other handles are). Comparing *req with it tells a caller the call ended as it began
 * (as MPICH's completed "lightweight" requests). */
#define SHMC_REQUEST_COMPLETE ((shmc_request *)(uintptr_t)0xffffffffu)

typedef enum {
    SHMC_INT8,
    SHMC_UINT8,
    SHMC_INT32,
    SHMC_UINT32,
    SHMC_INT64,
    SHMC_UINT64,
    SHMC_FLOAT16,
    SHMC_BFLOAT16,
    SHMC_FLOAT32,
    SHMC_FLOAT64,
    SHMC_INT16,
    SHMC_UINT16,
    SHMC_BOOL, /* one byte; reductions read any non-zero byte as true and write 0 or 1: SUM
                * and MAX are "or", PROD and MIN "and", BAND/BOR/BXOR the logical ones (as
                * torch's bool tensors combine) */
    SHMC_DTYPE_RANGE_ = 0x7fffffff /* not a dtype: makes the type hold SHMC_DTYPE_BYTES */
} shmc_dtype;

/* An opaque element of n bytes (1 <= n <= SHMC_DTYPE_BYTES_MAX), for data the library moves
 * without looking inside: a struct, a pair, an element of another library's type. Valid
 * wherever a shmc_dtype is (counts are in elements of n bytes), and in reductions with a
 * user-defined op (shmc_op_create) only. Needs no creation; the same n names the same
 * dtype on every rank. The value carries n twice (in bits 0-12, and a 17-bit check of it
 * above, under bit 30), so that a stray integer, an uninitialised variable or n out of
 * range is refused with SHMC_ERR_ARG rather than taken for a size: of all 2^32 values,
 * only these 4096 and the built-in dtypes are dtypes. */
#define SHMC_DTYPE_BYTES_MAX 4096
#define SHMC_DTYPE_BYTES(n)                                                                        \
    ((shmc_dtype)(0x40000000u | (((unsigned)(n)*0x9e5u & 0x1ffffu) << 13) |                        \
                  ((unsigned)(n)&0x1fffu)))

typedef enum {
    SHMC_SUM,
    SHMC_PROD,
    SHMC_MIN,
    SHMC_MAX,
    SHMC_AVG,
    SHMC_BAND,
    SHMC_BOR,
    SHMC_BXOR
} shmc_op;

/* A user-defined reduction (shmc_op_create): combines count elements of dtype so that
 * inout[i] = in[i] OP inout[i], in on the left (MPI_User_function's order). */
typedef void (*shmc_user_fn)(const void *in, void *inout, size_t count, shmc_dtype dtype,
                             void *ctx);

/* What a completed receive (or send) delivered.
 *   source: the sender's rank in the communicator of the receive.
 *   tag:    the message's tag.
 *   count:  the number of elements of the receiver's dtype in the message as sent.
 *           On SHMC_ERR_TRUNCATE this is larger than the buffer: only the elements that
 *           fit were written, and count tells the size a buffer needs.
 *   error:  SHMC_OK or the error of this operation (useful after shmc_waitall).
 * For a send, source is the destination rank, tag the tag and count the elements sent. */
typedef struct {
    int source;
    int tag;
    size_t count;
    int error;
} shmc_status;

#define SHMC_ANY_SOURCE (-1)
#define SHMC_ANY_TAG (-1)
/* A peer that is nobody, for point-to-point calls (as MPI_PROC_NULL): a send to it and a
 * receive or probe from it complete at once and move nothing. A receive's status then
 * reads source SHMC_PROC_NULL, tag SHMC_ANY_TAG, count 0. Not a root of a collective. */
#define SHMC_PROC_NULL (-2)
/* What shmc_waitany and shmc_testany give as the index when no request was pending. */
#define SHMC_INDEX_NONE ((size_t)-1)
/* The largest tag; tags of user messages are 0..SHMC_TAG_MAX. */
#define SHMC_TAG_MAX 0x7fffffff
/* Passed as sendbuf to collectives that allow it: the data is taken from, and the
 * result left in, the receive buffer. */
#define SHMC_IN_PLACE ((void *)(uintptr_t)1)

/* ---------------------------------------------------------------------------------- */
/* Return codes                                                                         */
/* ---------------------------------------------------------------------------------- */

/* One list generates the codes and shmc_strerror(). Codes never change value. */
#define SHMC_ERROR_MAP(XX)                                                                         \
    XX(ARG, -1, "invalid argument")                                                                \
    XX(RANK, -2, "rank out of range for this communicator")                                        \
    XX(TAG, -3, "invalid tag (tags are 0..SHMC_TAG_MAX; SHMC_ANY_TAG only for receives)")          \
    XX(TRUNCATE, -4, "message larger than the receive buffer (the buffer holds its start)")        \
    XX(PEER_DEAD, -5,                                                                              \
       "the peer process died or finalized before the operation completed, or a "                  \
       "member left the communicator's collectives after a failure of its own")                    \
    XX(ABORTED, -6, "the job was aborted (shmc_abort or the launcher ended it)")                   \
    XX(TIMEOUT, -7, "timed out")                                                                   \
    XX(MISMATCH, -8, "ranks called a collective with different arguments")                         \
    XX(NOMEM, -9, "out of memory")                                                                 \
    XX(CUDA, -10, "CUDA support is not available or a CUDA call failed")                           \
    XX(NOT_INIT, -11, "shmcomm is not initialised (call shmc_init first)")                         \
    XX(SYS, -12, "a system call failed (details are logged with SHMC_DEBUG=1)")                    \
    XX(STATE, -13,                                                                                 \
       "call not allowed in this state (shmc_init twice or after finalize, a "                     \
       "window's epochs out of order, a communicator freed with requests pending, "                \
       "or a receive cancelled once matched)")                                                     \
    XX(NOSHM, -14, "not enough shared memory for the job (/dev/shm too small)")                    \
    XX(ENV, -15, "the launcher's environment is missing, inconsistent or invalid")                 \
    XX(CORRUPT, -16, "shared memory failed validation (corrupted or from another job)")            \
    XX(LIMIT, -17, "a documented limit was exceeded (ranks, message size, requests)")              \
    XX(THREAD, -18, "two threads called shmcomm at once (calls must not overlap)")

enum {
    SHMC_OK = 0,
#define SHMC_XX_ENUM(name, value, text) SHMC_ERR_##name = (value),
    SHMC_ERROR_MAP(SHMC_XX_ENUM)
#undef SHMC_XX_ENUM
};

/* ---------------------------------------------------------------------------------- */
/* Lifecycle                                                                            */
/* ---------------------------------------------------------------------------------- */

/* Joins the job and returns the world communicator in *world (world may be NULL when
 * the caller only needs the side effect). On failure *world is set to NULL, except for
 * SHMC_ERR_STATE, which leaves it as it was.
 *
 * The job is found from the environment, in this order:
 *   1. shmrun:   SHMC_RANK, SHMC_SIZE, SHMC_ARENA, SHMC_ARENA_FD;
 *   2. torchrun: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and TORCHELASTIC_RUN_ID
 *                or MASTER_PORT (single node: WORLD_SIZE must equal LOCAL_WORLD_SIZE);
 *   3. Open MPI: OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE};
 *   4. MPICH:    PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS;
 *   5. none of these: a job of one rank.
 * Under another launcher, local rank 0 creates the shared segment and the others wait
 * for it (SHMC_ATTACH_TIMEOUT seconds, default 60). SHMC_JOB_ID overrides the job key.
 *
 * After shmc_finalize a process may call it again and join a new job, made anew by the
 * same launcher's variables (torchrun, mpirun, none); under shmrun, whose job a process
 * joins once, that is SHMC_ERR_STATE: use shmc_init_join with a new key instead.
 *
 * Returns SHMC_OK; SHMC_ERR_STATE if already initialised (or finalized under shmrun);
 * SHMC_ERR_ENV if the environment is inconsistent (a message says which variable);
 * SHMC_ERR_NOSHM if /dev/shm cannot hold the job's segment; SHMC_ERR_CORRUPT if the
 * segment fails validation; SHMC_ERR_TIMEOUT if the segment did not appear in time;
 * SHMC_ERR_LIMIT for more ranks than supported; SHMC_ERR_SYS or SHMC_ERR_NOMEM.
 * Thread rules: call once per process, before any other shmc_ call but shmc_strerror,
 * shmc_version and shmc_dtype_size. Do not fork a process that has called shmc_init and
 * use the library in the child. */
SHMC_API int shmc_init(shmc_comm **world);

/* Thread levels. SERIALIZED (the default): calls from one process must not overlap; one
 * that finds another thread inside returns SHMC_ERR_THREAD. MULTIPLE: threads may call at
 * once. Calls then take a process-wide lock, which a waiting call lets go of while it
 * yields or sleeps, so that other threads' messages move meanwhile. Collectives on
 * different communicators may run at once from different threads, in any order on each
 * rank (on one communicator they follow one order, as always): a communicator made while
 * any member runs at MULTIPLE runs its blocking collectives on host memory as the
 * nonblocking ones' schedules, waited for (docs/collectives.md, "Threads"); the world's,
 * and device buffers, keep the shared-memory algorithms, one at a time per process.
 * shmc_finalize must not overlap any other call. */
enum { SHMC_THREAD_SERIALIZED = 0, SHMC_THREAD_MULTIPLE = 1 };

/* shmc_init at a thread level: SHMC_THREAD_SERIALIZED or SHMC_THREAD_MULTIPLE. The
 * environment's SHMC_THREADS=multiple raises the level of shmc_init and of this call.
 * Returns what shmc_init returns, or SHMC_ERR_ARG for another level (nothing done). */
SHMC_API int shmc_init_thread(int level, shmc_comm **world);

/* The longest job key shmc_init_join takes, and the room shmc_job_key needs (with its
 * terminating NUL). */
#define SHMC_JOB_KEY_MAX 64
#define SHMC_JOB_KEY_LEN 34

/* Writes a new job key into key (len >= SHMC_JOB_KEY_LEN): 33 random characters that no
 * other job will have. Needs no shmc_init; any thread. Returns SHMC_OK, SHMC_ERR_ARG (NULL
 * key or len too small) or SHMC_ERR_SYS (no randomness). */
SHMC_API int shmc_job_key(char *key, size_t len);

/* The room shmc_machine_id needs (with its terminating NUL). */
#define SHMC_MACHINE_ID_LEN 96

/* Writes into id (len >= SHMC_MACHINE_ID_LEN) a string that is the same for processes
 * that can be ranks of one job and differs otherwise: the kernel's boot id (a machine, or
 * a virtual machine, since it started) and where the ranks meet: the network namespace,
 * which the socket that hands out the job's memory lives in (docs/design.md, "The
 * arena"), or with SHMC_MEMFD=0 the /dev/shm the memory is named in. Processes that
 * learn rank, size and key from their own channel and join with shmc_init_join compare
 * it through that channel first, so that ranks on different hosts are told at once
 * instead of waiting for SHMC_ATTACH_TIMEOUT (the torch backend does). Needs no
 * shmc_init; any thread. Returns SHMC_OK, SHMC_ERR_ARG (NULL id or len too small),
 * SHMC_ERR_ENV (a malformed SHMC_ variable, logged) or SHMC_ERR_SYS (/proc unreadable). */
SHMC_API int shmc_machine_id(char *id, size_t len);

/* Joins the job of `size` ranks named by key as `rank`, whatever the environment says:
 * for programs that learn rank, size and a shared key from their own channel (a torch
 * store, a file, a socket). Rank 0 usually makes the key with shmc_job_key and passes it
 * to the others. Every rank of the job must call it with the same size and key; rank 0
 * creates the job's shared memory and the others wait for it as with another launcher
 * (SHMC_ATTACH_TIMEOUT), then all wait until every rank has joined. level is
 * SHMC_THREAD_SERIALIZED or SHMC_THREAD_MULTIPLE, as for shmc_init_thread.
 *
 * A process may finalize and join again, with a new key (a key names one job: a second
 * job that assembles under the same key while the first still does gets SHMC_ERR_ENV).
 * Handles of requests and communicators of a job the process left stay invalid in the
 * next.
 *
 * Returns what shmc_init returns; SHMC_ERR_ARG for rank outside 0..size-1, size < 1, a
 * bad level, or a key that is NULL, empty, longer than SHMC_JOB_KEY_MAX or holds other
 * characters than letters, digits and . _ : - (nothing done; *world set to NULL);
 * SHMC_ERR_LIMIT for more ranks than supported; SHMC_ERR_STATE while initialised. */
SHMC_API int shmc_init_join(int rank, int size, const char *key, int level, shmc_comm **world);

/* The level the library runs at (SHMC_THREAD_*), or SHMC_ERR_NOT_INIT. */
SHMC_API int shmc_thread_level(void);

/* Leaves the job. Waits until every send this process started has been delivered or its
 * receiver is gone (so nothing already sent is lost), then releases all resources.
 * Pending receives are cancelled: their requests become invalid. Not collective: other
 * ranks that later wait for this one get SHMC_ERR_PEER_DEAD.
 * Returns SHMC_OK, SHMC_ERR_NOT_INIT, or SHMC_ERR_ABORTED if the job was aborted (the
 * library is released anyway). */
SHMC_API int shmc_finalize(void);

/* The caller's rank in comm (0..size-1), or SHMC_ERR_ARG if comm is NULL, or
 * SHMC_ERR_NOT_INIT. */
SHMC_API int shmc_comm_rank(const shmc_comm *comm);

/* The number of ranks in comm, or SHMC_ERR_ARG if comm is NULL, or SHMC_ERR_NOT_INIT. */
SHMC_API int shmc_comm_size(const shmc_comm *comm);

/* A static sentence describing err (never NULL; unknown codes get a generic text).
 * Callable at any time from any thread. */
SHMC_API const char *shmc_strerror(int err);

/* The library's version, "MAJOR.MINOR.PATCH". Callable at any time. */
SHMC_API const char *shmc_version(void);

/* Bytes per element of dtype, or 0 for a value that is not a shmc_dtype. */
SHMC_API size_t shmc_dtype_size(shmc_dtype dtype);

/* Ends the whole job: marks it aborted so that every rank's pending and later calls
 * return SHMC_ERR_ABORTED, wakes them, and exits this process with exit_code & 255 (1
 * when that is 0: an abort is never a success). Under shmrun the launcher then ends the
 * other ranks and exits with that code; under another launcher the other ranks are sent
 * SIGTERM. Does not return. Safe to call before shmc_init (it then just exits). */
SHMC_API void shmc_abort(int exit_code);

/* ---------------------------------------------------------------------------------- */
/* Device (CUDA) buffers                                                                */
/* ---------------------------------------------------------------------------------- */
/*
 * Every call accepts CUDA device pointers (cudaMalloc memory) wherever it takes a buffer,
 * told apart from host memory automatically; pinned host and managed memory count as
 * host memory. A message may go from host to device memory or the reverse. Device to
 * device messages travel GPU to GPU through CUDA IPC, never staged through the host.
 * Calls are synchronous with respect to the host, as for host buffers: a buffer must be
 * ready when it is passed (synchronise the stream that wrote it), and a blocking call,
 * or the wait of a non-blocking one, returns once the bytes are in place. All buffers of
 * one collective call, on every member, must be of one kind: all host or all device
 * (SHMC_CHECK=1 diagnoses a mix across members; a mix within a call is SHMC_ERR_ARG).
 * Without a usable GPU, or in a build without CUDA, host buffers work as always and a
 * device feature returns SHMC_ERR_CUDA with a message saying why.
 */

/* Picks and makes current the CUDA device of this rank: its local rank (LOCAL_RANK
 * under shmrun and torchrun, or Open MPI's and MPICH's equivalents) modulo the number of
 * devices the process sees (CUDA_VISIBLE_DEVICES applies). Call it after shmc_init and
 * before allocating device memory, and pass *device to cudaSetDevice (or
 * torch.cuda.set_device) in your own code as well if it uses another CUDA runtime.
 * Returns SHMC_OK with *device set; SHMC_ERR_CUDA (*device -1) without a usable device;
 * SHMC_ERR_NOT_INIT; SHMC_ERR_ARG if device is NULL. */
SHMC_API int shmc_device_select(int *device);

/* ---------------------------------------------------------------------------------- */
/* Point-to-point                                                                       */
/* ---------------------------------------------------------------------------------- */
/*
 * Matching follows MPI: a receive matches the oldest message from its source (or any
 * source with SHMC_ANY_SOURCE) on its communicator with its tag (or any tag with
 * SHMC_ANY_TAG). Messages from one sender to one receiver on one communicator are
 * received in the order they were sent (they never overtake each other).
 *
 * Protocols: a message of at most SHMC_EAGER_LIMIT bytes (default 32768; at most an eighth
 * of a mailbox: 8192 at 16 to 32 ranks, 1024 from 65 ranks) is eager: a blocking send of
 * it returns as soon as it is in the receiver's mailbox, whether or not a receive is
 * posted. A larger message is sent by rendezvous: the send completes once the
 * receiver has taken the data, so two ranks that both send a large message to each other
 * before receiving wait forever (post the receives first, or use shmc_isend/shmc_irecv
 * or shmc_sendrecv).
 *
 * Progress: every blocking call (and shmc_test) advances all of this process's pending
 * operations, so a posted receive and a started send always complete while the process
 * is inside any shmc_ call. Waiting spins briefly, then yields, then sleeps until a peer
 * wakes it; it never busy-waits for long.
 *
 * Failure: an operation that depends on a rank that died or finalized returns
 * SHMC_ERR_PEER_DEAD (after delivering every message that rank had already sent); after
 * shmc_abort anywhere in the job, SHMC_ERR_ABORTED.
 *
 * Common errors of every call below: SHMC_ERR_NOT_INIT; SHMC_ERR_ARG for a NULL comm, a
 * dtype that is not a shmc_dtype, a NULL buffer with a non-zero count, or a byte size that
 * overflows size_t; SHMC_ERR_RANK for a peer outside 0..size-1 that is not SHMC_PROC_NULL;
 * SHMC_ERR_TAG for a tag outside 0..SHMC_TAG_MAX (SHMC_ANY_TAG is allowed for receives
 * only); SHMC_ERR_PEER_DEAD; SHMC_ERR_ABORTED; SHMC_ERR_NOMEM.
 */

/* Sends count elements of buf to rank dst of comm with tag. Returns when buf may be
 * reused: at once for an eager message (if the mailbox has room), after the receiver has
 * taken the data for a rendezvous message. Sending to oneself is allowed (a large
 * message to oneself needs its receive posted first with shmc_irecv). */
SHMC_API int shmc_send(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                       shmc_comm *comm);

/* Receives a message from src (or SHMC_ANY_SOURCE) with tag (or SHMC_ANY_TAG) into buf,
 * which holds count elements. Fills *status when status is not NULL.
 * Returns SHMC_OK, or SHMC_ERR_TRUNCATE if the message was larger than buf (buf holds
 * its first count elements, the message is consumed, the stream stays usable, and
 * status->count tells the message's size), or one of the common errors. */
SHMC_API int shmc_recv(void *buf, size_t count, shmc_dtype dtype, int src, int tag, shmc_comm *comm,
                       shmc_status *status);

/* Starts a send and returns at once with *req. buf must not be modified until the
 * request completes (shmc_wait, shmc_test or shmc_waitall). On error no request is
 * created and *req is set to NULL. */
SHMC_API int shmc_isend(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                        shmc_comm *comm, shmc_request **req);

/* As shmc_isend, but a send that is complete as it starts (an eager message that found
 * room in the mailbox with nothing queued before it, or a send to SHMC_PROC_NULL) is
 * finished here with no request: *req is then NULL, which shmc_wait, shmc_test and the
 * array calls take as complete, with an empty status. Otherwise *req is a request as
 * shmc_isend's. For callers that keep their own handles and do not read a send's status
 * (the MPI interface): a small message then costs no request at all, as with UCX's
 * ucp_tag_send_nbx, which returns NULL for a send completed in place. */
SHMC_API int shmc_isend_now(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                            shmc_comm *comm, shmc_request **req);

/* Starts a receive and returns at once with *req. buf must not be read or modified until
 * the request completes. On error no request is created and *req is set to NULL. */
SHMC_API int shmc_irecv(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                        shmc_comm *comm, shmc_request **req);

/* As shmc_irecv, but a receive whose message is here already is completed here with no
 * request: the receives posted before it first take what arrived for them from src, and
 * if the message first in src's mailbox then is eager-sized and this receive's (src not
 * SHMC_ANY_SOURCE; no message waiting unmatched in this process), *req is set to NULL,
 * *status (may be NULL) filled as shmc_wait would, and the call returns the receive's
 * result, SHMC_OK or SHMC_ERR_TRUNCATE. A receive from SHMC_PROC_NULL completes so too.
 * Otherwise *req is a request as shmc_irecv's (the call returns SHMC_OK) or, on error,
 * NULL. One that follows another shmc_irecv_now that found nothing to take, with no
 * wait, test or other call that makes progress between, does not look and returns a
 * request: looking at a mailbox the peer is writing costs both sides a cache line's round
 * trip, which a run of receives posted ahead of their messages (a halo exchange) would
 * pay once each. The counterpart of shmc_isend_now, for the same callers. */
SHMC_API int shmc_irecv_now(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                            shmc_comm *comm, shmc_request **req, shmc_status *status);

/* Waits until *req completes, fills *status (may be NULL), frees the request and sets
 * *req to NULL. A NULL *req returns SHMC_OK at once with an empty status (source
 * SHMC_ANY_SOURCE, tag SHMC_ANY_TAG, count 0), so finished slots of an array can be
 * waited on again. Returns the operation's result: SHMC_OK, SHMC_ERR_TRUNCATE, or one of
 * the common errors; SHMC_ERR_ARG if req is NULL or *req is not a pending request (it
 * completed already, or was never one), leaving *req as it was. */
SHMC_API int shmc_wait(shmc_request **req, shmc_status *status);

/* Advances all pending operations once and reports in *done whether *req completed. If
 * it did, fills *status, frees the request, sets *req to NULL and returns the operation's
 * result, as shmc_wait does; otherwise returns SHMC_OK with *done = 0. A NULL *req counts
 * as completed. SHMC_ERR_ARG if req or done is NULL. */
SHMC_API int shmc_test(shmc_request **req, int *done, shmc_status *status);

/* Waits for all n requests (NULL entries are skipped), freeing each and setting it to
 * NULL. statuses, when not NULL, has n entries and receives each operation's status and
 * error. Returns SHMC_OK if every operation succeeded, otherwise the error of the first
 * failed request in array order; every request is completed or failed either way.
 * SHMC_ERR_ARG, with every request left pending and the array unchanged, if an entry is
 * not a pending request or one request is named twice. */
SHMC_API int shmc_waitall(size_t n, shmc_request **reqs, shmc_status *statuses);

/* Sends scount elements of sbuf to dst with stag and receives up to rcount elements from
 * src (or SHMC_ANY_SOURCE) with rtag (or SHMC_ANY_TAG) into rbuf, both in dtype, without
 * deadlocking however the peers order their calls. sbuf and rbuf must not overlap.
 * *status (may be NULL) describes the receive. Returns the first error of the two
 * operations (the receive's when both fail). */
SHMC_API int shmc_sendrecv(const void *sbuf, size_t scount, int dst, int stag, void *rbuf,
                           size_t rcount, int src, int rtag, shmc_dtype dtype, shmc_comm *comm,
                           shmc_status *status);

/* Synchronous send (as MPI_Ssend): returns only once the receiver has matched the
 * message with a receive, whatever its size, so that the sender knows it was taken. A
 * synchronous send to oneself therefore needs its receive posted first (shmc_irecv).
 * Errors as shmc_send. */
SHMC_API int shmc_ssend(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                        shmc_comm *comm);
/* Starts a synchronous send: its request completes once a receive matched it. */
SHMC_API int shmc_issend(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                         shmc_comm *comm, shmc_request **req);

/* Probes: is there a message from src (or SHMC_ANY_SOURCE) with tag (or SHMC_ANY_TAG) on
 * comm that a receive could take now? shmc_iprobe advances pending operations once and
 * sets *flag to 1 (and fills *status, which may be NULL) if there is, else to 0;
 * shmc_probe waits until there is, within the communicator's time-out
 * (shmc_comm_set_timeout: SHMC_ERR_TIMEOUT). The status describes the oldest such
 * message, the one a receive with the same src and tag would get next, as a receive
 * would: its count is in elements of dtype (the message's bytes divided by dtype's size;
 * pass SHMC_UINT8 for bytes). Nothing is received. Errors: the common ones, and
 * SHMC_ERR_PEER_DEAD when the message can no longer come (src is gone and left no
 * message; or, from any source, every other rank is). */
SHMC_API int shmc_probe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, shmc_status *status);
SHMC_API int shmc_iprobe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, int *flag,
                         shmc_status *status);

/* Matched probes (as MPI_Mprobe and MPI_Mrecv): the message found is taken off the queue
 * at once and handed to the caller as *msg, so that no other receive, probe or thread can
 * take it; only shmc_mrecv or shmc_imrecv with that handle receive it. Statuses, sources,
 * tags, waiting and errors as shmc_probe and shmc_iprobe (shmc_improbe sets *flag, and
 * *msg to NULL when nothing is there). A probe from SHMC_PROC_NULL finds at once a
 * message handle of NULL. */
typedef struct shmc_message shmc_message;
SHMC_API int shmc_mprobe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, shmc_message **msg,
                         shmc_status *status);
SHMC_API int shmc_improbe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, int *flag,
                          shmc_message **msg, shmc_status *status);
/* Receives message *msg into count elements of dtype at buf, as shmc_recv would, and sets
 * *msg to NULL; shmc_imrecv starts it and returns its request in *req. A NULL *msg (the
 * message of SHMC_PROC_NULL) receives nothing: shmc_mrecv's status is the one of a receive
 * from SHMC_PROC_NULL, shmc_imrecv's request is NULL. SHMC_ERR_ARG, the message kept for
 * another try, for a handle that is no message this process claimed and has not received,
 * for a bad buffer, or when the message's communicator was freed meanwhile (free it only
 * after). Errors of the receive itself as shmc_recv (SHMC_ERR_TRUNCATE, ...). */
SHMC_API int shmc_mrecv(void *buf, size_t count, shmc_dtype dtype, shmc_message **msg,
                        shmc_status *status);
SHMC_API int shmc_imrecv(void *buf, size_t count, shmc_dtype dtype, shmc_message **msg,
                         shmc_request **req);

/* Cancels a receive that no message has matched yet (as MPI_Cancel): it is freed and
 * *req set to NULL, and a later message goes to another receive. Returns SHMC_OK;
 * SHMC_ERR_STATE, leaving the request pending, for a receive that a message already
 * matched (wait for it) or for a send (sends are not cancelled: a peer may be taking the
 * message); SHMC_ERR_ARG if req is NULL or *req is not a pending request. */
SHMC_API int shmc_cancel(shmc_request **req);

/* Waits until one of the n requests (NULL entries are skipped) completes, then does what
 * shmc_wait does for it: fills *status (may be NULL), frees it, sets reqs[*index] to NULL
 * and returns its result. Of several complete, the lowest index. With no request pending
 * (all NULL, or n 0) returns SHMC_OK at once, *index = SHMC_INDEX_NONE and an empty
 * status. The shortest time-out of the requests' communicators bounds the wait
 * (SHMC_ERR_TIMEOUT, all left pending). SHMC_ERR_ARG (nothing done) for a NULL index, an
 * entry that is not a pending request, or one named twice. */
SHMC_API int shmc_waitany(size_t n, shmc_request **reqs, size_t *index, shmc_status *status);
/* shmc_waitany without waiting: advances pending operations once; if one of the
 * requests has completed, *done = 1 and the rest as shmc_waitany; with none pending,
 * *done = 1 and *index = SHMC_INDEX_NONE; otherwise *done = 0, SHMC_OK, nothing freed. */
SHMC_API int shmc_testany(size_t n, shmc_request **reqs, size_t *index, int *done,
                          shmc_status *status);
/* shmc_waitall without waiting: advances pending operations once; if every request has
 * completed, *done = 1 and the rest as shmc_waitall (each freed and set to NULL, statuses
 * filled, the first error returned); otherwise *done = 0, SHMC_OK, and none is freed. */
SHMC_API int shmc_testall(size_t n, shmc_request **reqs, int *done, shmc_status *statuses);

/* ---------------------------------------------------------------------------------- */
/* Collectives                                                                          */
/* ---------------------------------------------------------------------------------- */

/*
 * Every rank of comm calls each collective, in the same order, with the same count,
 * dtype, op and root (the buffers are each rank's own). Collectives on one communicator
 * never match point-to-point messages or collectives of another.
 *
 * Counts: count 0 is valid and returns at once without communicating; buffers may then
 * be NULL. For gather, all-gather, scatter and all-to-all, count is per rank (per
 * destination for all-to-all): the large buffer holds size * count elements, block r at
 * element r * count. reduce_scatter's recvcount is the block each rank receives; its
 * send buffer holds size * recvcount elements.
 *
 * Reductions: SUM, PROD, MIN, MAX for every dtype; AVG for the float types only (the sum
 * divided by the number of ranks, once, at the end); BAND, BOR, BXOR for the integer
 * types only. Other pairs are SHMC_ERR_ARG. Integers wrap modulo 2^bits. MIN and MAX
 * propagate NaN. float16 and bfloat16 are combined in float32 and rounded back to
 * nearest even after every step. Results are reproducible: the same inputs, rank count
 * and algorithm give the same bits on every run, and all ranks of an all-reduce get the
 * same bits (docs/collectives.md gives each algorithm's order of combination).
 *
 * In place (SHMC_IN_PLACE), as in MPI:
 *   reduce:         as sendbuf on any rank: the input is taken from recvbuf (which then
 *                   must be valid on that rank; only the root's is overwritten);
 *   allreduce:      as sendbuf: input from, result into recvbuf;
 *   gather:         as sendbuf at the root: its block is already at recvbuf[root];
 *   allgather:      as sendbuf: each rank's block is already at recvbuf[rank];
 *   scatter:        as recvbuf at the root: its block stays in sendbuf;
 *   reduce_scatter: as sendbuf: recvbuf holds all size * recvcount inputs, and the
 *                   result replaces its first recvcount elements;
 *   alltoall:       as sendbuf: recvbuf holds the blocks to send and is overwritten.
 * Elsewhere SHMC_IN_PLACE is SHMC_ERR_ARG. Send and receive buffers must not overlap
 * otherwise: where a rank uses both, overlapping ones are SHMC_ERR_ARG.
 *
 * Algorithms are chosen by message size and rank count; SHMC_ALGO_<NAME>=tree|ring|shm
 * (and rd for BARRIER and ALLREDUCE, direct for ALLREDUCE) forces one, e.g.
 * SHMC_ALGO_ALLREDUCE=ring. Every rank must see the same setting.
 *
 * Returns SHMC_OK or: SHMC_ERR_NOT_INIT; SHMC_ERR_ARG for a NULL or freed comm, a dtype
 * or op that is not valid (or not valid together), a NULL buffer that the call needs, or
 * sizes that overflow; SHMC_ERR_RANK for a root outside 0..size-1; SHMC_ERR_MISMATCH when
 * ranks' counts evidently differ; SHMC_ERR_PEER_DEAD, SHMC_ERR_ABORTED; SHMC_ERR_NOMEM on
 * every rank, before any data moved, when any rank could not get the scratch memory the
 * call needs (the communicator stays usable). A member that fails part-way (it died, or
 * a copy or a message's size failed on it) makes every other member return an error
 * too, SHMC_ERR_PEER_DEAD unless it was a mismatch or corruption, and when a collective
 * returns, no peer reads or writes its buffers any more. After such a failure every later
 * collective on the communicator fails the same way (the members are out of step);
 * communicators without the failed member go on. After SHMC_ERR_MISMATCH from the checks
 * only SHMC_CHECK=1 guarantees that the communicator stays usable.
 */

/* Returns once every rank of comm has entered it. Progresses all pending operations
 * while waiting. */
SHMC_API int shmc_barrier(shmc_comm *comm);

/* Copies count elements of buf at root into buf on every rank. */
SHMC_API int shmc_broadcast(void *buf, size_t count, shmc_dtype dtype, int root, shmc_comm *comm);

/* Combines every rank's sendbuf with op into recvbuf at root (recvbuf may be NULL on the
 * other ranks). */
SHMC_API int shmc_reduce(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                         shmc_op op, int root, shmc_comm *comm);

/* Combines every rank's sendbuf with op into every rank's recvbuf. */
SHMC_API int shmc_allreduce(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                            shmc_op op, shmc_comm *comm);

/* Collects count elements from every rank into recvbuf at root, rank r's at block r. */
SHMC_API int shmc_gather(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                         int root, shmc_comm *comm);

/* Collects count elements from every rank into every rank's recvbuf, rank r's at block r. */
SHMC_API int shmc_allgather(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                            shmc_comm *comm);

/* Sends block r (count elements) of root's sendbuf to rank r's recvbuf. */
SHMC_API int shmc_scatter(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                          int root, shmc_comm *comm);

/* Combines every rank's sendbuf (size * recvcount elements) with op and leaves block r
 * of the result in rank r's recvbuf. */
SHMC_API int shmc_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
                                 shmc_dtype dtype, shmc_op op, shmc_comm *comm);

/* Sends block d (count elements) of every rank's sendbuf to rank d, which stores the
 * block from rank s at block s of its recvbuf. */
SHMC_API int shmc_alltoall(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                           shmc_comm *comm);

/* All-to-all with each rank's own block sizes: sendcounts[d] elements from sendbuf +
 * sdispls[d] go to rank d, which receives them as its recvcounts[s] elements at recvbuf +
 * rdispls[s] (counts and displacements in elements of dtype). recvcounts[s] on rank d
 * must equal sendcounts[d] on rank s (MPI_Alltoallv), else the call fails with
 * SHMC_ERR_MISMATCH on the ranks that disagree and their communicator's collectives fail
 * from then on (docs/reliability.md). Blocks may be empty, may be in any order and may
 * leave gaps; blocks of one buffer must not overlap each other (the received ones), and
 * the send and receive buffers must not share a byte. No in-place form. Returns SHMC_OK;
 * SHMC_ERR_ARG for a NULL array, a NULL buffer holding a block, SHMC_IN_PLACE, a count
 * + displacement that overflows, overlapping buffers or a bad dtype; a collective's
 * errors. */
SHMC_API int shmc_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                            void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                            shmc_dtype dtype, shmc_comm *comm);

/*
 * The v-collectives: each rank's block has its own size (MPI_Gatherv, MPI_Scatterv,
 * MPI_Allgatherv, MPI_Reduce_scatter). Counts and displacements are in elements of dtype;
 * block r lies at element displs[r] of the large buffer and holds counts[r] elements. The
 * arrays are read where MPI reads them (the root's for gatherv and scatterv, every rank's
 * for allgatherv and reduce_scatterv) and may be NULL elsewhere. A rank's own count must
 * equal what the arrays give it: a block of another size is SHMC_ERR_MISMATCH on the ranks
 * that see it (the others' blocks still arrive) and, as for alltoallv, the communicator's
 * collectives fail from then on (SHMC_CHECK=1 does not compare per-rank counts). Blocks
 * may be empty, in any order and with gaps; received blocks must not overlap each other,
 * and a rank's send and receive buffers must not share a byte. Every block moves once,
 * straight from its sender to its receiver through the mailboxes.
 * Returns SHMC_OK or a collective's errors; SHMC_ERR_ARG also for a NULL array that the
 * rank reads, a NULL buffer that holds a block, SHMC_IN_PLACE where not allowed, or a count
 * and displacement that overflow.
 */

/* Collects sendcount elements from every rank into root's recvbuf, rank r's at element
 * displs[r] (recvcounts[r] elements). SHMC_IN_PLACE as sendbuf at the root: its block is
 * already in place. */
SHMC_API int shmc_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                          const size_t *recvcounts, const size_t *displs, shmc_dtype dtype,
                          int root, shmc_comm *comm);

/* Sends sendcounts[r] elements at element displs[r] of root's sendbuf to rank r, which
 * receives recvcount elements. SHMC_IN_PLACE as recvbuf at the root: its block stays. */
SHMC_API int shmc_scatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                           void *recvbuf, size_t recvcount, shmc_dtype dtype, int root,
                           shmc_comm *comm);

/* Collects sendcount elements from every rank into every rank's recvbuf, rank r's at
 * element displs[r] (recvcounts[r] elements; the arrays are the same on every rank).
 * SHMC_IN_PLACE as sendbuf: each rank's block is already at recvbuf + displs[rank]. */
SHMC_API int shmc_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                             const size_t *recvcounts, const size_t *displs, shmc_dtype dtype,
                             shmc_comm *comm);

/* Combines every rank's sendbuf (the sum of recvcounts elements, rank r's part after the
 * parts of ranks 0..r-1) with op and leaves part r of the result in rank r's recvbuf
 * (recvcounts[r] elements; recvcounts is the same on every rank). SHMC_IN_PLACE as
 * sendbuf: recvbuf holds the whole input, and part r replaces its first elements. Each
 * element is combined in rank order 0, 1, ..., n - 1. */
SHMC_API int shmc_reduce_scatterv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                                  shmc_dtype dtype, shmc_op op, shmc_comm *comm);

/* Prefix reductions (MPI_Scan, MPI_Exscan): rank r's recvbuf gets the combination of the
 * sendbufs of ranks 0..r (scan) or 0..r-1 (exscan), in that order, lower ranks on the
 * left; AVG divides by the number of ranks combined. exscan leaves rank 0's recvbuf as it
 * was. SHMC_IN_PLACE as sendbuf: the input is taken from recvbuf. Recursive doubling:
 * log2(n) exchanges of count elements; the same inputs give the same bits on every run.
 * Returns what shmc_allreduce returns. */
SHMC_API int shmc_scan(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                       shmc_op op, shmc_comm *comm);
SHMC_API int shmc_exscan(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                         shmc_op op, shmc_comm *comm);

/*
 * Nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce ...): each starts the collective
 * of the same name and arguments and returns at once with a request in *req, which
 * shmc_wait, shmc_test and the calls on arrays of requests complete (its status says
 * nothing). Until then the buffers (and the arrays of counts and displacements) belong to
 * the call. Several may be in flight on one communicator and on several, with blocking
 * collectives and point-to-point calls between; every rank starts the nonblocking
 * collectives of a communicator in the same order, and makes its blocking collectives
 * and communicator makings in the same order, but the two kinds may interleave
 * differently on different ranks (a rank may start one before a blocking barrier that
 * another rank enters before starting it), as other MPI libraries allow. Any wait or
 * test of this process moves every started one along, so a rank waiting in another call
 * never holds the others up.
 *
 * The checks, in-place forms and errors are the blocking call's, found at the start
 * (SHMC_ERR_ARG ... , *req NULL), or at completion: a member that fails or quits makes
 * every member's pending collectives on that communicator end with an error (a start
 * that returns SHMC_ERR_NOMEM quits: the members started the call too), and a block
 * of another size than the receiver expects is SHMC_ERR_MISMATCH (SHMC_CHECK's
 * agreement is the blocking calls' only). Such an error of the other members' making
 * (SHMC_ERR_MISMATCH, _PEER_DEAD, _ABORTED, _TIMEOUT) is always the request's, even when
 * the start already finds it: the start returns SHMC_OK and the wait or test the error.
 * Host memory only: device buffers are SHMC_ERR_ARG (use the blocking calls). The
 * algorithms are built from messages (docs/collectives.md names them) and combine in rank
 * order, as the blocking calls do.
 * Thread-safe at SHMC_THREAD_MULTIPLE: threads may start and complete them in any order.
 */
SHMC_API int shmc_ibarrier(shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_ibroadcast(void *buf, size_t count, shmc_dtype dtype, int root, shmc_comm *comm,
                             shmc_request **req);
SHMC_API int shmc_ireduce(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                          shmc_op op, int root, shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_iallreduce(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                             shmc_op op, shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_igather(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                          int root, shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_iallgather(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                             shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_iscatter(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                           int root, shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
                                  shmc_dtype dtype, shmc_op op, shmc_comm *comm,
                                  shmc_request **req);
SHMC_API int shmc_ialltoall(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                            shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                             void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                             shmc_dtype dtype, shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                           const size_t *recvcounts, const size_t *displs, shmc_dtype dtype,
                           int root, shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_iscatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                            void *recvbuf, size_t recvcount, shmc_dtype dtype, int root,
                            shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                              const size_t *recvcounts, const size_t *displs, shmc_dtype dtype,
                              shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_ireduce_scatterv(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                                   shmc_dtype dtype, shmc_op op, shmc_comm *comm,
                                   shmc_request **req);
SHMC_API int shmc_iscan(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                        shmc_op op, shmc_comm *comm, shmc_request **req);
SHMC_API int shmc_iexscan(const void *sendbuf, void *recvbuf, size_t count, shmc_dtype dtype,
                          shmc_op op, shmc_comm *comm, shmc_request **req);

/* Persistent collectives (MPI 4's MPI_Allreduce_init ...) are matched in the order they
 * were made, not started: shmc_coll_reserve takes the number the next nonblocking
 * collective on comm would have (*n), as starting one would; shmc_coll_as(n) makes the
 * next nonblocking collective this thread starts take number n instead (n < 0: take the
 * next, as usual). A persistent collective reserves one number when made and starts
 * every round with it; the rounds of one persistent collective must not overlap.
 * shmc_coll_reserve returns SHMC_OK, SHMC_ERR_NOT_INIT or SHMC_ERR_ARG (comm, or n NULL). */
SHMC_API int shmc_coll_reserve(shmc_comm *comm, uint32_t *n);
SHMC_API void shmc_coll_as(int64_t n);

/* This rank gives up comm's collectives, as one that fails part-way does: every member's
 * pending and later collectives on comm, nonblocking ones included, end with
 * SHMC_ERR_PEER_DEAD, and this rank's later ones with err. For a layer above whose
 * collective failed on this rank alone after the members began the same call (memory of
 * its own ran short, a buffer could not be packed): they would wait for this rank for
 * ever. Point-to-point calls on comm go on; a communicator of one stays usable (nobody
 * waits for it); make a new communicator for collectives. The quit is comm's, not one
 * call's: a member still inside the collective before it on comm can fail too. err is
 * the reason, an error code (SHMC_ERR_NOMEM says so in an error message). Returns
 * SHMC_OK, SHMC_ERR_ARG (comm, or err not an error), SHMC_ERR_NOT_INIT. */
SHMC_API int shmc_coll_quit(shmc_comm *comm, int err);

/*
 * Schedules of one's own: a collective built of rounds, as the nonblocking collectives
 * are (docs/collectives.md), for collectives this library does not have (an MPI
 * intercommunicator's, over the communicator that spans both groups). Made with
 * shmc_sched_create on comm, which takes the next nonblocking collective number of comm
 * (so every member makes its schedules in the same order as its nonblocking collectives),
 * for reductions of dtype with op, with tmp bytes of memory of its own (shmc_sched_tmp,
 * aligned for any dtype). Steps go into the current round: sends and receives (comm
 * ranks; a receive takes exactly bytes, else the call fails with SHMC_ERR_MISMATCH),
 * copies, reductions (count elements: acc = acc OP in when acc_left, else in OP acc) and
 * AVG's final division over ranks; a round's local steps run in order when it starts, its
 * messages are then posted, and it ends when they have all ended. shmc_sched_start starts
 * it as *req, a request like a nonblocking collective's, and takes it over (also on
 * failure); shmc_sched_free frees one not started. Building fails only for bad arguments
 * (SHMC_ERR_ARG: a NULL schedule or buffer, a peer outside comm); running out of memory
 * while building shows at start (SHMC_ERR_NOMEM; shmc_sched_create's own SHMC_ERR_NOMEM
 * and a start's make this rank quit comm's collectives, as a nonblocking collective's
 * start does). A failed or quit member ends every member's schedules on comm with an
 * error, as for the collectives. Host memory only.
 */
typedef struct shmc_sched shmc_sched;
SHMC_API int shmc_sched_create(shmc_comm *comm, shmc_dtype dtype, shmc_op op, size_t tmp,
                               shmc_sched **s);
SHMC_API void *shmc_sched_tmp(shmc_sched *s);
SHMC_API int shmc_sched_send(shmc_sched *s, const void *buf, size_t bytes, int peer);
SHMC_API int shmc_sched_recv(shmc_sched *s, void *buf, size_t bytes, int peer);
SHMC_API int shmc_sched_copy(shmc_sched *s, void *dst, const void *src, size_t bytes);
SHMC_API int shmc_sched_reduce(shmc_sched *s, void *acc, const void *in, size_t count,
                               int acc_left);
SHMC_API int shmc_sched_finish(shmc_sched *s, void *buf, size_t count, int ranks);
SHMC_API int shmc_sched_round(shmc_sched *s);
SHMC_API int shmc_sched_start(shmc_sched *s, shmc_request **req);
SHMC_API void shmc_sched_free(shmc_sched *s);

/*
 * User-defined reductions (MPI_Op_create). fn combines arrays of elements of any dtype the
 * call names (SHMC_DTYPE_BYTES(n) included): inout[i] = in[i] OP inout[i]. commute says
 * whether OP is commutative; a non-commutative one is still assumed associative, and
 * every algorithm that runs it combines in rank order (the ring algorithms are replaced by
 * shm, and a reduce tree rooted elsewhere than rank 0 by shm). fn is called by this
 * process only, inside its own calls, possibly several times per call on pieces of the
 * arrays and on elements of other ranks (the direct and staged all-reduces combine
 * pieces for each other), and must not call shmcomm. Host buffers only: a user op on
 * device buffers is SHMC_ERR_ARG. Every rank makes its ops in the same order, so that one
 * op has the same value everywhere (the calls check it as they check a built-in op). Not
 * bound to shmc_init: ops may be made before it and outlive shmc_finalize.
 */

/* Makes *op. Returns SHMC_OK; SHMC_ERR_ARG for a NULL fn or op; SHMC_ERR_LIMIT when
 * SHMC_OP_USER_MAX ops are alive. Any thread. */
#define SHMC_OP_USER_MAX 256
#define SHMC_OP_NULL ((shmc_op)-1)
SHMC_API int shmc_op_create(shmc_user_fn fn, void *ctx, int commute, shmc_op *op);

/* Frees *op (made by shmc_op_create; no call using it may be running) and sets it to
 * SHMC_OP_NULL. Its value may be given to a later op.
 * Returns SHMC_OK; SHMC_ERR_ARG for NULL, a built-in op, or an op not alive. */
SHMC_API int shmc_op_free(shmc_op *op);

/* Combines count elements locally, inout[i] = in[i] OP inout[i] (MPI_Reduce_local), with
 * a built-in op or a user op, on host memory. Returns SHMC_OK or SHMC_ERR_ARG (bad dtype
 * or op, a pair that does not go together, or AVG, which needs a rank count; NULL buffers with a
 * non-zero count; overlapping buffers; a byte size that overflows). Needs no shmc_init. */
SHMC_API int shmc_reduce_local(const void *in, void *inout, size_t count, shmc_dtype dtype,
                               shmc_op op);

/* ---------------------------------------------------------------------------------- */
/* Communicators                                                                        */
/* ---------------------------------------------------------------------------------- */

/* Collective over comm: ranks passing the same color form a new communicator, ordered by
 * key and then by rank in comm (MPI_Comm_split). A negative color takes part but gets
 * *out == NULL. Returns SHMC_OK; SHMC_ERR_ARG on every rank if any rank passed a NULL
 * out; SHMC_ERR_NOMEM on every rank if any rank ran out of memory (no rank then has the
 * new communicator); SHMC_ERR_LIMIT after 2^31 communicators; or a collective's errors. */
SHMC_API int shmc_comm_split(shmc_comm *comm, int color, int key, shmc_comm **out);

/* Collective over comm: the ranks listed in ranks[0..n-1] (ranks of comm) form a new
 * communicator in which ranks[i] has rank i; ranks not listed get *out == NULL. Every
 * rank must pass the same list. Returns SHMC_OK, or SHMC_ERR_ARG on every rank when any
 * rank's list has a duplicate, an out-of-range rank, a negative n, or a NULL out;
 * SHMC_ERR_NOMEM on every rank if any rank ran out of memory. */
SHMC_API int shmc_comm_create_group(shmc_comm *comm, const int *ranks, int n, shmc_comm **out);

/* The nonblocking duplicate of comm (MPI_Comm_idup): its members, in the same order, in a
 * new communicator that *out names once *req has completed (shmc_wait ...; it may
 * complete within this call); *out is NULL until then and must stay valid. Collective over comm,
 * started by every member in the same order as its nonblocking collectives. Returns SHMC_OK;
 * SHMC_ERR_NOT_INIT; SHMC_ERR_ARG for a bad comm or NULL out or req; SHMC_ERR_NOMEM (then
 * this rank quits comm's collectives, as a nonblocking collective's start does); at completion,
 * the collectives' errors, or SHMC_ERR_NOMEM on every member when one could not hold the new
 * communicator (then nothing is made). */
SHMC_API int shmc_comm_idup(shmc_comm *comm, shmc_comm **out, shmc_request **req);

/* Called by the members only (torch's new_group, MPI_Comm_create_group): the ranks of
 * comm listed in ranks[0..n-1] form a new communicator in which ranks[i] has rank i.
 * Ranks of comm not listed do not call it and need not be in any call. Every member must
 * pass the same list in the same order and the same tag (0..SHMC_TAG_MAX); makings that
 * may overlap in time among the same ranks need different tags, or must be made in the
 * same order by all of them. The call returns when every member has called it.
 * Returns SHMC_OK; SHMC_ERR_ARG (at once, on this rank alone) for a NULL ranks or out, n
 * outside 1..size, a rank out of range or listed twice, or a list without the caller;
 * SHMC_ERR_ARG on every member when their lists differ (found when the members agree,
 * if the lists start with the same rank; otherwise they wait for each other, and a
 * SHMC_TIMEOUT report names them); SHMC_ERR_TAG for a bad tag; SHMC_ERR_NOMEM on every
 * member if one ran out of memory; SHMC_ERR_LIMIT after 2^31 communicators;
 * SHMC_ERR_PEER_DEAD if a member died first. */
SHMC_API int shmc_comm_create_members(shmc_comm *comm, const int *ranks, int n, int tag,
                                      shmc_comm **out);

/* Frees a communicator made by shmc_comm_split, shmc_comm_create_group or
 * shmc_comm_create_members and sets *comm
 * to NULL. Local (not collective). Messages sent on it that were never received are
 * discarded. Returns SHMC_OK; SHMC_ERR_ARG for NULL, the world or a freed communicator;
 * SHMC_ERR_STATE while a request on it is pending (complete it first). Communicators
 * still alive at shmc_finalize are freed there. */
SHMC_API int shmc_comm_free(shmc_comm **comm);

/* Bounds how long a call on comm waits: a collective on it (shmc_comm_split,
 * shmc_comm_create_group and shmc_comm_create_members included), or shmc_wait and
 * shmc_waitall on its requests, that has waited ms milliseconds for other ranks returns
 * SHMC_ERR_TIMEOUT (0: no bound, the default). A collective that timed out has quit, as
 * after any failure part-way: the communicator's collectives fail from then on, on every
 * member (make a new communicator). A wait that timed out leaves its requests pending (wait
 * again, or free the communicator's buffers only after they end). Blocking shmc_send,
 * shmc_recv and shmc_sendrecv are not bounded: use the nonblocking calls and shmc_wait.
 * A shmc_comm_create_members that timed out leaves its tag spent between those members
 * (a late member's message may still arrive): make it again under another tag.
 * Communicators made from comm afterwards start with its bound. Local; any rank may set
 * its own. Returns SHMC_OK, SHMC_ERR_ARG for a bad communicator, SHMC_ERR_NOT_INIT. */
SHMC_API int shmc_comm_set_timeout(shmc_comm *comm, unsigned ms);

/* The communicator's number as hang reports name it ("communicator #7"; the world is
 * "the world", 0). Every member of a communicator gets the same number, and no number is
 * given twice in a job, so a report can be matched to the program's communicators.
 * Returns it, or SHMC_ERR_ARG / SHMC_ERR_NOT_INIT. */
SHMC_API int shmc_comm_id(const shmc_comm *comm);

/* ---------------------------------------------------------------------------------- */
/* Tuning and diagnosis                                                                 */
/* ---------------------------------------------------------------------------------- */

/* Sets one SHMC_* variable for this process from now on, with the value spelled as in the
 * environment (the README lists them): SHMC_ALGO_<COLLECTIVE> and SHMC_CHECK (every
 * member of the communicators it affects must set the same, between the same calls, as
 * with the environment), SHMC_SINGLE_COPY (this process offers and uses single copy, or
 * not), SHMC_COLL_OVERLAP (for communicators made from then on) and SHMC_DEBUG. The others shape
 * the arena or the waiting and are read once, at shmc_init. Returns SHMC_OK; SHMC_ERR_ARG for a
 * NULL name or value; SHMC_ERR_ENV for a name that is not a shmcomm variable or a bad value;
 * SHMC_ERR_STATE for a variable read only at shmc_init; SHMC_ERR_NOT_INIT. Each error prints what
 * was wrong. Not a collective. */
SHMC_API int shmc_config_set(const char *name, const char *value);

/* ---- One-sided communication: windows of shared memory ---------------------------------
 *
 * A window is memory on every member of a communicator that every member reads and writes
 * without its owner taking part (MPI's shared-memory windows, MPI_Win_allocate_shared).
 * shmc_win_allocate is a collective over comm: each member gives the bytes of its own part
 * (0 allowed) and the unit its displacements count in, and gets *base, its own part's
 * address; the parts lie one after another in rank order in one mapping, the same layout in
 * every process though at different addresses (shmc_win_shared_query gives each member's).
 * The memory is reserved when the window is made (SHMC_ERR_NOMEM, with a message, where the
 * machine or the cgroup is short) and zero-filled. Every member must make its windows in the
 * same order as its other collectives on comm. shmc_win_free is a collective too: it returns
 * when every member has called it, and unmaps the memory.
 *
 * shmc_win_create makes a window of memory each member allocated itself (bytes at base;
 * base NULL with bytes SIZE_MAX: this process's whole address space, displacements then
 * being addresses, as in MPI's dynamic windows). Other processes cannot map such memory:
 * accesses to it go by single copy (process_vm_readv/writev), which the kernel must allow
 * between the job's processes (an access it refuses is SHMC_ERR_SYS, with a message), and
 * shmc_win_shared_query refuses its parts (SHMC_ERR_ARG) but for the caller's own.
 *
 * Access: shmc_put and shmc_get copy bytes to and from member rank's part at displacement
 * disp (units of its disp_unit); shmc_accumulate combines count elements of dtype into it
 * with op (a built-in op but SHMC_AVG, an op of shmc_op_create's, or SHMC_REPLACE: the
 * target's element = target OP origin), shmc_get_accumulate returns the old values in
 * result and then combines (op SHMC_NO_OP: only reads), and shmc_compare_and_swap
 * replaces one element that equals *compare with *value and returns the old one in
 * *result. Accumulates to one member are atomic per call against each other (each holds
 * that member's lock of accumulates while it combines), whatever ops they use; puts and
 * gets are plain copies. Every access is complete at return, at the origin and at the
 * target. An access past the end of the target's part is SHMC_ERR_ARG and touches
 * nothing. The scattered forms reach n blocks of the target's part at once (an MPI
 * target datatype's layout): block i is blocks[i].len bytes at blocks[i].off bytes from
 * displacement disp (off may be negative; every block must lie in the part, or nothing
 * is touched), and the origin side holds the blocks' bytes back to back. shmc_putv and
 * shmc_getv copy them; shmc_get_accumulatev (result NULL: a plain accumulate) gathers
 * them, as count elements of dtype back to back (their bytes must add up to count
 * elements; an element may span blocks), returns and combines them as shmc_get_accumulate
 * does, and scatters them back, atomically against the member's other accumulates.
 *
 * Synchronisation orders accesses as MPI's does: shmc_win_fence is a collective (a barrier
 * with full memory fences: what any member wrote before it, every member reads after it);
 * shmc_win_lock (exclusive or shared) and shmc_win_unlock on one member, or
 * shmc_win_lock_all/unlock_all (shared on all), bracket passive-target access, and a lock
 * waits while another process holds it in a way that excludes it (waits are those of the
 * library: they drive progress, appear in hang reports and end with SHMC_ERR_PEER_DEAD
 * when a member of the window dies); shmc_win_flush (rank, or SHMC_ANY_SOURCE: all) and
 * shmc_win_sync are memory fences; shmc_win_post/start/complete/wait/test are MPI's
 * generalised active target: a member posts its part to the ranks listed (they may then
 * access it), starts an access epoch to the ranks listed (waiting for each to post),
 * completes it (telling each it is done) and waits for (or tests) the end of its own
 * exposure. Locks and epochs are this process's: one thread of it at a time should open
 * and close them. Returns SHMC_OK; SHMC_ERR_ARG for bad arguments; SHMC_ERR_STATE for a
 * lock not held, an epoch not open, or a second one of the same kind; the communicator's
 * errors. */
typedef struct shmc_win shmc_win;
#define SHMC_REPLACE ((shmc_op)-2) /* an accumulate's op: the origin's value replaces */
#define SHMC_NO_OP ((shmc_op)-3)   /* a get_accumulate's op: the target is only read */
SHMC_API int shmc_win_allocate(size_t bytes, size_t disp_unit, shmc_comm *comm, void **base,
                               shmc_win **win);
SHMC_API int shmc_win_create(void *base, size_t bytes, size_t disp_unit, shmc_comm *comm,
                             shmc_win **win);
SHMC_API int shmc_win_shared_query(const shmc_win *win, int rank, size_t *bytes, size_t *disp_unit,
                                   void **base);
SHMC_API int shmc_win_free(shmc_win **win);
SHMC_API int shmc_win_fence(shmc_win *win);
SHMC_API int shmc_win_lock(shmc_win *win, int rank, int exclusive);
SHMC_API int shmc_win_unlock(shmc_win *win, int rank);
SHMC_API int shmc_win_lock_all(shmc_win *win);
SHMC_API int shmc_win_unlock_all(shmc_win *win);
SHMC_API int shmc_win_flush(shmc_win *win, int rank);
SHMC_API int shmc_win_sync(shmc_win *win);
SHMC_API int shmc_win_post(shmc_win *win, const int *ranks, int n);
SHMC_API int shmc_win_start(shmc_win *win, const int *ranks, int n);
SHMC_API int shmc_win_complete(shmc_win *win);
SHMC_API int shmc_win_wait(shmc_win *win);
SHMC_API int shmc_win_test(shmc_win *win, int *flag);
SHMC_API int shmc_put(const void *src, size_t bytes, int rank, size_t disp, shmc_win *win);
SHMC_API int shmc_get(void *dst, size_t bytes, int rank, size_t disp, shmc_win *win);
SHMC_API int shmc_accumulate(const void *src, size_t count, shmc_dtype dtype, shmc_op op, int rank,
                             size_t disp, shmc_win *win);
SHMC_API int shmc_get_accumulate(const void *src, void *result, size_t count, shmc_dtype dtype,
                                 shmc_op op, int rank, size_t disp, shmc_win *win);
SHMC_API int shmc_compare_and_swap(const void *value, const void *compare, void *result,
                                   shmc_dtype dtype, int rank, size_t disp, shmc_win *win);
typedef struct shmc_block {
    ptrdiff_t off; /* bytes from the access's displacement */
    size_t len;
} shmc_block;
SHMC_API int shmc_putv(const void *src, const shmc_block *blocks, size_t n, int rank, size_t disp,
                       shmc_win *win);
SHMC_API int shmc_getv(void *dst, const shmc_block *blocks, size_t n, int rank, size_t disp,
                       shmc_win *win);
SHMC_API int shmc_get_accumulatev(const void *src, void *result, size_t count, shmc_dtype dtype,
                                  shmc_op op, const shmc_block *blocks, size_t n, int rank,
                                  size_t disp, shmc_win *win);

/* Reads one of this process's counters into *value:
 * "requests_active" (sends and receives not yet completed), "comms" (communicators made
 * and not freed), "unexpected_messages" (arrived, not yet received), "single_copy" (1 if
 * this process may use single copy at all), "single_copy_proven" (peers single copy has
 * worked with), "coop_offers" (large sends offered to be copied by both sides),
 * "coop_accepted" (large receives that took such an offer: not in an exchange),
 * "slices_slept" (waits that slept a whole 50 ms slice with nobody
 * waking them: a peer slow to answer, or a missed wake-up), "coll_scratch_late" (scratch
 * a collective had to allocate after its data moved: always
 * 0 unless the library has a bug), "coll_direct_helped" (pieces of the direct all-reduce
 * combined for another rank), "coll_staged" (all-reduces that went through the staging
 * buffers: 0 where some rank could not reserve them), "coll_scheduled" (blocking
 * collectives run as schedules, on communicators made for threads: docs/collectives.md,
 * "Threads"), "coll_shm_barriers" (barriers run by the shared-memory rounds, the world's
 * default), "coll_lane_ways" (nonblocking calls on the world, of host memory and a built-in
 * op, whose way the dispatch rules worked out rather than one kept from an earlier call of
 * that collective and size), "coll_entry_calls" (nonblocking broadcasts, reduces and
 * gathers on communicators other than the world that went through the communicator's slot
 * entry: docs/collectives.md, "Nonblocking"), "dev_ipc_opens" and "dev_ipc_hits" (peers'
 * device buffers opened, and found open in the cache), "arena_bytes" (the size of the
 * job's shared memory; all of it but the staging buffers and the slot entries reserved at
 * start), "line_rtt_ns"
 * (the round trip of a cache line between the job's first two CPUs as the job began,
 * or SHMC_LINE_RTT_NS), "machine_far" (1 if that was SHMC_FAR_NS or more: the job took
 * the far state's rules and eager limit, docs/collectives.md), "single_copy_cost" (a
 * single copy's time over a plain copy's between the same CPUs, in percent, as the job
 * began, or SHMC_SINGLE_COPY_COST; 0 not known), "single_copy_min" (the smallest message
 * this process sends by single copy: SHMC_SINGLE_COPY_MIN, or what that cost made it).
 * Returns SHMC_OK;
 * SHMC_ERR_ARG for an unknown name or a NULL value; SHMC_ERR_NOT_INIT. */
SHMC_API int shmc_stat(const char *name, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* SHMCOMM_H */
