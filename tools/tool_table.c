/* tool_table.c - the benchmark subcommands' result tables (see tool_table.h). */
#include "tool_table.h"

void zipfft_tool_format_number(char *cell, double value, int decimals, int valid) {
  if (valid)
    snprintf(cell, ZIPFFT_TOOL_CELL_LEN, "%.*f", decimals, value);
  else
    snprintf(cell, ZIPFFT_TOOL_CELL_LEN, "-");
}

void zipfft_tool_format_header(const zipfft_tool_column *columns, int count,
                               zipfft_tool_cell *cells) {
  for (int c = 0; c < count; c++) snprintf(cells[c], ZIPFFT_TOOL_CELL_LEN, "%s", columns[c].header);
}

void zipfft_tool_print_cells(const zipfft_tool_column *columns, int count,
                             zipfft_tool_cell *cells) {
  for (int c = 0; c < count; c++) printf(c == 0 ? "%-*s" : "  %*s", columns[c].width, cells[c]);
  printf("\n");
}

void zipfft_tool_write_markdown_cells(FILE *f, int count, zipfft_tool_cell *cells) {
  for (int c = 0; c < count; c++) fprintf(f, "| %s ", cells[c]);
  fprintf(f, "|\n");
}

void zipfft_tool_write_markdown_header(FILE *f, const zipfft_tool_column *columns, int count,
                                       int left_columns) {
  for (int c = 0; c < count; c++) fprintf(f, "| %s ", columns[c].header);
  fprintf(f, "|\n");
  for (int c = 0; c < count; c++) fprintf(f, "|%s", c < left_columns ? ":---" : "---:");
  fprintf(f, "|\n");
}
