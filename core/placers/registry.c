/*
 * registry — the list of every placement method, in the order the
 * comparison table shows them.
 * Invariant: NULL-terminated; names are unique.
 */
#include "placer.h"

#include <stddef.h>

const struct pl_placer_class *const pl_placer_classes[] = {
	NULL,
};
