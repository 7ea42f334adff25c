/*
 * The SPSC ring on its own: empty, full, wrap-around, every record size, rejection of
 * garbage, small records kept near the start of a large ring, and three stress runs (two threads,
 * two processes) of 10^7 records each with lengths and checksums verified. SHMC_RING_STRESS_N
 * overrides the record count.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "transport/ring.h"

/* The ring carries kinds 1 to SHMC_REC_KIND_LAST for the layer above; one will do. */
#define KIND 1u

#define RING 4096u

struct ring_mem {
    struct shmc__ring_ctrl *ctrl;
    size_t bytes;
    int shared;
};

static struct ring_mem ring_new(uint32_t size, int shared)
{
    struct ring_mem m = {.bytes = sizeof(struct shmc__ring_ctrl) + size, .shared = shared};
    if (shared) {
        m.ctrl = mmap(NULL, m.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        ck_assert_ptr_ne(m.ctrl, MAP_FAILED);
    } else {
        m.ctrl = aligned_alloc(64, (m.bytes + 63) / 64 * 64);
        ck_assert_ptr_nonnull(m.ctrl);
        memset(m.ctrl, 0, m.bytes);
    }
    return m;
}

static void ring_delete(struct ring_mem *m)
{
    if (m->shared)
        munmap(m->ctrl, m->bytes);
    else
        free(m->ctrl);
}

/* Private memory for a ring of size bytes, with both ends set up on it. */
static struct ring_mem ring_pair(uint32_t size, struct shmc__ring_prod *p,
                                 struct shmc__ring_cons *c)
{
    struct ring_mem m = ring_new(size, 0);
    shmc__ring_prod_init(p, m.ctrl, size);
    shmc__ring_cons_init(c, m.ctrl, size);
    return m;
}

/* Writes one record of len bytes, all equal to (uint8_t)id, w1 = id. */
static int put(struct shmc__ring_prod *p, uint32_t len, uint64_t id)
{
    uint8_t *d = shmc__ring_reserve(p, len);
    if (!d)
        return 0;
    memset(d, (int)(id & 0xff), len);
    shmc__ring_commit(p, KIND, id, len);
    return 1;
}

static void get(struct shmc__ring_cons *c, uint32_t len, uint64_t id)
{
    struct shmc__rec_view v;
    ck_assert_int_eq(shmc__ring_peek(c, &v), 1);
    ck_assert_uint_eq(v.kind, KIND);
    ck_assert_uint_eq(v.len, len);
    ck_assert_uint_eq(v.w1, id);
    for (uint32_t i = 0; i < len; i++)
        ck_assert_uint_eq(v.payload[i], id & 0xff);
    shmc__ring_consume(c, &v);
}

START_TEST(test_ring_empty)
{
    struct ring_mem m = ring_new(RING, 0);
    struct shmc__ring_cons c;
    struct shmc__rec_view v;
    shmc__ring_cons_init(&c, m.ctrl, RING);
    ck_assert_int_eq(shmc__ring_peek(&c, &v), 0);
    ck_assert(shmc__ring_empty(&c));
    ck_assert_int_eq(shmc__ring_publish(&c), 0);
    ring_delete(&m);
}
END_TEST

START_TEST(test_ring_full)
{
    struct shmc__ring_prod p;
    struct shmc__ring_cons c;
    struct ring_mem m = ring_pair(RING, &p, &c);

    uint32_t len = 100, rec = shmc__rec_size(len);
    uint64_t n = 0;
    while (put(&p, len, n))
        n++;
    /* Full means: not even the next header's word fits beside another record. */
    ck_assert_uint_eq(n, (RING - 8) / rec);
    /* Consuming without publishing frees nothing for the producer. */
    get(&c, len, 0);
    get(&c, len, 1);
    ck_assert(!put(&p, len, 999));
    /* Two records free enough for one more after the skip at the end of the array. */
    ck_assert_int_eq(shmc__ring_publish(&c), 1);
    ck_assert(put(&p, len, n));
    for (uint64_t i = 2; i <= n; i++)
        get(&c, len, i);
    ck_assert(shmc__ring_empty(&c));
    ring_delete(&m);
}
END_TEST

START_TEST(test_ring_wraparound)
{
    struct shmc__ring_prod p;
    struct shmc__ring_cons c;
    struct ring_mem m = ring_pair(RING, &p, &c);

    /* Sizes that never divide the ring evenly force skip records at the end. */
    uint64_t sent = 0, recvd = 0;
    uint32_t lens[] = {0, 1, 7, 8, 9, 100, 333, 1000, p.max_payload};
    size_t nl = sizeof lens / sizeof lens[0];
    while (p.head < 20ull * RING) {
        while (put(&p, lens[sent % nl], sent))
            sent++;
        while (recvd < sent) {
            get(&c, lens[recvd % nl], recvd);
            recvd++;
            if (recvd % 3 == 0)
                shmc__ring_publish(&c);
        }
        shmc__ring_publish(&c);
    }
    ck_assert_uint_gt(sent, 20);
    ck_assert(shmc__ring_empty(&c));
    ring_delete(&m);
}
END_TEST

START_TEST(test_ring_every_size)
{
    struct shmc__ring_prod p;
    struct shmc__ring_cons c;
    struct ring_mem m = ring_pair(RING, &p, &c);
    ck_assert_uint_eq(p.max_payload, RING / 4 - SHMC_REC_HDR);
    for (uint32_t len = 0; len <= p.max_payload; len++) {
        ck_assert(put(&p, len, len));
        get(&c, len, len);
        shmc__ring_publish(&c);
    }
    ring_delete(&m);
}
END_TEST

/* Where the consumer finds its next record: the offset of its payload in the array. */
static uint32_t next_offset(struct shmc__ring_cons *c)
{
    struct shmc__rec_view v;
    ck_assert_int_eq(shmc__ring_peek(c, &v), 1);
    return (uint32_t)(v.payload - c->data);
}

/* Reads record id (len bytes) and returns where its payload was. */
static uint32_t get_offset(struct shmc__ring_cons *c, uint32_t len, uint64_t id)
{
    uint32_t off = next_offset(c);
    get(c, len, id);
    return off;
}

/* One record written, read and released: where its payload was. */
static uint32_t put_get(struct shmc__ring_prod *p, struct shmc__ring_cons *c, uint32_t len,
                        uint64_t id)
{
    ck_assert(put(p, len, id));
    uint32_t off = get_offset(c, len, id);
    shmc__ring_publish(c);
    return off;
}

static void raise_to(uint32_t *highest, uint32_t off)
{
    if (off > *highest)
        *highest = off;
}

START_TEST(test_ring_small_records_wrap_early)
{
    const uint32_t size = 4 * SHMC_RING_SMALL_SPAN;
    struct shmc__ring_prod p;
    struct shmc__ring_cons c;
    struct ring_mem m = ring_pair(size, &p, &c);

    /* Small records, read as they come: they cycle within the small span... */
    uint32_t small = SHMC_RING_SMALL_REC - SHMC_REC_HDR, highest = 0;
    uint64_t id = 0;
    while (p.head < 8ull * size)
        raise_to(&highest, put_get(&p, &c, small, id++));
    ck_assert_uint_lt(highest, SHMC_RING_SMALL_SPAN + SHMC_REC_HDR);
    /* ...and one byte more takes the whole array. */
    highest = 0;
    for (uint64_t stop = p.head + 2ull * size; p.head < stop;)
        raise_to(&highest, put_get(&p, &c, small + 1, id++));
    ck_assert_uint_gt(highest, size - SHMC_RING_SMALL_REC * 2);
    ring_delete(&m);
}
END_TEST

START_TEST(test_ring_small_records_behind_reader)
{
    const uint32_t size = 4 * SHMC_RING_SMALL_SPAN;
    struct shmc__ring_prod p;
    struct shmc__ring_cons c;
    struct ring_mem m = ring_pair(size, &p, &c);

    /* With the reader far behind there is no room for the early skip: the records go on
     * in place past the small span, and every one arrives, in order. */
    uint32_t small = 8, rec = shmc__rec_size(small);
    uint64_t n = (3ull * size / 4) / rec, id;
    for (id = 0; id < n; id++)
        ck_assert(put(&p, small, id));
    ck_assert_uint_gt(p.head & p.mask, SHMC_RING_SMALL_SPAN);
    uint32_t highest = 0;
    for (uint64_t i = 0; i < n; i++)
        raise_to(&highest, get_offset(&c, small, i));
    ck_assert_uint_gt(highest, 2 * SHMC_RING_SMALL_SPAN);
    ck_assert(shmc__ring_empty(&c));
    /* Caught up: a little later the records are back within the small span (a ring's
     * worth of them; without the early skips the second half would lie beyond it). */
    shmc__ring_publish(&c);
    highest = 0;
    for (uint64_t k = 0; k < size / rec; k++, id++) {
        uint32_t off = put_get(&p, &c, small, id);
        if (k >= size / rec / 2)
            raise_to(&highest, off);
    }
    ck_assert_uint_lt(highest, SHMC_RING_SMALL_SPAN);
    ring_delete(&m);
}
END_TEST

/* Stores a raw header word where the consumer will look next. */
static void poke(struct shmc__ring_cons *c, uint64_t w0)
{
    uint64_t off = c->tail & c->mask;
    atomic_store((shmc_atomic_u64 *)(void *)(c->data + off), w0);
}

START_TEST(test_ring_rejects_garbage)
{
    struct ring_mem m = ring_new(RING, 0);
    struct shmc__ring_cons c;
    struct shmc__rec_view v;
    shmc__ring_cons_init(&c, m.ctrl, RING);
    uint32_t maxp = c.max_payload;
    uint64_t bad[] = {
        shmc__rec_w0(KIND, 8, 5),                   /* wrong sequence number */
        shmc__rec_w0(0, 8, 0),                      /* kind 0 with a length */
        shmc__rec_w0(SHMC_REC_KIND_LAST + 1, 8, 0), /* a kind the ring does not carry */
        shmc__rec_w0(200, 8, 0),                    /* another */
        shmc__rec_w0(KIND, maxp + 1, 0),            /* longer than any record */
        shmc__rec_w0(KIND, 0xffffffffu, 0),         /* absurd length */
        shmc__rec_w0(SHMC_REC_SKIP, 64, 0),         /* skip that does not reach the end */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        poke(&c, bad[i]);
        ck_assert_msg(shmc__ring_peek(&c, &v) == -1, "garbage header %zu accepted", i);
    }
    /* A skip to the end followed by a second skip is rejected too. */
    struct ring_mem m2 = ring_new(RING, 0);
    struct shmc__ring_prod p2;
    struct shmc__ring_cons c2;
    shmc__ring_prod_init(&p2, m2.ctrl, RING);
    shmc__ring_cons_init(&c2, m2.ctrl, RING);
    c2.tail = RING - 64;
    c2.seq = 0;
    poke(&c2, shmc__rec_w0(SHMC_REC_SKIP, 64, 0));
    atomic_store((shmc_atomic_u64 *)(void *)c2.data, shmc__rec_w0(SHMC_REC_SKIP, RING, 1));
    ck_assert_int_eq(shmc__ring_peek(&c2, &v), -1);
    ring_delete(&m2);
    ring_delete(&m);
}
END_TEST

/* ---- stress ----------------------------------------------------------------------------- */

static uint64_t stress_n(void)
{
    const char *s = getenv("SHMC_RING_STRESS_N");
    return s && *s ? strtoull(s, NULL, 10) : 10000000ull;
}

/* Record i: its length and content are functions of i; 1 in 64 is large. */
static uint32_t stress_len(uint64_t i, uint32_t maxp)
{
    uint64_t x = i * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return (i & 63) == 0 ? (uint32_t)(x % (maxp + 1)) : (uint32_t)(x % 97);
}

static uint64_t stress_produce(struct shmc__ring_ctrl *ctrl, uint32_t size, uint64_t n)
{
    struct shmc__ring_prod p;
    shmc__ring_prod_init(&p, ctrl, size);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t len = stress_len(i, p.max_payload);
        uint8_t *d;
        unsigned spins = 0;
        while (!(d = shmc__ring_reserve(&p, len)))
            if (++spins % 64 == 0)
                sched_yield();
        uint8_t b = (uint8_t)(i * 131);
        memset(d, b, len);
        sum += (uint64_t)b * len;
        shmc__ring_commit(&p, KIND, i, len);
    }
    return sum;
}

/* Returns the checksum, or ~0 on the first malformed record. */
static uint64_t stress_consume(struct shmc__ring_ctrl *ctrl, uint32_t size, uint64_t n)
{
    struct shmc__ring_cons c;
    shmc__ring_cons_init(&c, ctrl, size);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        struct shmc__rec_view v;
        int rc;
        unsigned spins = 0;
        while ((rc = shmc__ring_peek(&c, &v)) == 0) {
            shmc__ring_publish(&c);
            if (++spins % 64 == 0)
                sched_yield();
        }
        if (rc < 0 || v.w1 != i || v.len != stress_len(i, c.max_payload))
            return ~0ull;
        uint8_t b = (uint8_t)(i * 131);
        uint64_t s = 0;
        for (uint32_t k = 0; k < v.len; k++)
            s += v.payload[k];
        if (s != (uint64_t)b * v.len)
            return ~0ull;
        sum += s;
        shmc__ring_consume(&c, &v);
        if ((i & 15) == 0)
            shmc__ring_publish(&c);
    }
    shmc__ring_publish(&c);
    return sum;
}

struct producer_arg {
    struct shmc__ring_ctrl *ctrl;
    uint32_t size;
    uint64_t n, sum;
};

static void *producer_thread(void *a)
{
    struct producer_arg *pa = a;
    pa->sum = stress_produce(pa->ctrl, pa->size, pa->n);
    return NULL;
}

/* Two threads over a ring of size bytes. */
static void stress_threads(uint32_t size, uint64_t n)
{
    struct ring_mem m = ring_new(size, 0);
    struct producer_arg pa = {.ctrl = m.ctrl, .size = size, .n = n};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, producer_thread, &pa), 0);
    uint64_t got = stress_consume(m.ctrl, size, pa.n);
    pthread_join(t, NULL);
    ck_assert_uint_ne(got, ~0ull);
    ck_assert_uint_eq(got, pa.sum);
    ring_delete(&m);
}

START_TEST(test_ring_stress_threads)
{
    stress_threads(RING * 4, stress_n());
}
END_TEST

/* A ring larger than the small span: small records skip early, whenever the reader
 * leaves room, between the large ones. */
START_TEST(test_ring_stress_threads_large)
{
    stress_threads(4 * SHMC_RING_SMALL_SPAN, stress_n() / 2);
}
END_TEST

START_TEST(test_ring_stress_processes)
{
    struct ring_mem m = ring_new(RING * 4, 1);
    uint64_t *result = shmct_page();
    uint64_t n = stress_n();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        *result = stress_produce(m.ctrl, RING * 4, n);
        _exit(0);
    }
    uint64_t got = stress_consume(m.ctrl, RING * 4, n);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_uint_ne(got, ~0ull);
    ck_assert_uint_eq(got, *result);
    shmct_page_free(result);
    ring_delete(&m);
}
END_TEST

static Suite *ring_suite(void)
{
    Suite *s = suite_create("ring");
    TCase *basic = tcase_create("basic");
    tcase_add_test(basic, test_ring_empty);
    tcase_add_test(basic, test_ring_full);
    tcase_add_test(basic, test_ring_wraparound);
    tcase_add_test(basic, test_ring_every_size);
    tcase_add_test(basic, test_ring_rejects_garbage);
    tcase_add_test(basic, test_ring_small_records_wrap_early);
    tcase_add_test(basic, test_ring_small_records_behind_reader);
    suite_add_tcase(s, basic);
    TCase *stress = tcase_create("stress");
    tcase_set_timeout(stress, 120);
    tcase_add_test(stress, test_ring_stress_threads);
    tcase_add_test(stress, test_ring_stress_processes);
    tcase_add_test(stress, test_ring_stress_threads_large);
    suite_add_tcase(s, stress);
    return s;
}

int main(void)
{
    return shmct_main(ring_suite());
}
