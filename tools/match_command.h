/* match_command.h - `zipfft match`: cryo-EM two-dimensional template matching (2DTM). */
#ifndef ZIPFFT_TOOL_MATCH_COMMAND_H
#define ZIPFFT_TOOL_MATCH_COMMAND_H

/* Correlates every template of an MRC stack with an MRC micrograph (--image, --templates),
 * or, without them, with a synthetic micrograph of known planted copies, on the GPU when
 * one is usable (--backend), and writes the result maps, a PNG of the z-score and the
 * detected peaks into the output directory (--out, default match-out). Inputs are
 * validated before anything is written. Returns 0 on success (for the synthetic set: every
 * planted copy found at its exact position with its template), 1 on a failure (a one-line
 * message on stderr), 2 on bad arguments. */
int zipfft_tool_match(int argc, char **argv);

#endif
