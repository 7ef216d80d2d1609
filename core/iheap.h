/*
 * iheap — a binary min-heap of int ids on a flat array the caller sizes,
 * ordered by (key[id], id), or by id alone when key is NULL: the stable
 * "smallest ready first" queue of Kahn's algorithm and its kin.
 *
 * Invariant: h[0 .. *n) is a heap; h[0] is the smallest.
 */
#ifndef PL_IHEAP_H
#define PL_IHEAP_H

#include <stddef.h>

/* Whether id a orders before id b. */
static inline int
pl_iheap_less(const int *key, int a, int b)
{
	if (key != NULL && key[a] != key[b])
		return key[a] < key[b];
	return a < b;
}

/* Push id v. */
static inline void
pl_iheap_push(int *h, int *n, const int *key, int v)
{
	int i = (*n)++;
	while (i > 0) {
		int up = (i - 1) / 2;
		if (!pl_iheap_less(key, v, h[up]))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = v;
}

/* Pop the smallest id of a non-empty heap. */
static inline int
pl_iheap_pop(int *h, int *n, const int *key)
{
	int top = h[0], v = h[--(*n)], i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && pl_iheap_less(key, h[c + 1], h[c]))
			c++;
		if (!pl_iheap_less(key, h[c], v))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = v;
	return top;
}

#endif
