/* error.c - status names and messages from the one status list, and thread-local details. */
#include "api/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { detail_capacity = 16384 };
static _Thread_local char detail[detail_capacity];

typedef struct status_entry {
  zipfft_status status;
  const char *name;
  const char *text;
} status_entry;

static const status_entry status_table[] = {
#define ZIPFFT_STATUS_ROW_(name, value, text) {name, #name, text},
    ZIPFFT_STATUS_LIST(ZIPFFT_STATUS_ROW_)
#undef ZIPFFT_STATUS_ROW_
};

static const status_entry *find_status(zipfft_status s) {
  for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++)
    if (status_table[i].status == s) return &status_table[i];
  return NULL;
}

const char *zipfft_status_name(zipfft_status s) {
  const status_entry *e = find_status(s);
  return e ? e->name : "ZIPFFT_UNKNOWN_STATUS";
}

const char *zipfft_status_string(zipfft_status s) {
  const status_entry *e = find_status(s);
  return e ? e->text : "unknown status";
}

const char *zipfft_last_error(void) { return detail; }

zipfft_status zipfft__fail(zipfft_status status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(detail, sizeof detail, fmt, args);
  va_end(args);
  return status;
}

zipfft_status zipfft__prefix_error(zipfft_status status, const char *fmt, ...) {
  char prefix[512];
  _Static_assert(sizeof prefix < detail_capacity, "a prefix leaves room in the detail");
  va_list args;
  va_start(args, fmt);
  int length = vsnprintf(prefix, sizeof prefix, fmt, args);
  va_end(args);
  size_t used = length < 0 ? 0 : strlen(prefix), kept = strlen(detail);
  if (kept > sizeof detail - 1 - used) kept = sizeof detail - 1 - used;
  memmove(detail + used, detail, kept);
  memcpy(detail, prefix, used);
  detail[used + kept] = '\0';
  return status;
}

void zipfft__append_error(const char *text) {
  size_t used = strlen(detail);
  if (used + 1 < sizeof detail) snprintf(detail + used, sizeof detail - used, "%s", text);
}

void zipfft__clear_error(void) { detail[0] = '\0'; }
