/* packed_prelude.c - source text of the packed workspace segments (kernel_spec
 * out_packed / in_packed): 8 fp32 complex values in 48 bytes, shared by both emitters. */
#include <string.h>

#include "gen/emit.h"

/* A segment: the 8-bit exponent field E of its largest part (at least 22), then its 16
 * parts (re, im of value 0, then of value 1, ...) as 23-bit fields q + 2^22, q the part in
 * units of 2^(E - 148) rounded to an integer, so |q| <= 2^22 (2^22 itself stored as 2^22 -
 * 1): a stream of 376 bits, low bits first, in six 64-bit words (the last 8 bits zero). A
 * part's error is at most half a unit: 2^-22 of the largest power of two not above the
 * segment's largest part. Rounding and widening go through the float bits, with no
 * float-integer conversion (a quarter or an eighth of the multiply rate on GPUs): x + 1.5 *
 * 2^23 rounds x (|x| <= 2^22) to an integer q and holds 0x4b400000 + q in its bits, and the
 * float with bits 0x4b000000 + f is 2^23 + f, exactly, the same on every device. A segment
 * holding an infinity or NaN keeps E = 255 and unpacks as 8 NaNs (an FFT of such data is
 * NaN wherever it reaches), never as finite values.
 * Needs from the dialect: ZDEV, zbits_of(float) and zfloat_of(bits). */
static const char segment_math[] =
    "ZDEV int zsegment_exponent(const float *v) {\n"
    "  unsigned int m = 0;\n"
    "  for (int i = 0; i < 16; i++) {\n"
    "    unsigned int a = zbits_of(v[i]) & 0x7fffffffu;\n"
    "    m = a > m ? a : m;\n  }\n"
    "  int e = (int)(m >> 23);\n  return e < 22 ? 22 : e;\n}\n"
    "ZDEV void zsegment_pack(const float *v, unsigned long long *w) {\n"
    "  int e = zsegment_exponent(v), bits = 8, n = 0;\n"
    "  float scale = zfloat_of((unsigned int)(275 - e) << 23);\n"
    "  unsigned long long acc = (unsigned long long)e;\n"
    "  for (int i = 0; i < 16; i++) {\n"
    "    unsigned int r = zbits_of(v[i] * scale + 12582912.0f) - 0x4b000000u;\n"
    "    unsigned long long f = r > 0x7fffffu ? 0x7fffffu : r;\n"
    "    acc |= f << bits;\n    bits += 23;\n"
    "    if (bits >= 64) {\n"
    "      w[n++] = acc;\n      bits -= 64;\n"
    "      acc = bits > 0 ? f >> (23 - bits) : 0;\n    }\n  }\n"
    "  w[5] = acc;\n}\n"
    "ZDEV void zsegment_unpack(const unsigned long long *w, float *v) {\n"
    "  int e = (int)(w[0] & 0xffu);\n"
    "  float unit = zfloat_of(e == 255 ? 0x7fc00000u : (unsigned int)(e - 21) << 23);\n"
    "  for (int i = 0; i < 16; i++) {\n"
    "    int at = 8 + 23 * i, k = at >> 6, b = at & 63;\n"
    "    unsigned long long f = w[k] >> b;\n"
    "    if (b > 41) f |= w[k + 1] << (64 - b);\n"
    "    float y = zfloat_of(0x4b000000u | ((unsigned int)f & 0x7fffffu));\n"
    "    v[i] = (y - 12582912.0f) * unit;\n  }\n}\n";

void zipfft__emit_packed_prelude(zipfft__strbuf *sb, const char *memory_helpers) {
  zipfft__sb_printf(sb, "%s%s", segment_math, memory_helpers);
}

/* 1 when a statement calls a packed segment helper. */
static int calls_packed(const zipfft__stmt *s) {
  return s->kind == ZIPFFT__S_CALL && strncmp(s->u.call.function, "zpacked_", 8) == 0;
}

int zipfft__kernel_uses_packed(const zipfft__kernel_ast *k) {
  return zipfft__block_any(&k->body, calls_packed);
}
