/*
 * Unit test of base/list.h, the one intrusive list: order, removal from anywhere without
 * the head, removal while iterating, and the linked flag.
 */
#include <check.h>

#include "base/list.h"
#include "harness.h"

struct item {
    int v;
    struct shmc__link link;
};

/* The values on list h, in order, into out; returns how many. */
static int values(const struct shmc__link *h, int *out)
{
    int k = 0;
    for (const struct shmc__link *l = h->next; l != h; l = l->next)
        out[k++] = shmc__link_entry(l, const struct item, link)->v;
    return k;
}

START_TEST(test_list_order_and_remove)
{
    struct shmc__link h;
    struct item it[5];
    int got[5];
    shmc__list_init(&h);
    ck_assert(shmc__list_empty(&h));
    ck_assert_ptr_null(shmc__list_first(&h));
    for (int i = 0; i < 5; i++) {
        it[i].v = i;
        shmc__list_init(&it[i].link);
        ck_assert(!shmc__linked(&it[i].link));
        shmc__list_push(&h, &it[i].link);
        ck_assert(shmc__linked(&it[i].link));
    }
    ck_assert_int_eq(values(&h, got), 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(got[i], i);
    /* From the middle, the tail and the head, none of which needs the list's head. */
    shmc__list_remove(&it[2].link);
    shmc__list_remove(&it[4].link);
    shmc__list_remove(&it[0].link);
    ck_assert(!shmc__linked(&it[2].link));
    ck_assert_int_eq(values(&h, got), 2);
    ck_assert_int_eq(got[0], 1);
    ck_assert_int_eq(got[1], 3);
    ck_assert_ptr_eq(shmc__list_first(&h), &it[1].link);
    /* Pushed again after removal: at the tail. */
    shmc__list_push(&h, &it[0].link);
    ck_assert_int_eq(values(&h, got), 3);
    ck_assert_int_eq(got[2], 0);
}
END_TEST

START_TEST(test_list_remove_while_iterating)
{
    struct shmc__link h, *l, *tmp;
    struct item it[6];
    int got[6];
    shmc__list_init(&h);
    for (int i = 0; i < 6; i++) {
        it[i].v = i;
        shmc__list_push(&h, &it[i].link);
    }
    shmc__list_each(&h, l, tmp)
    {
        if (shmc__link_entry(l, struct item, link)->v % 2 == 0)
            shmc__list_remove(l);
    }
    ck_assert_int_eq(values(&h, got), 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(got[i], 2 * i + 1);
    shmc__list_each(&h, l, tmp) shmc__list_remove(l);
    ck_assert(shmc__list_empty(&h));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("list");
    TCase *t = tcase_create("list");
    tcase_add_test(t, test_list_order_and_remove);
    tcase_add_test(t, test_list_remove_while_iterating);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
