/* host_parallel.c - a loop over a range of table entries split across host threads. */
#include "plan/host_parallel.h"

#include <pthread.h>
#include <unistd.h>

enum { max_parts = 64 };

/* One thread's part of the range. */
typedef struct range_part {
  zipfft__range_body body;
  void *context;
  int64_t first, end;
} range_part;

static void *run_part(void *arg) {
  range_part *part = arg;
  part->body(part->context, part->first, part->end);
  return NULL;
}

/* Parts for count entries of at least min_part each, within the online processors. */
static int part_count(int64_t count, int64_t min_part) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int64_t by_size = min_part > 0 ? count / min_part : count;
  int64_t parts = cpus < 1 ? 1 : cpus;
  if (parts > max_parts) parts = max_parts;
  if (parts > by_size) parts = by_size;
  return parts < 1 ? 1 : (int)parts;
}

void zipfft__host_parallel_for(int64_t count, int64_t min_part, zipfft__range_body body,
                               void *context) {
  int parts = part_count(count, min_part);
  range_part ranges[max_parts];
  pthread_t threads[max_parts];
  int started[max_parts] = {0};
  for (int i = 0; i < parts; i++)
    ranges[i] = (range_part){body, context, count * i / parts, count * (i + 1) / parts};
  for (int i = 1; i < parts; i++)
    started[i] = pthread_create(&threads[i], NULL, run_part, &ranges[i]) == 0;
  run_part(&ranges[0]);
  for (int i = 1; i < parts; i++)
    if (started[i])
      pthread_join(threads[i], NULL);
    else
      run_part(&ranges[i]);
}
