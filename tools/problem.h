/* problem.h - problem strings ("c2c f32 fwd n=1024 batch=8") for the command-line tool. */
#ifndef ZIPFFT_TOOL_PROBLEM_H
#define ZIPFFT_TOOL_PROBLEM_H

#include <stddef.h>

#include "zipfft.h"

/* Parses words such as c2c, f32|f64, fwd|inv, n=N, batch=B, inplace, istride=, idist=,
 * ostride=, odist=, scale=, istorage=/ostorage=default|f16|bf16, backend=cpu|cuda|auto
 * into a new description. Unknown words
 * or bad values give ZIPFFT_ERROR_INVALID_ARGUMENT naming the word. */
zipfft_status zipfft_tool_parse_problem(int argc, char **argv, zipfft_desc *out);

#endif
