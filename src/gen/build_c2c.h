/* build_c2c.h - builds the AST of a single-kernel batched 1D C2C transform. */
#ifndef ZIPFFT_BUILD_C2C_H
#define ZIPFFT_BUILD_C2C_H

#include "gen/ast.h"
#include "plan/kernel_spec.h"

/* Fills *k with the kernel for spec, allocating every node from a. Returns NULL on success
 * or a message (invalid spec, out of memory, rule violation). */
const char *zipfft__build_c2c(const zipfft__c2c_spec *spec, zipfft__arena *a,
                              zipfft__kernel_ast *k);

#endif
