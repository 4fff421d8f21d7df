/* build_pointwise.c - the body of a pointwise kernel: the gathers, filter multiply and
 * scatters that move an axis too long for one kernel through the plan's workspace, and a
 * correlation plan's signal sum. */
#include "gen/build_context.h"
#include "plan/twiddle.h"

/* Stores a complex value as element e of the row at base in the (complex) output. */
static void store_complex(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__expr *base,
                          const zipfft__expr *e, zipfft__cval y, zipfft__access access) {
  zipfft__s_store_complex(c->a, blk, c->out, zipfft__global_offset(c, base, e, c->s->out_stride),
                          y.re, y.im, access, c->s->out_storage);
}

/* Loads element e of the row at base from the (complex) input. */
static zipfft__cval load_complex(zipfft__stockham_build *c, zipfft__block *blk,
                                 const zipfft__expr *base, const zipfft__expr *e,
                                 zipfft__access access) {
  return zipfft__load_value(c, blk, c->in, zipfft__global_offset(c, base, e, c->s->in_stride),
                            access, c->s->in_storage);
}

/* What the kernel does at position e of one row (of a row pair where rp->base is set). */
static void emit_position(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__expr *in,
                          const zipfft__expr *out, const zipfft__row_pair *rp,
                          const zipfft__expr *e, zipfft__access access) {
  const zipfft__kernel_spec *s = c->s;
  if (rp->base && !zipfft__pointwise_is_gather(s)) {
    zipfft__emit_pair_scatter(c, blk, in, out, rp, e, access);
  } else if (zipfft__pointwise_is_gather(s)) {
    zipfft__cval x = zipfft__zero_value(c, blk, "x", 0);
    if (rp->base)
      zipfft__emit_pair_gather(c, blk, &x, in, rp, e, access);
    else if (s->pointwise == ZIPFFT__PW_CHIRP_GATHER)
      zipfft__emit_chirp_load(c, blk, &x, in, e, access);
    else
      zipfft__emit_load_element(c, blk, &x, in, e, access);
    store_complex(c, blk, out, e, x, access);
  } else if (s->pointwise == ZIPFFT__PW_FILTER) {
    zipfft__cval f = zipfft__table_value(c, blk, zipfft__table_layout_of(s).filter, e);
    zipfft__cval z = zipfft__cval_materialize(
        c->a, blk, zipfft__cval_mul(c->a, load_complex(c, blk, in, e, access), f));
    store_complex(c, blk, out, e, (zipfft__cval){z.re, zipfft__e_neg(c->a, z.im)}, access);
  } else {
    zipfft__cval y = load_complex(c, blk, in, e, access);
    zipfft__emit_store_element(c, blk, zipfft__finish_output(c, blk, NULL, e, y), out, e, access);
  }
}

/* MERGE at pair e: the half spectrum's X[e], X[n-e] in, Z[e], Z[n-e] to the workspace. */
static void emit_merge_at(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__expr *in,
                          const zipfft__expr *out, const zipfft__expr *e) {
  zipfft__cval p = zipfft__zero_value(c, blk, "x", 0), q = zipfft__zero_value(c, blk, "x", 0);
  zipfft__load_merge_pair(c, blk, in, e, p, q, 1);
  const zipfft__expr *other = bin(c, ZIPFFT__OP_SUB, i32(c, c->s->n), e);
  zipfft__merge_target to = {c->out, zipfft__global_offset(c, out, e, c->s->out_stride),
                             zipfft__global_offset(c, out, other, c->s->out_stride)};
  zipfft__emit_merge_pair(c, blk, &to, e, p, q, NULL);
}

/* SPLIT at pair e: Z[e], Z[n-e] from the workspace, X[e], X[n-e] to the output. */
static void emit_split_at(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__expr *in,
                          const zipfft__expr *out, const zipfft__expr *e) {
  zipfft__cval a = load_complex(c, blk, in, e, ZIPFFT__ACCESS_VECTOR);
  zipfft__cval z = load_complex(c, blk, in, zipfft__split_partner(c, e), ZIPFFT__ACCESS_VECTOR);
  zipfft__emit_split_pair(c, blk, out, e, a, z, NULL);
}

/* SIGNAL_SUM at position e: the run's signals' reals e summed (loop_in_stride apart), and
 * the sum added to double e of the output. */
static void emit_signal_sum_at(zipfft__stockham_build *c, zipfft__block *blk, const zipfft__expr *e,
                               zipfft__access access) {
  const zipfft__var *sum = zipfft__var_new(c->a, "sum", ZIPFFT__T_REAL);
  const zipfft__var *signal = zipfft__var_new(c->a, "sig", ZIPFFT__T_I64);
  zipfft__s_decl(c->a, blk, sum, zipfft__e_real(c->a, 0));
  zipfft__block *loop = &zipfft__s_for(c->a, blk, signal, var(c, c->loop_count))->u.for_.body;
  const zipfft__expr *at =
      bin(c, ZIPFFT__OP_ADD, zipfft__e_cast(c->a, ZIPFFT__T_I64, e),
          bin(c, ZIPFFT__OP_MUL, var(c, signal), i64(c, c->s->loop_in_stride)));
  const zipfft__var *x = zipfft__var_new(c->a, "x", ZIPFFT__T_REAL);
  zipfft__s_decl(c->a, loop, x, NULL);
  zipfft__s_load_real(c->a, loop, x, c->in, at, access, c->s->in_storage);
  zipfft__s_assign(c->a, loop, sum, bin(c, ZIPFFT__OP_ADD, var(c, sum), var(c, x)));
  const zipfft__expr *args[] = {var(c, c->out), zipfft__e_cast(c->a, ZIPFFT__T_I64, e),
                                var(c, sum)};
  zipfft__s_call(c->a, blk, "zsum_add", 3, args);
}

void zipfft__emit_pointwise(zipfft__stockham_build *c, zipfft__block *body) {
  const zipfft__kernel_spec *s = c->s;
  zipfft__s_comment(c->a, body, "pointwise: one chunk of one row per block");
  zipfft__thread_coords k = zipfft__emit_coords(c, body);
  int64_t chunks = s->batch_counts[s->batch_dims - 1];
  const zipfft__expr *chunk =
      zipfft__e_cast(c->a, ZIPFFT__T_I32, bin(c, ZIPFFT__OP_MOD, k.g, i64(c, chunks)));
  const zipfft__expr *first =
      let(c, body, "p",
          bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, chunk, i32(c, zipfft__pointwise_chunk(s))),
              k.t));
  const zipfft__expr *in = zipfft__batch_offset(c, body, &k, 0);
  const zipfft__expr *out = zipfft__batch_offset(c, body, &k, 1);
  zipfft__row_pair rp = zipfft__row_pair_of(c, body, &k, in, out);
  int pairs = s->pointwise == ZIPFFT__PW_MERGE || s->pointwise == ZIPFFT__PW_SPLIT;
  zipfft__block *targets[2] = {open_if(c, body, k.active), NULL};
  if (!pairs) open_alignment_branches(c, targets[0], targets);
  for (int v = 0; v < (pairs ? 1 : 2); v++)
    for (int i = 0; i < zipfft__pointwise_chunk(s) / ZIPFFT__POINTWISE_THREADS; i++) {
      const zipfft__expr *e =
          let(c, targets[v], "e",
              bin(c, ZIPFFT__OP_ADD, first, i32(c, (int64_t)i * ZIPFFT__POINTWISE_THREADS)));
      zipfft__block *inside =
          open_if(c, targets[v], bin(c, ZIPFFT__OP_LT, e, i32(c, s->pointwise_range)));
      if (s->pointwise == ZIPFFT__PW_MERGE)
        emit_merge_at(c, inside, in, out, e); /* branches on the alignment itself */
      else if (s->pointwise == ZIPFFT__PW_SPLIT)
        emit_split_at(c, inside, in, out, e);
      else if (s->pointwise == ZIPFFT__PW_SIGNAL_SUM)
        emit_signal_sum_at(c, inside, e, access_of_branch[v]);
      else
        emit_position(c, inside, in, out, &rp, e, access_of_branch[v]);
    }
}
