/* strbuf.c - growable text buffer used by the emitters and plan printing. */
#include "gen/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Makes room for `extra` more bytes plus the NUL; returns 0 on failure. */
static int reserve(zipfft__strbuf *sb, size_t extra) {
  if (sb->failed) return 0;
  if (sb->len + extra + 1 <= sb->cap) return 1;
  size_t cap = sb->cap ? sb->cap : 4096;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *t = realloc(sb->text, cap);
  if (!t) {
    sb->failed = 1;
    return 0;
  }
  sb->text = t;
  sb->cap = cap;
  return 1;
}

void zipfft__sb_printf(zipfft__strbuf *sb, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(NULL, 0, fmt, args);
  va_end(args);
  if (n < 0 || !reserve(sb, (size_t)n)) return;
  va_start(args, fmt);
  vsnprintf(sb->text + sb->len, (size_t)n + 1, fmt, args);
  va_end(args);
  sb->len += (size_t)n;
}

void zipfft__sb_indent(zipfft__strbuf *sb, int level) {
  for (int i = 0; i < level; i++) zipfft__sb_printf(sb, "  ");
}

char *zipfft__sb_take(zipfft__strbuf *sb) {
  char *t = sb->failed ? NULL : sb->text;
  if (sb->failed) free(sb->text);
  if (t == NULL && !sb->failed) t = calloc(1, 1);
  sb->text = NULL;
  sb->len = sb->cap = 0;
  sb->failed = 0;
  return t;
}

void zipfft__sb_free(zipfft__strbuf *sb) {
  free(sb->text);
  sb->text = NULL;
  sb->len = sb->cap = 0;
}
