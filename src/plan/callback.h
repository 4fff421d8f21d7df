/* callback.h - a user load or store callback as the planner and generator carry it. */
#ifndef ZIPFFT_CALLBACK_H
#define ZIPFFT_CALLBACK_H

#include <stdint.h>

/* A callback: the user's source, the function it defines, the user pointer passed to every
 * call, and a hash of source and name (part of kernel names). function NULL: none. */
typedef struct zipfft__callback {
  char *source, *function;
  void *user;
  uint64_t hash;
} zipfft__callback;

/* 64-bit FNV-1a hash of the source and the function name. */
uint64_t zipfft__callback_hash(const char *source, const char *function);

#endif
