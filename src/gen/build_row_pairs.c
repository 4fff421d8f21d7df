/* build_row_pairs.c - the gathers and scatters of full-length real routes that carry two
 * real rows in one complex workspace row (zipfft__kernel_spec row_pair_apart). */
#include "gen/build_context.h"

zipfft__row_pair zipfft__row_pair_of(zipfft__stockham_build *c, zipfft__block *blk,
                                     const zipfft__thread_coords *k, const zipfft__expr *in,
                                     const zipfft__expr *out) {
  const zipfft__kernel_spec *s = c->s;
  if (!s->row_pair_apart) return (zipfft__row_pair){NULL, NULL};
  int64_t inner =
      1; /* work items per row a along the pair's digit (the digits outside it count 1) */
  for (int d = s->row_pair_dim + 1; d < s->batch_dims; d++) inner *= s->batch_counts[d];
  int gather = zipfft__pointwise_is_gather(s), dim = s->row_pair_dim;
  int64_t shift =
      s->row_pair_apart * (gather ? s->batch_in_strides[dim] : s->batch_out_strides[dim]);
  const zipfft__expr *base =
      let(c, blk, "rb", bin(c, ZIPFFT__OP_ADD, gather ? in : out, i64(c, shift)));
  const zipfft__expr *present =
      let(c, blk, "rq", bin(c, ZIPFFT__OP_LT, k->g, i64(c, s->row_pairs_present * inner)));
  return (zipfft__row_pair){base, present};
}

/* Zeroes the imaginary part of x at element e when e is a self-conjugate bin of the
 * logical length (0, and n/2 for even n): a row pair's Z = X_a + i X_b must not carry them
 * into the other row's real outputs (a single row's C2R drops them with its imaginary
 * outputs). */
static void drop_self_conjugate(zipfft__stockham_build *c, zipfft__block *blk,
                                const zipfft__cval *x, const zipfft__expr *e) {
  int64_t n = zipfft__logical_length(c->s);
  const zipfft__expr *edge = bin(c, ZIPFFT__OP_EQ, e, i32(c, 0));
  if (n % 2 == 0) edge = bin(c, ZIPFFT__OP_OR, edge, bin(c, ZIPFFT__OP_EQ, e, i32(c, n / 2)));
  zipfft__s_assign(c->a, blk, x->im->u.var,
                   zipfft__e_select(c->a, edge, zipfft__e_real(c->a, 0), x->im));
}

/* Loads x = x_a + i x_b at element e (R2C: the two rows' reals; C2R: the two Hermitian
 * halves expanded, their self-conjugate terms' imaginary parts dropped); x_b is zero where
 * row b is absent. */
static void load_pair(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__cval *x,
                      const zipfft__expr *in, const zipfft__row_pair *rp, const zipfft__expr *e,
                      zipfft__access access) {
  zipfft__emit_load_element(c, blk, x, in, e, access);
  if (c->s->kind == ZIPFFT__KIND_R2C) { /* row b's real into x's imaginary part */
    zipfft__cval swapped = {x->im, x->re};
    zipfft__emit_load_element(c, open_if(c, blk, rp->present), &swapped, rp->base, e, access);
    return;
  }
  zipfft__cval b = zipfft__zero_value(c, blk, "y", 0);
  zipfft__emit_load_element(c, open_if(c, blk, rp->present), &b, rp->base, e, access);
  drop_self_conjugate(c, blk, x, e);
  drop_self_conjugate(c, blk, &b, e);
  zipfft__s_assign(c->a, blk, x->re->u.var, bin(c, ZIPFFT__OP_SUB, x->re, b.im));
  zipfft__s_assign(c->a, blk, x->im->u.var, bin(c, ZIPFFT__OP_ADD, x->im, b.re));
}

void zipfft__emit_pair_gather(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__cval *x,
                              const zipfft__expr *in, const zipfft__row_pair *rp,
                              const zipfft__expr *e, zipfft__access access) {
  if (c->s->pointwise != ZIPFFT__PW_CHIRP_GATHER) {
    load_pair(c, blk, x, in, rp, e, access);
    return;
  }
  zipfft__block *inside = open_if(c, blk, bin(c, ZIPFFT__OP_LT, e, i32(c, c->s->bluestein_n)));
  load_pair(c, inside, x, in, rp, e, access);
  zipfft__emit_chirp_multiply(c, inside, x, e);
}

/* Workspace value Z[e] as the scatter finishes it (Bluestein's chirp, the scale). */
static zipfft__cval finished_at(zipfft__stockham_build *c, zipfft__block *blk,
                                const zipfft__expr *in, const zipfft__expr *e,
                                zipfft__access access) {
  zipfft__cval z = zipfft__load_value(
      c, blk, c->in, zipfft__global_offset(c, in, e, c->s->in_stride), access, c->s->in_storage);
  return zipfft__cval_materialize(c->a, blk, zipfft__finish_output(c, blk, NULL, e, z));
}

/* (l op r) / 2. */
static const zipfft__expr *half_of(zipfft__stockham_build *c, zipfft__binop op,
                                   const zipfft__expr *l, const zipfft__expr *r) {
  return bin(c, ZIPFFT__OP_MUL, bin(c, op, l, r), zipfft__e_real(c->a, 0.5));
}

void zipfft__emit_pair_scatter(zipfft__stockham_build *c, zipfft__block *blk,
                               const zipfft__expr *in, const zipfft__expr *out,
                               const zipfft__row_pair *rp, const zipfft__expr *e,
                               zipfft__access access) {
  zipfft__cval z = finished_at(c, blk, in, e, access);
  if (c->s->kind == ZIPFFT__KIND_C2R) { /* x_a = Re z, x_b = Im z */
    zipfft__emit_store_element(c, blk, z, out, e, access);
    zipfft__emit_store_element(c, open_if(c, blk, rp->present), (zipfft__cval){z.im, z.re},
                               rp->base, e, access);
    return;
  }
  /* R2C: X_a[e] = (Z[e] + conj Z[n-e]) / 2, X_b[e] = (Z[e] - conj Z[n-e]) / 2i */
  int64_t n = zipfft__logical_length(c->s);
  const zipfft__expr *mirror =
      let(c, blk, "m",
          zipfft__e_select(c->a, bin(c, ZIPFFT__OP_EQ, e, i32(c, 0)), i32(c, 0),
                           bin(c, ZIPFFT__OP_SUB, i32(c, n), e)));
  zipfft__cval m = finished_at(c, blk, in, mirror, access);
  zipfft__cval a = {half_of(c, ZIPFFT__OP_ADD, z.re, m.re), half_of(c, ZIPFFT__OP_SUB, z.im, m.im)};
  zipfft__cval b = {half_of(c, ZIPFFT__OP_ADD, z.im, m.im), half_of(c, ZIPFFT__OP_SUB, m.re, z.re)};
  zipfft__emit_store_element(c, blk, zipfft__cval_materialize(c->a, blk, a), out, e, access);
  zipfft__block *second = open_if(c, blk, rp->present); /* after every value it uses */
  zipfft__emit_store_element(c, second, zipfft__cval_materialize(c->a, second, b), rp->base, e,
                             access);
}
