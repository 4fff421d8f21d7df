/* storage_prelude.c - source text of the 16-bit storage conversions (IEEE binary16 and
 * bfloat16, round to nearest even) shared by both emitters. */
#include <string.h>

#include "gen/emit.h"

/* Needs from the dialect's own prelude: ZDEV (function qualifiers), zbits_of(float) and
 * zfloat_of(bits), and zword_load / zword_store (4 bytes), zwords_load (8 bytes, two
 * words) and zhalf_load / zhalf_store (2 bytes), each with the dialect's access suffixes.
 * The binary16 ones in integer arithmetic, for dialects without conversion instructions. */
static const char f16_conversions[] =
    "ZDEV float zf16_to_f32(unsigned int h) {\n"
    "  unsigned int sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
    "  if (e == 0) { float v = (float)m * 5.9604644775390625e-8f; return sign ? -v : v; }\n"
    "  if (e == 31) return zfloat_of(sign | 0x7f800000u | (m << 13));\n"
    "  return zfloat_of(sign | ((e + 112u) << 23) | (m << 13));\n}\n"
    "ZDEV unsigned int zf32_to_f16(float f) {\n"
    "  unsigned int x = zbits_of(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;\n"
    "  unsigned int r, rem, half;\n"
    "  if (ax > 0x7f800000u) return sign | 0x7e00u;\n"
    "  if (ax >= 0x477ff000u) return sign | 0x7c00u;\n"
    "  if (ax < 0x33000001u) return sign;\n"
    "  if (ax < 0x38800000u) {\n"
    "    unsigned int shift = 126u - (ax >> 23), m = (ax & 0x7fffffu) | 0x800000u;\n"
    "    r = m >> shift; rem = m & ((1u << shift) - 1u); half = 1u << (shift - 1u);\n"
    "  } else {\n"
    "    r = (ax - 0x38000000u) >> 13; rem = ax & 0x1fffu; half = 0x1000u;\n"
    "  }\n"
    "  if (rem > half || (rem == half && (r & 1u))) r++;\n"
    "  return sign | r;\n}\n";
/* bfloat16: widening is a shift; zf32_to_bf16_integer rounds in integer arithmetic, and
 * zf32_to_bf16 is the dialect's rounding (bf16_rounding) or that one. */
static const char bf16_conversions[] =
    "ZDEV float zbf16_to_f32(unsigned int h) { return zfloat_of(h << 16); }\n"
    "ZDEV unsigned int zf32_to_bf16_integer(float f) {\n"
    "  unsigned int x = zbits_of(f);\n"
    "  if ((x & 0x7fffffffu) > 0x7f800000u) return ((x >> 16) | 0x40u) & 0xffffu;\n"
    "  return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;\n}\n";
static const char bf16_integer_rounding[] =
    "ZDEV unsigned int zf32_to_bf16(float f) { return zf32_to_bf16_integer(f); }\n";

/* Accessors of one 16-bit format and one access kind: re in the low half of the word. */
static void print_accessors(zipfft__strbuf *sb, const char *format, const char *access) {
  zipfft__sb_printf(sb,
                    "ZDEV void zload_%s%s(const unsigned char *p, long long i, zreal *re, "
                    "zreal *im) {\n  unsigned int w = zword_load%s(p + 4 * i);\n"
                    "  *re = z%s_to_f32(w & 0xffffu); *im = z%s_to_f32(w >> 16);\n}\n",
                    format, access, access, format, format);
  zipfft__sb_printf(sb,
                    "ZDEV void zstore_%s%s(unsigned char *p, long long i, zreal re, zreal im) {\n"
                    "  zword_store%s(p + 4 * i, zf32_to_%s(re) | (zf32_to_%s(im) << 16));\n}\n",
                    format, access, access, format, format);
  zipfft__sb_printf(sb,
                    "ZDEV void zload_pair_%s%s(const unsigned char *p, long long i, zreal *r0, "
                    "zreal *i0, zreal *r1, zreal *i1) {\n  unsigned int w0, w1;\n"
                    "  zwords_load%s(p + 4 * i, &w0, &w1);\n"
                    "  *r0 = z%s_to_f32(w0 & 0xffffu); *i0 = z%s_to_f32(w0 >> 16);\n"
                    "  *r1 = z%s_to_f32(w1 & 0xffffu); *i1 = z%s_to_f32(w1 >> 16);\n}\n",
                    format, access, access, format, format, format, format);
  zipfft__sb_printf(sb,
                    "ZDEV void zload_real_%s%s(const unsigned char *p, long long i, zreal *re) {\n"
                    "  *re = z%s_to_f32(zhalf_load%s(p + 2 * i));\n}\n"
                    "ZDEV void zstore_real_%s%s(unsigned char *p, long long i, zreal re) {\n"
                    "  zhalf_store%s(p + 2 * i, zf32_to_%s(re));\n}\n",
                    format, access, format, access, format, access, access, format);
}

void zipfft__emit_storage_prelude(zipfft__strbuf *sb, const zipfft__dialect *d) {
  static const char *const formats[] = {"f16", "bf16"};
  zipfft__sb_printf(sb, "%s%s%s", d->f16_conversions ? d->f16_conversions : f16_conversions,
                    bf16_conversions, d->bf16_rounding ? d->bf16_rounding : bf16_integer_rounding);
  for (int f = 0; f < 2; f++) {
    print_accessors(sb, formats[f], d->access_suffix[0]);
    if (strcmp(d->access_suffix[1], d->access_suffix[0]) != 0)
      print_accessors(sb, formats[f], d->access_suffix[1]);
  }
}

int zipfft__storage_is_16bit(zipfft_storage s) {
  return s == ZIPFFT_STORAGE_F16 || s == ZIPFFT_STORAGE_BF16;
}

/* 1 when a statement moves 16-bit stored data. */
static int moves_16bit(const zipfft__stmt *s) {
  return (s->kind == ZIPFFT__S_LOAD_COMPLEX &&
          zipfft__storage_is_16bit(s->u.load_complex.storage)) ||
         (s->kind == ZIPFFT__S_STORE_COMPLEX &&
          zipfft__storage_is_16bit(s->u.store_complex.storage));
}

int zipfft__kernel_uses_16bit(const zipfft__kernel_ast *k) {
  return zipfft__block_any(&k->body, moves_16bit);
}
