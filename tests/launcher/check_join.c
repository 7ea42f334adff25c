/*
 * shmc_init_join and joining again: processes that learn rank, size and a key from their
 * own channel (here: the test forks them and hands the key down) join a job, leave it,
 * and join a new one; handles of the job left stay dead in the next; bad arguments are
 * refused before anything is made; a job that cannot assemble times out cleanly; a
 * process of a torchrun-style job initialises again after shmc_finalize. Every test ends
 * with /dev/shm as it found it.
 */
#include <check.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

typedef int (*rank_fn)(int rank, int n, void *arg);

/* Forks n ranks running fn; returns how many did not exit 0. */
static int run_ranks(int n, rank_fn fn, void *arg)
{
    pid_t pids[16];
    for (int r = 0; r < n; r++) {
        pids[r] = fork();
        ck_assert_int_ge(pids[r], 0);
        if (pids[r] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            _exit(fn(r, n, arg));
        }
    }
    int bad = 0;
    for (int r = 0; r < n; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "rank %d ended with status %#x\n", r, st);
            bad++;
        }
    }
    return bad;
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: %s:%d: %s\n", rank, __FILE__, __LINE__, #cond);              \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Traffic on a job just joined: a ring of sends and an all-reduce; 0 if both right. */
static int use_job(shmc_comm *w, int rank, int n, int salt)
{
    int right = (rank + 1) % n, left = (rank + n - 1) % n, got = -1;
    int mine = rank * 100 + salt;
    CHECK(shmc_comm_rank(w) == rank && shmc_comm_size(w) == n);
    CHECK(shmc_sendrecv(&mine, 1, right, 5, &got, 1, left, 5, SHMC_INT32, w, NULL) == SHMC_OK);
    CHECK(got == left * 100 + salt);
    int sum = 0;
    CHECK(shmc_allreduce(&mine, &sum, 1, SHMC_INT32, SHMC_SUM, w) == SHMC_OK);
    CHECK(sum == 100 * n * (n - 1) / 2 + salt * n);
    return 0;
}

struct keys {
    char k1[SHMC_JOB_KEY_LEN], k2[SHMC_JOB_KEY_LEN];
};

static int join_twice(int rank, int n, void *arg)
{
    const struct keys *k = arg;
    shmc_comm *w, *half, *w2;
    CHECK(shmc_init_join(rank, n, k->k1, SHMC_THREAD_SERIALIZED, &w) == SHMC_OK);
    if (use_job(w, rank, n, 1))
        return 1;
    CHECK(shmc_comm_split(w, rank % 2, rank, &half) == SHMC_OK);
    int one = 1, cnt = 0;
    CHECK(shmc_allreduce(&one, &cnt, 1, SHMC_INT32, SHMC_SUM, half) == SHMC_OK);
    CHECK(cnt == (n + 1 - rank % 2) / 2);
    /* A receive left pending: finalize cancels it, and its handle must stay dead. */
    shmc_request *pending;
    int never;
    CHECK(shmc_irecv(&never, 1, SHMC_INT32, SHMC_ANY_SOURCE, 99, w, &pending) == SHMC_OK);
    CHECK(shmc_finalize() == SHMC_OK);
    CHECK(shmc_comm_rank(half) == SHMC_ERR_NOT_INIT);

    CHECK(shmc_init_join(rank, n, k->k2, SHMC_THREAD_MULTIPLE, &w2) == SHMC_OK);
    CHECK(shmc_thread_level() == SHMC_THREAD_MULTIPLE);
    /* The new job's first communicator takes the old one's slot, not its handle. */
    shmc_comm *again;
    CHECK(shmc_comm_split(w2, 0, rank, &again) == SHMC_OK);
    CHECK(shmc_comm_rank(half) == SHMC_ERR_ARG);
    CHECK(shmc_comm_free(&half) == SHMC_ERR_ARG);
    int done = 1;
    CHECK(shmc_test(&pending, &done, NULL) == SHMC_ERR_ARG);
    if (use_job(w2, rank, n, 2) || use_job(again, rank, n, 3))
        return 1;
    CHECK(shmc_comm_free(&again) == SHMC_OK);
    CHECK(shmc_finalize() == SHMC_OK);

    /* And with no launcher and no key: a job of one. */
    CHECK(shmc_init(&w) == SHMC_OK);
    CHECK(shmc_comm_size(w) == 1);
    CHECK(shmc_finalize() == SHMC_OK);
    return 0;
}

START_TEST(test_join_and_join_again)
{
    struct keys k;
    ck_assert_int_eq(shmc_job_key(k.k1, sizeof k.k1), SHMC_OK);
    ck_assert_int_eq(shmc_job_key(k.k2, sizeof k.k2), SHMC_OK);
    ck_assert_str_ne(k.k1, k.k2);
    ck_assert_int_eq(strlen(k.k1), SHMC_JOB_KEY_LEN - 1);
    ck_assert_int_eq(run_ranks(3, join_twice, &k), 0);
    ck_assert_int_eq(run_ranks(1, join_twice, &k), 0);
    ck_assert_int_eq(run_ranks(5, join_twice, &k), 0);
}
END_TEST

START_TEST(test_join_bad_arguments)
{
    char key[SHMC_JOB_KEY_LEN], longkey[SHMC_JOB_KEY_MAX + 2];
    ck_assert_int_eq(shmc_job_key(NULL, 64), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_job_key(key, SHMC_JOB_KEY_LEN - 1), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_job_key(key, sizeof key), SHMC_OK);
    memset(longkey, 'a', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    shmc_comm *w = (shmc_comm *)(uintptr_t)0x1234;
    ck_assert_int_eq(shmc_init_join(-1, 2, key, 0, &w), SHMC_ERR_ARG);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(shmc_init_join(2, 2, key, 0, &w), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_init_join(0, 0, key, 0, &w), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_init_join(0, 2, NULL, 0, &w), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_init_join(0, 2, "", 0, &w), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_init_join(0, 2, "a key", 0, &w), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_init_join(0, 2, "../../etc", 0, &w), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_init_join(0, 2, longkey, 0, &w), SHMC_ERR_ARG);
    longkey[SHMC_JOB_KEY_MAX] = 0; /* exactly the longest */
    ck_assert_int_eq(shmc_init_join(0, 2, key, 7, &w), SHMC_ERR_ARG);
    ck_assert_int_eq(shmc_init_join(0, 100000, key, 0, &w), SHMC_ERR_LIMIT);
    ck_assert_ptr_null(w);
    /* Nothing was made by the refusals: a job of one joins and works. */
    ck_assert_int_eq(shmc_init_join(0, 1, longkey, 0, &w), SHMC_OK);
    ck_assert_int_eq(shmc_comm_size(w), 1);
    shmc_comm *same = w;
    ck_assert_int_eq(shmc_init_join(0, 1, key, 0, &same), SHMC_ERR_STATE);
    ck_assert_ptr_eq(same, w);
    ck_assert_int_eq(shmc_init(&same), SHMC_ERR_STATE);
    ck_assert_int_eq(shmc_finalize(), SHMC_OK);
    ck_assert_int_eq(shmc_finalize(), SHMC_ERR_NOT_INIT);
}
END_TEST

static int join_alone(int rank, int n, void *arg)
{
    (void)n;
    shmc_comm *w;
    /* Rank `rank` of a job of two whose other rank never comes. */
    int rc = shmc_init_join(rank, 2, arg, 0, &w);
    CHECK(rc == SHMC_ERR_TIMEOUT);
    CHECK(w == NULL);
    CHECK(shmc_comm_size(w) == SHMC_ERR_NOT_INIT);
    return 0;
}

static int join_as_1(int rank, int n, void *arg)
{
    (void)rank;
    return join_alone(1, n, arg);
}

START_TEST(test_join_incomplete)
{
    char key[SHMC_JOB_KEY_LEN];
    ck_assert_int_eq(shmc_job_key(key, sizeof key), SHMC_OK);
    setenv("SHMC_ATTACH_TIMEOUT", "1", 1);
    ck_assert_int_eq(run_ranks(1, join_alone, key), 0); /* rank 0: nobody joins it */
    ck_assert_int_eq(run_ranks(1, join_as_1, key), 0);  /* rank 1: nobody creates it */
    unsetenv("SHMC_ATTACH_TIMEOUT");
}
END_TEST

/* A torchrun-style job initialises again after finalize: a new arena is made under the
 * same variables. */
static int torch_again(int rank, int n, void *arg)
{
    char v[64];
    snprintf(v, sizeof v, "%d", rank);
    setenv("RANK", v, 1);
    setenv("LOCAL_RANK", v, 1);
    snprintf(v, sizeof v, "%d", n);
    setenv("WORLD_SIZE", v, 1);
    setenv("LOCAL_WORLD_SIZE", v, 1);
    setenv("TORCHELASTIC_RUN_ID", arg, 1);
    shmc_comm *w;
    for (int round = 0; round < 3; round++) {
        CHECK(shmc_init(&w) == SHMC_OK);
        if (use_job(w, rank, n, round))
            return 1;
        CHECK(shmc_finalize() == SHMC_OK);
    }
    return 0;
}

START_TEST(test_init_again_under_torchrun_vars)
{
    char id[64];
    snprintf(id, sizeof id, "check-join-%d", (int)getpid());
    ck_assert_int_eq(run_ranks(3, torch_again, id), 0);
}
END_TEST

/* shmc_machine_id in a forked child, against its parent's: the child as it is (0), in a
 * network namespace of its own (1), or in a mount namespace of its own with another
 * /dev/shm (2). Returns 1 if the ids were equal, 0 if not, 77 if the child could not
 * make its namespace (that needs root). */
static int child_id_equal(int how)
{
    char mine[SHMC_MACHINE_ID_LEN];
    ck_assert_int_eq(shmc_machine_id(mine, sizeof mine), SHMC_OK);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char id[SHMC_MACHINE_ID_LEN] = "";
        if (how == 1 && unshare(CLONE_NEWNET) != 0)
            _exit(77);
        if (how == 2 && (unshare(CLONE_NEWNS) != 0 ||
                         mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                         mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=1m") != 0))
            _exit(77);
        if (shmc_machine_id(id, sizeof id) != SHMC_OK)
            _exit(1);
        ssize_t w = write(p[1], id, strlen(id) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(p[1]);
    char theirs[SHMC_MACHINE_ID_LEN] = "";
    ssize_t got = read(p[0], theirs, sizeof theirs - 1);
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
        return 77;
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && got > 0, "the child failed");
    ck_assert_msg(!strncmp(mine, "boot:", 5), "id '%s'", mine);
    return strcmp(mine, theirs) == 0;
}

/* By default the ranks meet in the network namespace; with SHMC_MEMFD=0, in /dev/shm. */
START_TEST(test_machine_id)
{
    static const int apart[2][3] = {{0, 1, 0}, {0, 0, 1}}; /* [SHMC_MEMFD=0][how] */
    for (int named = 0; named < 2; named++) {
        if (named)
            setenv("SHMC_MEMFD", "0", 1);
        else
            unsetenv("SHMC_MEMFD");
        for (int how = 0; how < 3; how++) {
            int eq = child_id_equal(how);
            if (eq == 77) {
                fprintf(stderr, "test_machine_id: namespaces need root; skipped\n");
                continue;
            }
            ck_assert_msg(eq == !apart[named][how], "SHMC_MEMFD=%d, child %d: ids %s", !named,
                          how, eq ? "equal" : "differ");
        }
    }
    unsetenv("SHMC_MEMFD");
}
END_TEST

static Suite *join_suite(void)
{
    Suite *s = suite_create("join");
    TCase *t = tcase_create("join");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_join_and_join_again);
    tcase_add_test(t, test_join_bad_arguments);
    tcase_add_test(t, test_join_incomplete);
    tcase_add_test(t, test_init_again_under_torchrun_vars);
    tcase_add_test(t, test_machine_id);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(join_suite());
}
