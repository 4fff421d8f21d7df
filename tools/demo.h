/* demo.h - `zipfft demo`: the README's main job for this version. */
#ifndef ZIPFFT_TOOL_DEMO_H
#define ZIPFFT_TOOL_DEMO_H

/* Plans and runs batched C2C transforms on the GPU if one is usable, else on the CPU,
 * checks sampled transforms against a long-double reference DFT and prints throughput.
 * Returns 0 when every check passed. */
int zipfft_tool_demo(int argc, char **argv);

#endif
