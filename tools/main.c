/* main.c - the `zipfft` command: dispatches to its subcommands. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bench_2dtm.h"
#include "demo.h"
#include "gen_command.h"
#include "match_command.h"

typedef struct subcommand {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *usage;
} subcommand;

static const subcommand subcommands[] = {
    {"demo", zipfft_tool_demo,
     "demo [--quick]        plan, run and check transforms; print throughput"},
    {"gen", zipfft_tool_gen,
     "gen [--c] PROBLEM...  print the generated kernel source (CUDA, or C)"},
    {"plan", zipfft_tool_plan, "plan PROBLEM...       print the plan chosen for a problem"},
    {"bench", zipfft_tool_bench, "bench [--quick] [--md FILE] [--only f32|f64] [--device D]"},
    {"bench-2dtm", zipfft_tool_bench_2dtm, "bench-2dtm [--quick] [--md FILE] [--device D]"},
    {"match", zipfft_tool_match,
     "match [--image F.mrc --templates T.mrc] [--out DIR] [--batch B] [--threshold Z] "
     "[--backend auto|cpu|cuda]"},
};

static int usage(void) {
  fprintf(stderr, "usage: zipfft COMMAND [ARGS]\n");
  for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
    fprintf(stderr, "  zipfft %s\n", subcommands[i].usage);
  fprintf(stderr,
          "PROBLEM words: c2c f32|f64 fwd|inv n=N batch=B inplace istride=S idist=D "
          "ostride=S odist=D scale=X backend=auto|cpu|cuda\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
    if (strcmp(argv[1], subcommands[i].name) == 0) return subcommands[i].run(argc - 1, argv + 1);
  return usage();
}
