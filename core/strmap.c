/*
 * strmap — string -> int hash map with linear probing (FNV-1a hash).
 * Invariant: n * 2 <= cap, so probing always ends on an empty slot.
 */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* FNV-1a over the string's bytes. */
static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* Make an empty map sized for about `expected` keys. */
void
pl_strmap_init(struct pl_strmap *m, size_t expected)
{
	size_t cap = 16;
	while (cap < expected * 2 + 2)
		cap <<= 1;
	m->cap = cap;
	m->n = 0;
	m->keys = pl_xcalloc(cap, sizeof *m->keys);
	m->vals = pl_xcalloc(cap, sizeof *m->vals);
}

/* Free the table (not the keys). */
void
pl_strmap_free(struct pl_strmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* Double the table. */
static void
grow(struct pl_strmap *m)
{
	struct pl_strmap n;
	pl_strmap_init(&n, m->cap);
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i] != NULL)
			pl_strmap_put(&n, m->keys[i], m->vals[i]);
	pl_strmap_free(m);
	*m = n;
}

/* Insert unless present. */
int
pl_strmap_put(struct pl_strmap *m, const char *key, int val)
{
	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i] != NULL) {
		if (strcmp(m->keys[i], key) == 0)
			return m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return -1;
}

/* Value for key, or -1. */
int
pl_strmap_get(const struct pl_strmap *m, const char *key)
{
	if (m->cap == 0)
		return -1;
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i] != NULL) {
		if (strcmp(m->keys[i], key) == 0)
			return m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return -1;
}
