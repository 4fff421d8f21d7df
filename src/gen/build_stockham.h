/* build_stockham.h - builds the AST of a single-kernel batched 1D pass (C2C, R2C or C2R) or
 * of a pointwise kernel. */
#ifndef ZIPFFT_BUILD_STOCKHAM_H
#define ZIPFFT_BUILD_STOCKHAM_H

#include "gen/ast.h"
#include "plan/kernel_spec.h"

/* Fills *k with the kernel for spec, allocating every node from a. Returns NULL on success
 * or a message (invalid spec, out of memory, rule violation). */
const char *zipfft__build_stockham(const zipfft__kernel_spec *spec, zipfft__arena *a,
                                   zipfft__kernel_ast *k);

#endif
