/* gen_command.h - `zipfft gen` and `zipfft plan`: show what the library generates. */
#ifndef ZIPFFT_TOOL_GEN_H
#define ZIPFFT_TOOL_GEN_H

/* Prints the generated source (CUDA by default, C with --c) of the plan for a problem.
 * argv[0] is "gen". Returns 0 on success, 1 on failure (message on stderr). */
int zipfft_tool_gen(int argc, char **argv);
/* Prints zipfft_plan_print's description of the plan for a problem. */
int zipfft_tool_plan(int argc, char **argv);

#endif
