/* bench.h - the `zipfft bench` subcommand: zipfft against cuFFT and copy bandwidth on a GPU. */
#ifndef ZIPFFT_TOOL_BENCH_H
#define ZIPFFT_TOOL_BENCH_H

/* Runs the benchmark that argv describes (argv[0] is "bench"; options --device D, --quick,
 * --md FILE, --only f32|f64) and prints the results to stdout. Returns 0 when every
 * measurement succeeded and every output matched cuFFT, 2 when no CUDA device is usable,
 * 1 on any other failure (bad option, failed call, mismatch). */
int zipfft_tool_bench(int argc, char **argv);

#endif
