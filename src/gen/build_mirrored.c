/* build_mirrored.c - the R2C split and the C2R merge of a half-length real kernel done in
 * registers: the last (R2C) or first (C2R) pass's threads hold butterflies j and m - j, so
 * elements e and n - e meet in one thread and need no round through shared memory. */
#include "gen/build_context.h"

/* The mirrored pass (m = n / r butterflies, B per thread, B T = m) holds element
 * e = j + q m in value slot b r + q of butterfly b. Its partner n - e is element
 * (m - j) + (r - 1 - q) m: the butterfly B/2 places later, slot r - 1 - q. Only j = 0 and
 * j = m/2 are their own mirrors; thread 0 holds both as its butterflies 0 and B/2. */
typedef struct mirror_pair {
  const zipfft__expr *e; /* element e of the pair (Z[e], Z[n - e]) */
  int slot, partner;     /* value slots of e and of n - e (equal when e is its own partner) */
  zipfft__cval w;        /* W^e = exp(sign 2 pi i e / 2n) */
} mirror_pair;

enum { max_pairs = ZIPFFT__MAX_VALUES };

/* The pairs of the thread's front butterfly b (any but thread 0's butterfly 0): its slot q
 * with the mirror's slot r - 1 - q; W^e = W^t times the constant W^(b T + q m). */
static int front_pairs(zipfft__stockham_build *c, zipfft__block *g, const pass_shape *ps,
                       const zipfft__expr *j, int b, zipfft__cval w0, mirror_pair *out) {
  int r = ps->radix, mirror = b + ps->butterflies / 2;
  int64_t two_n = 2 * zipfft__half_points(c->s);
  for (int q = 0; q < r; q++)
    out[q] = (mirror_pair){
        .e = bin(c, ZIPFFT__OP_ADD, j, i32(c, q * ps->m)),
        .slot = b * r + q,
        .partner = mirror * r + r - 1 - q,
        .w = zipfft__times_root(c, g, w0, (int64_t)b * c->s->threads_per_fft + q * ps->m, two_n)};
  return r;
}

/* One constant pair of thread 0's butterflies 0 and m/2. */
static mirror_pair constant_pair(zipfft__stockham_build *c, zipfft__block *g, int64_t e, int slot,
                                 int partner) {
  zipfft__cval one = {zipfft__e_real(c->a, 1), zipfft__e_real(c->a, 0)};
  return (mirror_pair){.e = i32(c, e),
                       .slot = slot,
                       .partner = partner,
                       .w = zipfft__times_root(c, g, one, e, 2 * zipfft__half_points(c->s))};
}

/* Thread 0's butterflies 0 (elements q m: 0 with itself, giving X[0] and X[n]; q with
 * r - q) and m/2 (elements m/2 + q m: q with r - 1 - q), each its own mirror. */
static int self_pairs(zipfft__stockham_build *c, zipfft__block *g, const pass_shape *ps,
                      mirror_pair *out) {
  int r = ps->radix, h = ps->butterflies / 2 * r, count = 0;
  int64_t m = ps->m;
  for (int q = 0; q <= r - q; q++) out[count++] = constant_pair(c, g, q * m, q, q == 0 ? 0 : r - q);
  for (int q = 0; q <= r - 1 - q; q++)
    out[count++] = constant_pair(c, g, m / 2 + q * m, h + q, h + r - 1 - q);
  return count;
}

/* Splits and stores each pair of a group from the registers y. */
static void split_group(zipfft__stockham_build *c, zipfft__block *g, const zipfft__expr *base,
                        const mirror_pair *pairs, int count, const zipfft__cval *y) {
  for (int i = 0; i < count; i++)
    zipfft__emit_split_pair(c, g, base, pairs[i].e, y[pairs[i].slot], y[pairs[i].partner],
                            &pairs[i].w);
}

void zipfft__emit_mirrored_split(zipfft__stockham_build *c, zipfft__block *body,
                                 const zipfft__thread_coords *k, const pass_shape *ps,
                                 const zipfft__expr **j, const zipfft__cval *y) {
  zipfft__s_comment(c->a, body, "split into the half spectrum: pairs (e, n - e) in registers");
  const zipfft__expr *base = zipfft__batch_offset(c, body, k, 1);
  zipfft__cval w0 = zipfft__cval_materialize(c->a, body, zipfft__split_twiddle(c, body, k->t));
  zipfft__block *active = open_if(c, body, k->active);
  for (int b = 0; b < ps->butterflies / 2; b++) {
    mirror_pair pairs[max_pairs];
    zipfft__block *g = active;
    if (b == 0) { /* thread 0: butterflies 0 and m/2, each its own mirror */
      zipfft__stmt *branch = zipfft__s_if(c->a, active, bin(c, ZIPFFT__OP_EQ, k->t, i32(c, 0)));
      split_group(c, &branch->u.if_.then_block, base, pairs,
                  self_pairs(c, &branch->u.if_.then_block, ps, pairs), y);
      g = &branch->u.if_.else_block;
    }
    split_group(c, g, base, pairs, front_pairs(c, g, ps, j[b], b, w0, pairs), y);
  }
}

/* Z[e] of one pair into its slot and Z[n - e] into the partner's, from the loaded X values
 * at those slots (X[e] and X[n - e]); W^(n - e) = -conj(W^e). */
static void merge_pair(zipfft__stockham_build *c, zipfft__block *g, const mirror_pair *pair,
                       const zipfft__cval *loaded, const zipfft__cval *x) {
  zipfft__cval p = loaded[pair->slot], q = loaded[pair->partner];
  zipfft__cval z = zipfft__cval_materialize(c->a, g, zipfft__merge_value(c, g, p, q, pair->w));
  zipfft__s_assign(c->a, g, x[pair->slot].re->u.var, z.re);
  zipfft__s_assign(c->a, g, x[pair->slot].im->u.var, z.im);
  if (pair->partner == pair->slot) return;
  zipfft__cval w2 = {zipfft__e_neg(c->a, pair->w.re), pair->w.im};
  zipfft__cval z2 = zipfft__cval_materialize(c->a, g, zipfft__merge_value(c, g, q, p, w2));
  zipfft__s_assign(c->a, g, x[pair->partner].re->u.var, z2.re);
  zipfft__s_assign(c->a, g, x[pair->partner].im->u.var, z2.im);
}

/* Thread 0's element 0: Z[0] from X[0] and X[n] (loaded here), both real (their imaginary
 * parts ignored, as the merge phase does); its other self pairs as merge_pair. */
static void merge_self_pairs(zipfft__stockham_build *c, zipfft__block *g, const mirror_pair *pairs,
                             int count, const zipfft__expr *base, zipfft__access access,
                             const zipfft__cval *loaded, const zipfft__cval *x) {
  zipfft__cval nyquist = zipfft__zero_value(c, g, "m", 0);
  int64_t n = zipfft__half_points(c->s);
  zipfft__s_load_complex(c->a, g, nyquist.re->u.var, nyquist.im->u.var, c->in,
                         zipfft__global_offset(c, base, i32(c, n), c->s->in_stride), access,
                         c->s->in_storage);
  for (int i = 0; i < count; i++) {
    if (pairs[i].slot != 0) {
      merge_pair(c, g, &pairs[i], loaded, x);
      continue;
    }
    zipfft__cval dc = {loaded[0].re, zipfft__e_real(c->a, 0)};
    zipfft__cval ny = {nyquist.re, zipfft__e_real(c->a, 0)};
    zipfft__cval z =
        zipfft__cval_materialize(c->a, g, zipfft__merge_value(c, g, dc, ny, pairs[i].w));
    zipfft__s_assign(c->a, g, x[0].re->u.var, z.re);
    zipfft__s_assign(c->a, g, x[0].im->u.var, z.im);
  }
}

void zipfft__emit_mirrored_merge_loads(zipfft__stockham_build *c, zipfft__block *g,
                                       const zipfft__thread_coords *k, const pass_shape *ps,
                                       const zipfft__expr **j, const zipfft__cval *x,
                                       const zipfft__expr *base, zipfft__access access) {
  zipfft__cval loaded[ZIPFFT__MAX_VALUES];
  for (int b = 0; b < ps->butterflies; b++) /* X[e] for every element e the thread holds */
    for (int q = 0; q < ps->radix; q++) {
      zipfft__cval *v = &loaded[b * ps->radix + q];
      *v = zipfft__zero_value(c, g, "m", 0);
      const zipfft__expr *e = bin(c, ZIPFFT__OP_ADD, j[b], i32(c, q * ps->m));
      zipfft__s_load_complex(c->a, g, v->re->u.var, v->im->u.var, c->in,
                             zipfft__global_offset(c, base, e, c->s->in_stride), access,
                             c->s->in_storage);
    }
  zipfft__cval w0 = zipfft__cval_materialize(c->a, g, zipfft__split_twiddle(c, g, k->t));
  for (int b = 0; b < ps->butterflies / 2; b++) {
    mirror_pair pairs[max_pairs];
    zipfft__block *front = g;
    if (b == 0) { /* thread 0: butterflies 0 and m/2, each its own mirror */
      zipfft__stmt *branch = zipfft__s_if(c->a, g, bin(c, ZIPFFT__OP_EQ, k->t, i32(c, 0)));
      zipfft__block *self = &branch->u.if_.then_block;
      merge_self_pairs(c, self, pairs, self_pairs(c, self, ps, pairs), base, access, loaded, x);
      front = &branch->u.if_.else_block;
    }
    int count = front_pairs(c, front, ps, j[b], b, w0, pairs);
    for (int i = 0; i < count; i++) merge_pair(c, front, &pairs[i], loaded, x);
  }
}
