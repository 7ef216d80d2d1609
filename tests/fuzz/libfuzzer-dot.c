/* libfuzzer-dot — libFuzzer entry for the DOT loader (make fuzz). */
#include "tests/fuzz/fuzz-load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pl_fuzz_dot(data, size);
	return 0;
}
