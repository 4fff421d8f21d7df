/* tool_table.h - the result tables of the benchmark subcommands: fixed-size text cells,
 * printed aligned on stdout or as Markdown rows. */
#ifndef ZIPFFT_TOOL_TOOL_TABLE_H
#define ZIPFFT_TOOL_TOOL_TABLE_H

#include <stdio.h>

enum { ZIPFFT_TOOL_CELL_LEN = 32 };
typedef char zipfft_tool_cell[ZIPFFT_TOOL_CELL_LEN];

/* A column: its header and its width on stdout. */
typedef struct zipfft_tool_column {
  const char *header;
  int width;
} zipfft_tool_column;

/* Writes value with `decimals` digits into cell, or "-" when valid is 0. */
void zipfft_tool_format_number(char *cell, double value, int decimals, int valid);
/* Writes the count column headers into cells. */
void zipfft_tool_format_header(const zipfft_tool_column *columns, int count,
                               zipfft_tool_cell *cells);
/* Prints one row of count cells aligned to the column widths (first column left-aligned). */
void zipfft_tool_print_cells(const zipfft_tool_column *columns, int count, zipfft_tool_cell *cells);
/* Writes one Markdown table row of count cells. */
void zipfft_tool_write_markdown_cells(FILE *f, int count, zipfft_tool_cell *cells);
/* Writes a Markdown table's header row and its alignment row: the first left_columns
 * columns left-aligned, the others right-aligned. */
void zipfft_tool_write_markdown_header(FILE *f, const zipfft_tool_column *columns, int count,
                                       int left_columns);

#endif
