/*
 * The one intrusive list: circular and doubly linked through a sentinel head (libuv's
 * queue.h), so that an element leaves whatever list it is on in O(1) without knowing
 * which. An element embeds a struct shmc__link; shmc__link_entry gets the element back.
 * An unlinked element points at itself, so shmc__linked says whether it is on a list.
 * Single-threaded: whoever owns the list owns its links.
 */
#ifndef SHMC_LIST_H
#define SHMC_LIST_H

#include <stddef.h>

struct shmc__link {
    struct shmc__link *next, *prev;
};

#define shmc__link_entry(l, T, field) ((T *)(void *)((char *)(l)-offsetof(T, field)))

/* An empty list, or an element on no list. */
static inline void shmc__list_init(struct shmc__link *l)
{
    l->next = l->prev = l;
}

static inline int shmc__list_empty(const struct shmc__link *head)
{
    return head->next == head;
}

static inline int shmc__linked(const struct shmc__link *l)
{
    return l->next != l;
}

/* Appends l at the tail of head's list. */
static inline void shmc__list_push(struct shmc__link *head, struct shmc__link *l)
{
    l->next = head;
    l->prev = head->prev;
    head->prev->next = l;
    head->prev = l;
}

/* Takes l off its list (it then points at itself). */
static inline void shmc__list_remove(struct shmc__link *l)
{
    l->prev->next = l->next;
    l->next->prev = l->prev;
    l->next = l->prev = l;
}

/* The first element's link, or NULL if the list is empty. */
static inline struct shmc__link *shmc__list_first(const struct shmc__link *head)
{
    return head->next == head ? NULL : head->next;
}

/* Iterates over head's list; the loop body may remove the current element, since the
 * next one is read before it runs. */
#define shmc__list_each(head, l, tmp)                                                              \
    for ((l) = (head)->next, (tmp) = (l)->next; (l) != (head); (l) = (tmp), (tmp) = (l)->next)

#endif /* SHMC_LIST_H */
