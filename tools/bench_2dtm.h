/* bench_2dtm.h - the `zipfft bench-2dtm` subcommand: 2D template matching throughput of
 * zipfft_corr against a cuFFT pipeline on a GPU. */
#ifndef ZIPFFT_TOOL_BENCH_2DTM_H
#define ZIPFFT_TOOL_BENCH_2DTM_H

/* Runs the 2DTM benchmark that argv describes (argv[0] is "bench-2dtm"; options --device D,
 * --quick, --md FILE) and prints the results to stdout: correlations per second of zipfft
 * (fp32 and F16 spectrum) and of a cuFFT pipeline, the bytes zipfft moves per correlation
 * against the copy bandwidth, and a check that both give the same maxima and argmax.
 * Returns 0 when every measurement succeeded and the check passed (or was skipped because
 * cuFFT is missing), 2 when no CUDA device is usable, 1 on any other failure. */
int zipfft_tool_bench_2dtm(int argc, char **argv);

#endif
