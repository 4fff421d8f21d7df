/* bluestein_filter.c - Bluestein's filter for long lengths by an fp64 plan of the library. */
#include "api/bluestein_filter.h"

#include <stdlib.h>

#include "api/desc.h"
#include "api/error.h"
#include "api/plan_internal.h"
#include "plan/twiddle.h"

/* Complex values per host chunk of the source and the spectrum (16 MiB of doubles): the
 * whole sequence never lives on the host, so the peak is the backend buffer and the fp64
 * plan's workspace (zipfft__bluestein_filter_bytes). */
enum { filter_chunk = 1 << 20 };

/* Plans the fp64 n-point C2C transform of the filter's sign on the backend, in place. */
static zipfft_status plan_filter_fft(const zipfft__kernel_spec *s, zipfft_backend kind, int device,
                                     zipfft_plan *p) {
  zipfft_desc d = NULL;
  int64_t n = zipfft__filter_length(s);
  zipfft_status st = zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &n);
  if (st == ZIPFFT_SUCCESS)
    st = zipfft_desc_set_direction(d, s->sign < 0 ? ZIPFFT_FORWARD : ZIPFFT_INVERSE);
  if (st == ZIPFFT_SUCCESS) st = zipfft_desc_set_placement(d, ZIPFFT_INPLACE);
  if (st == ZIPFFT_SUCCESS) st = zipfft_desc_set_backend(d, kind, device);
  if (st == ZIPFFT_SUCCESS) st = zipfft_plan_create(p, d);
  zipfft__desc_release(d); /* zipfft_desc_destroy would clear a failure's detail */
  return st;
}

/* Complex values in the chunk from `first` of an n-value sequence. */
static int64_t chunk_length(int64_t n, int64_t first) {
  return n - first < filter_chunk ? n - first : filter_chunk;
}

/* Reverses the order of count complex doubles in place. */
static void reverse_complex(double *x, int64_t count) {
  for (int64_t i = 0, j = count - 1; i < j; i++, j--)
    for (int part = 0; part < 2; part++) {
      double t = x[2 * i + part];
      x[2 * i + part] = x[2 * j + part];
      x[2 * j + part] = t;
    }
}

/* The first `limit` of count entries from `first` (0 to count). */
static int64_t entries_below(int64_t limit, int64_t first, int64_t count) {
  int64_t below = limit - first;
  return below < 0 ? 0 : below < count ? below : count;
}

/* Fills the backend buffer with the filter's source sequence x (n entries): conj(c_m) at m
 * for m below the convolution's outputs and at n - m for 0 < m below its inputs
 * (zipfft__chirp_outputs, zipfft__chirp_inputs), zeros between. The chirps are computed
 * chunk by chunk, each chunk uploaded to both places it lies (the second time reversed),
 * and the zeros are set on the backend. */
static zipfft_status upload_source(const zipfft__kernel_spec *s, zipfft__backend *b, char *buffer,
                                   double *chunk) {
  int64_t big = zipfft__chirp_length(s), n = zipfft__filter_length(s);
  int64_t outputs = zipfft__chirp_outputs(big, s->chirp_half),
          inputs = zipfft__chirp_inputs(big, s->chirp_half), zeros = n - outputs - inputs + 1;
  zipfft_status st =
      zeros > 0 ? b->ops->zero(b, buffer + outputs * 16, (size_t)zeros * 16) : ZIPFFT_SUCCESS;
  for (int64_t first = 0; st == ZIPFFT_SUCCESS && first < big; first += filter_chunk) {
    int64_t count = chunk_length(big, first);
    zipfft__bluestein_conj_chirps(big, s->sign, first, count, chunk);
    int64_t at_m = entries_below(outputs, first, count);
    if (at_m > 0) st = b->ops->upload(b, buffer + first * 16, chunk, (size_t)at_m * 16);
    int64_t skip = first == 0, mirrored = entries_below(inputs, first, count) - skip;
    if (st == ZIPFFT_SUCCESS && mirrored > 0) { /* m = first + skip .. at n - m, descending */
      double *from = chunk + 2 * skip;
      reverse_complex(from, mirrored);
      st = b->ops->upload(b, buffer + (n - first - skip - mirrored + 1) * 16, from,
                          (size_t)mirrored * 16);
    }
  }
  return st;
}

/* Reads the transformed buffer back, chunk by chunk, into the kernel's host table. */
static zipfft_status download_spectrum(const zipfft__kernel_spec *s, zipfft__backend *b,
                                       const char *buffer, double *chunk, void *table) {
  zipfft_status st = ZIPFFT_SUCCESS;
  int64_t n = zipfft__filter_length(s);
  for (int64_t first = 0; st == ZIPFFT_SUCCESS && first < n; first += filter_chunk) {
    int64_t count = chunk_length(n, first);
    st = b->ops->download(b, chunk, buffer + first * 16, (size_t)count * 16);
    if (st == ZIPFFT_SUCCESS) zipfft__put_filter_spectrum(s, first, count, chunk, table);
  }
  return st;
}

uint64_t zipfft__bluestein_filter_bytes(const zipfft__kernel_spec *s) {
  /* the buffer and the fp64 four-step's workspace */
  return (uint64_t)zipfft__filter_length(s) * 16 * 2;
}

zipfft_status zipfft__bluestein_filter(const zipfft__kernel_spec *s, zipfft_backend kind,
                                       int device, zipfft__backend *b, void *table) {
  int64_t n = zipfft__filter_length(s);
  size_t bytes = (size_t)n * 16;
  double *chunk = malloc((size_t)chunk_length(n, 0) * 16);
  void *buffer = NULL;
  zipfft_plan p = NULL;
  if (!chunk) return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "Bluestein filter chunk");
  zipfft_status st = plan_filter_fft(s, kind, device, &p);
  if (st == ZIPFFT_SUCCESS) st = b->ops->alloc(b, bytes, &buffer);
  if (st == ZIPFFT_SUCCESS) st = upload_source(s, b, buffer, chunk);
  if (st == ZIPFFT_SUCCESS) st = zipfft_execute(p, buffer, buffer, NULL);
  if (st == ZIPFFT_SUCCESS) st = download_spectrum(s, b, buffer, chunk, table);
  if (buffer) b->ops->free(b, buffer);
  free(chunk);
  zipfft__plan_release(p);
  if (st == ZIPFFT_SUCCESS) return ZIPFFT_SUCCESS;
  return zipfft__prefix_error(st, "Bluestein filter of length %lld: ", (long long)n);
}
