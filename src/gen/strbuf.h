/* strbuf.h - a growable text buffer with a sticky out-of-memory flag. */
#ifndef ZIPFFT_STRBUF_H
#define ZIPFFT_STRBUF_H

#include <stddef.h>

typedef struct zipfft__strbuf {
  char *text; /* NUL-terminated; NULL until the first append */
  size_t len, cap;
  int failed; /* set once an allocation failed; later appends do nothing */
} zipfft__strbuf;

/* Appends formatted text. */
void zipfft__sb_printf(zipfft__strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends `level` levels of two-space indentation. */
void zipfft__sb_indent(zipfft__strbuf *sb, int level);
/* Hands the text to the caller (to free); returns NULL after a failure. Resets sb. */
char *zipfft__sb_take(zipfft__strbuf *sb);
void zipfft__sb_free(zipfft__strbuf *sb);

#endif
