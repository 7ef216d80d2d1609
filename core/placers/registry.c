/*
 * registry — the list of every placement method, in the order the
 * comparison table shows them.
 * Invariant: NULL-terminated; names are unique.
 */
#include "placer.h"

#include <stddef.h>

#include "placers/baselines.h"
#include "placers/brkga.h"
#include "placers/placeto.h"

const struct pl_placer_class *const pl_placer_classes[] = {
	&pl_placer_single_cpu,
	&pl_placer_single_gpu,
	&pl_placer_expert,
	&pl_placer_random,
	&pl_placer_scotch,
	&pl_placer_scotch_mem,
	&pl_placer_mincut,
	&pl_placer_heft,
	&pl_placer_mtopo,
	&pl_placer_metf,
	&pl_placer_brkga,
	&pl_placer_placeto,
	NULL,
};
