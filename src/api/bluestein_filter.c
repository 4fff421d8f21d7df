/* bluestein_filter.c - Bluestein's filter for long lengths by an fp64 plan of the library. */
#include "api/bluestein_filter.h"

#include <stdio.h>
#include <stdlib.h>

#include "api/error.h"
#include "plan/twiddle.h"

/* Plans the fp64 n-point C2C transform of the filter's sign on the backend. */
static zipfft_status plan_filter_fft(const zipfft__kernel_spec *s, zipfft_backend kind, int device,
                                     zipfft_plan *p) {
  zipfft_desc d = NULL;
  int64_t n = s->n;
  zipfft_status st = zipfft_desc_create(&d, ZIPFFT_C2C, ZIPFFT_F64, 1, &n);
  if (st == ZIPFFT_SUCCESS)
    st = zipfft_desc_set_direction(d, s->sign < 0 ? ZIPFFT_FORWARD : ZIPFFT_INVERSE);
  if (st == ZIPFFT_SUCCESS) st = zipfft_desc_set_backend(d, kind, device);
  if (st == ZIPFFT_SUCCESS) st = zipfft_plan_create(p, d);
  zipfft_desc_destroy(d);
  return st;
}

zipfft_status zipfft__bluestein_filter(const zipfft__kernel_spec *s, zipfft_backend kind,
                                       int device, zipfft__backend *b, void *table) {
  size_t bytes = (size_t)s->n * 2 * sizeof(double);
  double *host = malloc(bytes);
  void *in = NULL, *out = NULL;
  zipfft_plan p = NULL;
  if (!host)
    return zipfft__fail(ZIPFFT_ERROR_OUT_OF_MEMORY, "Bluestein filter of %zu bytes", bytes);
  zipfft__bluestein_filter_source(s->bluestein_n, s->n, s->sign, host);
  zipfft_status st = plan_filter_fft(s, kind, device, &p);
  if (st == ZIPFFT_SUCCESS) st = b->ops->alloc(b, bytes, &in);
  if (st == ZIPFFT_SUCCESS) st = b->ops->alloc(b, bytes, &out);
  if (st == ZIPFFT_SUCCESS) st = b->ops->upload(b, in, host, bytes);
  if (st == ZIPFFT_SUCCESS) st = zipfft_execute(p, in, out, NULL);
  if (st == ZIPFFT_SUCCESS) st = b->ops->download(b, host, out, bytes);
  if (st == ZIPFFT_SUCCESS) zipfft__put_filter_spectrum(s, host, table);
  if (in) b->ops->free(b, in);
  if (out) b->ops->free(b, out);
  free(host);
  if (st == ZIPFFT_SUCCESS) return zipfft_plan_destroy(p);
  /* zipfft_plan_destroy clears the detail: keep it. */
  char detail[512];
  snprintf(detail, sizeof detail, "%s", zipfft_last_error());
  zipfft_plan_destroy(p);
  return zipfft__fail(st, "Bluestein filter of length %lld: %s", (long long)s->n, detail);
}
