/* kernel_spec.c - derived quantities and names of kernel specifications. */
#include "plan/kernel_spec.h"

#include <stdio.h>
#include <string.h>

size_t zipfft__real_size(zipfft_precision p) { return p == ZIPFFT_F32 ? 4 : 8; }

int64_t zipfft__shared_pad_period(const zipfft__c2c_spec *s) {
  return s->radices[0] % 2 == 0 ? s->radices[0] : 0;
}

int64_t zipfft__shared_pad(const zipfft__c2c_spec *s, int64_t i) {
  int64_t period = zipfft__shared_pad_period(s);
  return period ? i + i / period : i;
}

int64_t zipfft__c2c_shared_stride(const zipfft__c2c_spec *s) {
  return zipfft__shared_pad(s, s->n - 1) + 1;
}

size_t zipfft__c2c_shared_bytes(const zipfft__c2c_spec *s) {
  if (s->pass_count <= 1) return 0;
  return (size_t)(2 * s->ffts_per_block * zipfft__c2c_shared_stride(s)) *
         zipfft__real_size(s->precision);
}

unsigned zipfft__c2c_block_threads(const zipfft__c2c_spec *s) {
  return (unsigned)(s->threads_per_fft * s->ffts_per_block);
}

void zipfft__c2c_kernel_name(const zipfft__c2c_spec *s, char *buf, size_t len) {
  char radices[128] = "";
  for (int i = 0; i < s->pass_count; i++) {
    size_t used = strlen(radices);
    snprintf(radices + used, sizeof radices - used, "%s%d", i ? "x" : "", s->radices[i]);
  }
  uint64_t scale_bits;
  memcpy(&scale_bits, &s->scale, sizeof scale_bits);
  snprintf(buf, len, "zipfft_c2c_%s_%s_n%lld_r%s_t%d_f%d_is%lld_id%lld_os%lld_od%lld_s%016llx",
           s->precision == ZIPFFT_F32 ? "f32" : "f64", s->sign < 0 ? "fwd" : "inv", (long long)s->n,
           s->pass_count ? radices : "1", s->threads_per_fft, s->ffts_per_block,
           (long long)s->in_stride, (long long)s->in_dist, (long long)s->out_stride,
           (long long)s->out_dist, (unsigned long long)scale_bits);
}
