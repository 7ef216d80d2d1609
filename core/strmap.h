/*
 * strmap — an open-addressing hash map from strings to ints.
 *
 * Invariant: keys are borrowed (the caller keeps them alive); the table is
 * at most half full; values are >= 0 (lookups return -1 for "absent").
 */
#ifndef PL_STRMAP_H
#define PL_STRMAP_H

#include <stddef.h>

struct pl_strmap {
	size_t cap;		/* power of two */
	size_t n;
	const char **keys;
	int *vals;
};

void pl_strmap_init(struct pl_strmap *m, size_t expected);
void pl_strmap_free(struct pl_strmap *m);
/* Insert key -> val unless present; returns the existing value or -1. */
int pl_strmap_put(struct pl_strmap *m, const char *key, int val);
int pl_strmap_get(const struct pl_strmap *m, const char *key);

#endif
