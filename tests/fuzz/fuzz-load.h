/*
 * fuzz-load — feed arbitrary bytes to every loader.  Shared by the
 * libFuzzer harnesses (make fuzz) and the corpus replay in make check.
 * Invariant: returns normally for any input (errors are fine, crashes not).
 */
#ifndef PL_FUZZ_LOAD_H
#define PL_FUZZ_LOAD_H

#include <stddef.h>
#include <stdint.h>

/* Graph, cluster and placement JSON loaders. */
void pl_fuzz_json(const uint8_t *data, size_t size);
/* DOT loader. */
void pl_fuzz_dot(const uint8_t *data, size_t size);

#endif
