/* gen_command.c - `zipfft gen` and `zipfft plan`. */
#include "gen_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/plan_internal.h"
#include "problem.h"

/* Plans the problem in argv on the CPU backend unless the words name another. */
static zipfft_plan plan_problem(int argc, char **argv) {
  zipfft_desc d = NULL;
  zipfft_plan p = NULL;
  zipfft_status s = zipfft_tool_parse_problem(argc, argv, &d);
  if (s == ZIPFFT_SUCCESS) s = zipfft_plan_create(&p, d);
  /* Before zipfft_desc_destroy, which clears the last error. */
  if (s != ZIPFFT_SUCCESS)
    fprintf(stderr, "zipfft: %s: %s\n", zipfft_status_name(s), zipfft_last_error());
  if (d) zipfft_desc_destroy(d);
  return s == ZIPFFT_SUCCESS ? p : NULL;
}

int zipfft_tool_gen(int argc, char **argv) {
  int c_source = argc > 1 && strcmp(argv[1], "--c") == 0;
  zipfft_plan p = plan_problem(argc - 1 - c_source, argv + 1 + c_source);
  if (!p) return 1;
  char *text = NULL;
  zipfft_status s = zipfft__plan_sources(p, !c_source, &text);
  if (s == ZIPFFT_SUCCESS)
    fputs(text, stdout);
  else
    fprintf(stderr, "zipfft: %s: %s\n", zipfft_status_name(s), zipfft_last_error());
  free(text);
  zipfft_plan_destroy(p);
  return s == ZIPFFT_SUCCESS ? 0 : 1;
}

int zipfft_tool_plan(int argc, char **argv) {
  zipfft_plan p = plan_problem(argc - 1, argv + 1);
  if (!p) return 1;
  char text[8192];
  zipfft_plan_print(p, text, sizeof text, NULL);
  fputs(text, stdout);
  zipfft_plan_destroy(p);
  return 0;
}
