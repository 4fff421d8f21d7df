/* build_pair.h - builds the AST of a pair kernel (plan/pair.h). */
#ifndef ZIPFFT_BUILD_PAIR_H
#define ZIPFFT_BUILD_PAIR_H

#include "gen/ast.h"
#include "plan/pair.h"

/* Fills *k with the pair kernel of p, allocating every node from a. Returns NULL on
 * success or a message (members that cannot pair, out of memory, rule violation). */
const char *zipfft__build_pair(const zipfft__pair_spec *p, zipfft__arena *a, zipfft__kernel_ast *k);

#endif
