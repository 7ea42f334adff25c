/*
 * Memory exhaustion. A rank whose address space is capped (RLIMIT_AS a few MiB above what
 * it uses) keeps posting non-blocking receives until the library cannot allocate a
 * request: that call returns SHMC_ERR_NOMEM, nothing crashes, and meanwhile the messages
 * a peer floods it with, which it cannot buffer either, stay in the mailbox. With the
 * cap lifted, every message arrives, in order and intact, and the library works as
 * before. Sanitizer builds reserve far more address space than a cap allows: skipped.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

enum { FLOOD = 2000, MSG = 256 };

static size_t vm_bytes(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return pages * (size_t)sysconf(_SC_PAGESIZE);
}

static void exhausted(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t buf[MSG];
    if (me == 0) {
        T_OK(shmc_barrier(w));
        for (int k = 0; k < FLOOD; k++) {
            shmct_fill(buf, sizeof buf, (uint64_t)k);
            T_OK(shmc_send(buf, sizeof buf, SHMC_UINT8, 1, 1, w));
        }
        T_OK(shmc_barrier(w));
        return;
    }
    struct rlimit old, cap;
    T_ASSERT(getrlimit(RLIMIT_AS, &old) == 0, "getrlimit");
    cap = old;
    cap.rlim_cur = vm_bytes() + (4u << 20);
    T_ASSERT(setrlimit(RLIMIT_AS, &cap) == 0, "setrlimit");
    T_OK(shmc_barrier(w));
    /* Receives from ourselves on a tag not yet sent, until the library runs out of
     * memory. Rank 0's flood meanwhile waits in the mailbox. */
    enum { MAXR = 1 << 20 };
    static shmc_request *reqs[MAXR];
    static uint8_t sink[8];
    int posted = 0, rc = SHMC_OK;
    while (posted < MAXR &&
           (rc = shmc_irecv(sink, 0, SHMC_UINT8, 1, 2, w, &reqs[posted])) == SHMC_OK)
        posted++;
    T_ASSERT(rc == SHMC_ERR_NOMEM, "after %d receives: %s", posted, shmc_strerror(rc));
    /* Progress with memory still short: the flood is read, buffered while memory lasts
     * and otherwise left in the mailbox for later. */
    for (int i = 0; i < 200; i++) {
        int done = -1;
        T_OK(shmc_test(&reqs[0], &done, NULL));
        T_ASSERT(done == 0, "a receive nobody sent to completed");
    }
    T_ASSERT(setrlimit(RLIMIT_AS, &old) == 0, "setrlimit back");
    /* Everything flooded in arrives, in order and intact. */
    for (int k = 0; k < FLOOD; k++) {
        shmc_status st;
        T_OK(shmc_recv(buf, sizeof buf, SHMC_UINT8, 0, 1, w, &st));
        T_ASSERT(st.count == sizeof buf, "message %d: %zu bytes", k, st.count);
        size_t bad = shmct_verify(buf, sizeof buf, (uint64_t)k);
        T_ASSERT(bad == (size_t)-1, "message %d: byte %zu wrong", k, bad);
    }
    /* The pending receives are still there: satisfy them, and the library is whole. */
    for (int i = 0; i < posted; i++)
        T_OK(shmc_send(sink, 0, SHMC_UINT8, 1, 2, w));
    T_OK(shmc_waitall((size_t)posted, reqs, NULL));
    T_OK(shmc_barrier(w));
    fprintf(stderr, "check_nomem: %d receives posted before SHMC_ERR_NOMEM\n", posted);
}

START_TEST(test_nomem_recovers)
{
    if (SANITIZED) {
        fprintf(stderr, "test_nomem_recovers: skipped under a sanitizer\n");
        return;
    }
    ck_assert_int_eq(shmct_run(2, exhausted, NULL), 0);
}
END_TEST

static Suite *nomem_suite(void)
{
    Suite *s = suite_create("nomem");
    TCase *t = tcase_create("rlimit");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_nomem_recovers);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(nomem_suite());
}
