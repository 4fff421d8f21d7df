/* build_staged_io.c - a short kernel's inputs and outputs through shared memory, copied by
 * element over the whole block (kernel_spec stage_io), so that its global accesses are
 * whole runs however few threads share a transform. */
#include "gen/build_context.h"

/* Whether side `out`'s staged rows are the packed real rows (stage_packed_reals). */
static int packed_side(const zipfft__kernel_spec *s, int out) {
  return s->stage_packed_reals && zipfft__stage_io_real_side(s, out);
}

const zipfft__expr *zipfft__stage_io_base(zipfft__stockham_build *c, zipfft__block *b,
                                          const zipfft__thread_coords *k, int out) {
  if (packed_side(c->s, out)) {
    const zipfft__expr *row = bin(c, ZIPFFT__OP_MUL, k->f, i32(c, zipfft__stage_real_pitch(c->s)));
    return let(c, b, "sr", bin(c, ZIPFFT__OP_ADD, row, i32(c, 2 * zipfft__stage_slot(c->s))));
  }
  const zipfft__expr *row = bin(c, ZIPFFT__OP_MUL, k->f, i32(c, zipfft__stage_io_pitch(c->s)));
  return let(c, b, "sb", bin(c, ZIPFFT__OP_ADD, row, i32(c, zipfft__stage_complex_slot(c->s))));
}

const zipfft__expr *zipfft__stage_real_at(zipfft__stockham_build *c, const zipfft__expr *base,
                                          const zipfft__expr *e) {
  if (!c->s->stage_packed_reals) base = bin(c, ZIPFFT__OP_MUL, base, i32(c, 2));
  return bin(c, ZIPFFT__OP_ADD, base, e);
}

/* What one copy moves: on the real side (R2C's and R2C_HALF's input, C2R's and C2R_HALF's
 * output), a pair of reals as one complex access where zipfft__real_pairs_as_vectors allows
 * it (half-length kinds) and the branch's accesses are vectors, else one real (a warp's 32
 * accesses then 128 contiguous bytes); complex elements elsewhere. */
typedef struct stage_copy {
  int out;       /* 0: global input -> stage; 1: stage -> global output */
  int reals;     /* elements are reals (2 per complex slot) */
  int pairs;     /* elements are pairs of reals of the real side, a complex slot each */
  int64_t row;   /* elements per transform */
  int64_t start; /* the stage index of the block's first row, in elements */
  int64_t pitch; /* elements from one staged row to the next */
} stage_copy;

static stage_copy stage_copy_of(const zipfft__kernel_spec *s, int out, zipfft__access access) {
  /* zipfft__real_pairs_as_vectors holds only on the real side */
  int pairs = access == ZIPFFT__ACCESS_VECTOR && zipfft__real_pairs_as_vectors(s, out);
  stage_copy p = {
      .out = out, .reals = zipfft__stage_io_real_side(s, out) && !pairs, .pairs = pairs};
  int64_t reals = zipfft__kind_is_half(s->kind) ? 2 * s->n : s->n;
  p.row = p.reals ? reals : zipfft__stage_io_row(s, out);
  p.start = p.reals ? 2 * zipfft__stage_slot(s) : zipfft__stage_complex_slot(s);
  p.pitch = p.reals ? zipfft__stage_real_pitch(s) : zipfft__stage_io_pitch(s);
  return p;
}

/* Copies one element between global memory (index g_at, in the copy's units) and the stage
 * (s_at: a complex slot, or a real index for real copies), the global access of the
 * alignment branch's kind. */
static void copy_element(zipfft__stockham_build *c, zipfft__block *g, const stage_copy *p,
                         const zipfft__expr *g_at, const zipfft__expr *s_at,
                         zipfft__access access) {
  const zipfft__var *global = p->out ? c->out : c->in;
  zipfft_storage storage = p->out ? c->s->out_storage : c->s->in_storage;
  if (p->reals) {
    const zipfft__var *v = zipfft__var_new(c->a, "sv", ZIPFFT__T_REAL);
    zipfft__s_decl(c->a, g, v, zipfft__e_real(c->a, 0));
    if (p->out) {
      zipfft__s_load_real(c->a, g, v, c->smem, s_at, ZIPFFT__ACCESS_VECTOR, ZIPFFT_STORAGE_DEFAULT);
      zipfft__s_store_real(c->a, g, global, g_at, var(c, v), access, storage);
    } else {
      zipfft__s_load_real(c->a, g, v, global, g_at, access, storage);
      zipfft__s_store_real(c->a, g, c->smem, s_at, var(c, v), ZIPFFT__ACCESS_VECTOR,
                           ZIPFFT_STORAGE_DEFAULT);
    }
    return;
  }
  zipfft__cval v = zipfft__zero_value(c, g, "sv", 0);
  const zipfft__var *re = v.re->u.var, *im = v.im->u.var;
  if (p->out) {
    zipfft__s_load_complex(c->a, g, re, im, c->smem, s_at, ZIPFFT__ACCESS_VECTOR,
                           ZIPFFT_STORAGE_DEFAULT);
    zipfft__s_store_complex(c->a, g, global, g_at, v.re, v.im, access, storage);
  } else {
    zipfft__s_load_complex(c->a, g, re, im, global, g_at, access, storage);
    zipfft__s_store_complex(c->a, g, c->smem, s_at, v.re, v.im, ZIPFFT__ACCESS_VECTOR,
                            ZIPFFT_STORAGE_DEFAULT);
  }
}

/* The stage's index of element k of the row that starts at `base` (zipfft__stage_io_base),
 * in the copy's units. */
static const zipfft__expr *stage_index(zipfft__stockham_build *c, const stage_copy *p,
                                       const zipfft__expr *base, const zipfft__expr *k) {
  return p->reals ? zipfft__stage_real_at(c, base, k) : bin(c, ZIPFFT__OP_ADD, base, k);
}

/* Whether the block's rows lie back to back in global memory: the one batch digit's
 * distance is a row of the copy's units (pairs of reals: two reals each), and no tiles,
 * paired rows or statistics loop map a transform elsewhere (zipfft__can_stage_io excludes
 * them today; should it not, those rows take the per-element form). */
static int rows_back_to_back(const zipfft__kernel_spec *s, const stage_copy *p) {
  int64_t distance = p->out ? s->batch_out_strides[0] : s->batch_in_strides[0];
  if (p->pairs) distance = distance % 2 == 0 ? distance / 2 : 0;
  int mapped = s->in_tile > 1 || s->out_tile > 1 || s->paired_rows > 0 || s->statistics;
  return s->batch_dims == 1 && !mapped && distance == p->row;
}

/* Element e = tid + i B of the block's F rows (B threads) is element e mod row of transform
 * e / row. Rows elsewhere in memory: each element's transform, its activity and its row's
 * offset. */
static void emit_scattered_copies(zipfft__stockham_build *c, zipfft__block *target,
                                  const stage_copy *p, zipfft__access access) {
  int64_t threads = zipfft__c2c_block_threads(c->s);
  int64_t total = (int64_t)c->s->ffts_per_block * p->row;
  for (int64_t i = 0; i * threads < total; i++) {
    const zipfft__expr *e =
        let(c, target, "e", bin(c, ZIPFFT__OP_ADD, zipfft__e_thread(c->a), i32(c, i * threads)));
    zipfft__block *in = open_if(c, target, bin(c, ZIPFFT__OP_LT, e, i32(c, total)));
    const zipfft__expr *f = let(c, in, "f", bin(c, ZIPFFT__OP_DIV, e, i32(c, p->row)));
    const zipfft__expr *at =
        let(c, in, "k", bin(c, ZIPFFT__OP_SUB, e, bin(c, ZIPFFT__OP_MUL, f, i32(c, p->row))));
    zipfft__thread_coords k = zipfft__emit_coords_of(c, in, i32(c, 0), f);
    zipfft__block *g = open_if(c, in, k.active);
    const zipfft__expr *base = zipfft__batch_offset(c, g, &k, p->out);
    const zipfft__expr *g_at =
        p->pairs ? zipfft__real_pair_index(c, base, at) : zipfft__global_offset(c, base, at, 1);
    copy_element(c, g, p, g_at, stage_index(c, p, zipfft__stage_io_base(c, g, &k, p->out), at),
                 access);
  }
}

zipfft__block_rows zipfft__emit_block_rows(zipfft__stockham_build *c, zipfft__block *target,
                                           int64_t row) {
  int64_t f_count = c->s->ffts_per_block, total = f_count * row;
  int64_t threads = zipfft__c2c_block_threads(c->s);
  const zipfft__expr *first = zipfft__emit_transform_index(c, target, i32(c, 0));
  const zipfft__expr *left = bin(c, ZIPFFT__OP_SUB, var(c, c->batch), first);
  zipfft__block_rows rows = {.threads = threads, .rounds = (total + threads - 1) / threads};
  rows.bound = let_bounded(
      c, target, "lim",
      zipfft__e_cast(c->a, ZIPFFT__T_I32,
                     zipfft__e_select(c->a, bin(c, ZIPFFT__OP_LT, left, i64(c, f_count)),
                                      bin(c, ZIPFFT__OP_MUL, left, i64(c, row)), i64(c, total))),
      total + 1);
  rows.start = let(c, target, "gb",
                   bin(c, ZIPFFT__OP_ADD, bin(c, ZIPFFT__OP_MUL, first, i64(c, row)),
                       zipfft__e_cast(c->a, ZIPFFT__T_I64, zipfft__e_thread(c->a))));
  return rows;
}

zipfft__block *zipfft__open_block_element(zipfft__stockham_build *c, zipfft__block *target,
                                          const zipfft__block_rows *rows, int64_t i,
                                          const zipfft__expr **e, const zipfft__expr **at) {
  *e = let(c, target, "e",
           bin(c, ZIPFFT__OP_ADD, zipfft__e_thread(c->a), i32(c, i * rows->threads)));
  *at = bin(c, ZIPFFT__OP_ADD, rows->start, i64(c, i * rows->threads));
  return open_if(c, target, bin(c, ZIPFFT__OP_LT, *e, rows->bound));
}

/* Rows back to back: element e of the block lies at the block's first element plus e, and
 * the active transforms' elements are those below one bound, so an element costs one
 * comparison, its global index a constant offset, and its slot a division by the row
 * (none where the pitch is the row). */
static void emit_contiguous_copies(zipfft__stockham_build *c, zipfft__block *target,
                                   const stage_copy *p, zipfft__access access) {
  int64_t gap = p->pitch - p->row;
  zipfft__block_rows rows = zipfft__emit_block_rows(c, target, p->row);
  for (int64_t i = 0; i < rows.rounds; i++) {
    const zipfft__expr *e, *g_at;
    zipfft__block *in = zipfft__open_block_element(c, target, &rows, i, &e, &g_at);
    const zipfft__expr *s_at = bin(c, ZIPFFT__OP_ADD, i32(c, p->start), e);
    if (gap != 0) {
      const zipfft__expr *f = bin(c, ZIPFFT__OP_DIV, e, i32(c, p->row));
      s_at = bin(c, ZIPFFT__OP_ADD, s_at, bin(c, ZIPFFT__OP_MUL, f, i32(c, gap)));
    }
    copy_element(c, in, p, g_at, s_at, access);
  }
}

/* The block's F rows into the stage (out = 0) or out of it, in each alignment branch as
 * that branch's copy moves them (stage_copy_of). */
static void emit_copies(zipfft__stockham_build *c, zipfft__block *body, int out) {
  zipfft__block *targets[2];
  open_alignment_branches(c, body, targets);
  for (int v = 0; v < 2; v++) {
    stage_copy copy = stage_copy_of(c->s, out, access_of_branch[v]);
    if (rows_back_to_back(c->s, &copy))
      emit_contiguous_copies(c, targets[v], &copy, access_of_branch[v]);
    else
      emit_scattered_copies(c, targets[v], &copy, access_of_branch[v]);
  }
}

void zipfft__emit_stage_in(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_comment(c->a, body, "the block's input rows into shared memory, by element");
  emit_copies(c, body, 0);
  zipfft__s_barrier(c->a, body);
}

void zipfft__emit_stage_out(zipfft__stockham_build *c, zipfft__block *body) {
  zipfft__s_barrier(c->a, body);
  zipfft__s_comment(c->a, body, "the block's output rows from shared memory, by element");
  emit_copies(c, body, 1);
}
