/* build_pair.c - the AST of a pair kernel: two four-step kernels run as one persistent
 * kernel whose blocks take pairs of work items from a counter, or as one cluster per
 * dependency group (see plan/pair.h). */
#include "gen/build_pair.h"

#include "gen/build_context.h"

/* The parameters each member reads and writes: input, output, twiddles, batch, alignment. */
static const int member_args[2][5] = {
    {ZIPFFT__PAIR_ARG_IN, ZIPFFT__PAIR_ARG_MID, ZIPFFT__PAIR_ARG_FIRST_TWIDDLES,
     ZIPFFT__PAIR_ARG_FIRST_BATCH, ZIPFFT__PAIR_ARG_FIRST_ALIGNED},
    {ZIPFFT__PAIR_ARG_MID, ZIPFFT__PAIR_ARG_OUT, ZIPFFT__PAIR_ARG_SECOND_TWIDDLES,
     ZIPFFT__PAIR_ARG_SECOND_BATCH, ZIPFFT__PAIR_ARG_SECOND_ALIGNED}};

/* The build state of member `which` (0 first, 1 second), its work item given. */
static zipfft__stockham_build member(zipfft__arena *a, const zipfft__pair_spec *p, int which,
                                     const zipfft__var *const *v, const zipfft__var *smem,
                                     const zipfft__expr *item) {
  const zipfft__kernel_spec *s = which ? &p->second : &p->first;
  const int *arg = member_args[which];
  zipfft__stockham_build c = {.a = a, .s = s, .shared_stride = zipfft__c2c_shared_stride(s)};
  c.in = v[arg[0]], c.out = v[arg[1]], c.tw = v[arg[2]], c.batch = v[arg[3]];
  c.aligned = v[arg[4]], c.batch_offset = v[ZIPFFT__PAIR_ARG_BATCH_OFFSET];
  c.smem = smem, c.block = item;
  return c;
}

/* if (thread 0 and cond) function(args): one thread's call. */
static void call_by_first_thread(zipfft__arena *a, zipfft__block *b, const zipfft__expr *cond,
                                 const char *function, int count, const zipfft__expr *const *args) {
  const zipfft__expr *first =
      zipfft__e_bin(a, ZIPFFT__OP_EQ, zipfft__e_thread(a), zipfft__e_i32(a, 0));
  if (cond) first = zipfft__e_bin(a, ZIPFFT__OP_AND, first, cond);
  zipfft__s_call(a, &zipfft__s_if(a, b, first)->u.if_.then_block, function, count, args);
}

/* i64_in(a, x): the 64-bit integer x, in arena a */
static const zipfft__expr *i64_in(zipfft__arena *a, int64_t x) {
  return zipfft__e_int(a, ZIPFFT__T_I64, x);
}

/* Dependency group of the item `item` of a member (counter index: 1 + group). */
static const zipfft__expr *counter_of(zipfft__arena *a, const zipfft__kernel_spec *s, int64_t group,
                                      const zipfft__expr *item) {
  const zipfft__expr *g =
      zipfft__e_bin(a, ZIPFFT__OP_DIV, item, i64_in(a, group / s->ffts_per_block));
  return zipfft__e_bin(a, ZIPFFT__OP_ADD, g, i64_in(a, 1));
}

/* item * ffts_per_block < batch: the item holds transforms. */
static const zipfft__expr *has_transforms(zipfft__arena *a, const zipfft__kernel_spec *s,
                                          const zipfft__expr *item, const zipfft__var *batch) {
  return zipfft__e_bin(a, ZIPFFT__OP_LT,
                       zipfft__e_bin(a, ZIPFFT__OP_MUL, item, i64_in(a, s->ffts_per_block)),
                       zipfft__e_var(a, batch));
}

/* The byte (I64) where run u of the second member's item starts: transform u's row at
 * its input offset (zipfft__batch_offset; packed rows side by side: 6 bytes an element), or
 * with input packed by groups segment u of the item's transforms, side by side from the
 * first transform's offset. */
static const zipfft__expr *run_byte(zipfft__stockham_build *c, zipfft__block *at,
                                    const zipfft__expr *item, const zipfft__expr *u) {
  const zipfft__kernel_spec *s = c->s;
  int rows = zipfft__packed_rows_contiguous(s), grouped = zipfft__packed_by_groups(s);
  zipfft__thread_coords k = {0};
  k.g = zipfft__e_bin(c->a, ZIPFFT__OP_MUL, item, i64_in(c->a, s->ffts_per_block));
  if (!grouped)
    k.g = zipfft__e_bin(c->a, ZIPFFT__OP_ADD, k.g, zipfft__e_cast(c->a, ZIPFFT__T_I64, u));
  k.g = zipfft__e_bin(c->a, ZIPFFT__OP_ADD, k.g, zipfft__e_var(c->a, c->batch_offset));
  const zipfft__expr *row = zipfft__batch_offset_with(c, at, &k, s->batch_in_strides, "db");
  if (grouped)
    return zipfft__e_bin(
        c->a, ZIPFFT__OP_MUL,
        zipfft__e_bin(c->a, ZIPFFT__OP_ADD, row,
                      zipfft__e_bin(c->a, ZIPFFT__OP_MUL, zipfft__e_cast(c->a, ZIPFFT__T_I64, u),
                                    i64_in(c->a, s->in_stride))),
        i64_in(c->a, ZIPFFT__PACKED_ELEMENT_BYTES));
  int64_t bytes = rows ? ZIPFFT__PACKED_ELEMENT_BYTES
                       : (int64_t)zipfft__complex_bytes(s->precision, ZIPFFT_STORAGE_DEFAULT);
  return zipfft__e_bin(c->a, ZIPFFT__OP_MUL, row, i64_in(c->a, bytes));
}

/* Each thread discards its share of the 128-byte lines the second member's item read:
 * line l of each of its runs (run_byte) at the run's start plus 128 l bytes. */
static void emit_discards(zipfft__arena *a, zipfft__block *b, const zipfft__pair_spec *p,
                          const zipfft__var *const *v, const zipfft__var *smem,
                          const zipfft__expr *item) {
  const zipfft__kernel_spec *s = &p->second;
  zipfft__stockham_build c = member(a, p, 1, v, smem, item);
  int64_t per_run = zipfft__pair_row_lines(p),
          runs = zipfft__packed_by_groups(s) ? s->n / ZIPFFT__PACKED_SEGMENT_VALUES
                                             : s->ffts_per_block,
          lines = runs * per_run, threads = zipfft__pair_block_threads(p);
  for (int64_t r = 0; r * threads < lines; r++) {
    const zipfft__expr *index =
        zipfft__e_bin(a, ZIPFFT__OP_ADD, zipfft__e_thread(a), zipfft__e_i32(a, r * threads));
    zipfft__block *at = b;
    if ((r + 1) * threads > lines)
      at = &zipfft__s_if(a, b, zipfft__e_bin(a, ZIPFFT__OP_LT, index, zipfft__e_i32(a, lines)))
                ->u.if_.then_block;
    const zipfft__expr *u = zipfft__e_bin(a, ZIPFFT__OP_DIV, index, zipfft__e_i32(a, per_run)),
                       *line = zipfft__e_bin(a, ZIPFFT__OP_MOD, index, zipfft__e_i32(a, per_run));
    const zipfft__expr *byte = zipfft__e_bin(
        a, ZIPFFT__OP_ADD, run_byte(&c, at, item, u),
        zipfft__e_bin(a, ZIPFFT__OP_MUL, zipfft__e_cast(a, ZIPFFT__T_I64, line), i64_in(a, 128)));
    const zipfft__expr *args[2] = {zipfft__e_var(a, v[ZIPFFT__PAIR_ARG_MID]), byte};
    zipfft__s_call(a, at, "zpair_discard", 2, args);
  }
}

/* The parameters, in ZIPFFT__PAIR_ARG order. */
static void declare_params(zipfft__arena *a, int streaming, const zipfft__var **v) {
  static const struct {
    const char *name;
    zipfft__type type;
  } params[ZIPFFT__PAIR_ARG_COUNT] = {{"in", ZIPFFT__T_BYTES_IN},
                                      {"mid", ZIPFFT__T_BYTES_OUT},
                                      {"out", ZIPFFT__T_BYTES_OUT},
                                      {"tw_first", ZIPFFT__T_BYTES_IN},
                                      {"tw_second", ZIPFFT__T_BYTES_IN},
                                      {"batch_first", ZIPFFT__T_I64},
                                      {"batch_second", ZIPFFT__T_I64},
                                      {"batch_offset", ZIPFFT__T_I64},
                                      {"aligned_first", ZIPFFT__T_I32},
                                      {"aligned_second", ZIPFFT__T_I32},
                                      {"sync", ZIPFFT__T_BYTES_OUT},
                                      {"rounds", ZIPFFT__T_I64},
                                      {"lag", ZIPFFT__T_I64}};
  for (int i = 0; i < ZIPFFT__PAIR_ARG_COUNT; i++)
    v[i] = zipfft__param_new(a, params[i].name, params[i].type);
  if (streaming) { /* the user's data, touched once */
    v[ZIPFFT__PAIR_ARG_IN] =
        zipfft__param_new_flagged(a, "in", ZIPFFT__T_BYTES_IN, ZIPFFT__PARAM_STREAMING);
    v[ZIPFFT__PAIR_ARG_OUT] =
        zipfft__param_new_flagged(a, "out", ZIPFFT__T_BYTES_OUT, ZIPFFT__PARAM_STREAMING);
  }
}

/* One round: take a pair number, run the first member's item, count it, wait for the
 * second's group, run its item, discard what it read. */
static void emit_round(zipfft__arena *a, zipfft__block *b, const zipfft__pair_spec *p,
                       const zipfft__var **v, const zipfft__var *smem) {
  const zipfft__expr *slot = zipfft__e_i32(a, zipfft__pair_slot(p));
  const zipfft__expr *take[3] = {zipfft__e_var(a, v[ZIPFFT__PAIR_ARG_SYNC]), zipfft__e_var(a, smem),
                                 slot};
  call_by_first_thread(a, b, NULL, "zpair_take", 3, take);
  zipfft__s_barrier(a, b);
  /* Each thread keeps the pair number: thread 0 overwrites the slot in the next round while
   * others may still be discarding this round's lines. */
  const zipfft__var *number = zipfft__var_new_live(a, "pair", ZIPFFT__T_I64);
  zipfft__s_decl(a, b, number, zipfft__e_cast(a, ZIPFFT__T_I64, zipfft__e_load(a, smem, slot)));
  const zipfft__expr *pair = zipfft__e_var(a, number),
                     *lag = zipfft__e_var(a, v[ZIPFFT__PAIR_ARG_LAG]);
  zipfft__stockham_build first = member(a, p, 0, v, smem, pair);
  zipfft__emit_transform(&first, b);
  zipfft__s_barrier(a, b);
  const zipfft__expr *done[2] = {take[0], counter_of(a, &p->first, p->first_group, pair)};
  call_by_first_thread(a, b, has_transforms(a, &p->first, pair, v[ZIPFFT__PAIR_ARG_FIRST_BATCH]),
                       "zpair_signal", 2, done);
  const zipfft__expr *item = zipfft__e_bin(a, ZIPFFT__OP_SUB, pair, lag),
                     *started = zipfft__e_bin(a, ZIPFFT__OP_LE, lag, pair);
  const zipfft__expr *due =
      zipfft__e_bin(a, ZIPFFT__OP_AND, started,
                    has_transforms(a, &p->second, item, v[ZIPFFT__PAIR_ARG_SECOND_BATCH]));
  const zipfft__expr *wait[3] = {take[0], counter_of(a, &p->second, p->second_group, item),
                                 i64_in(a, zipfft__pair_items_per_group(p))};
  call_by_first_thread(a, b, due, "zpair_wait", 3, wait);
  zipfft__s_barrier(a, b);
  /* Before its start the second member's item is one past its transforms: idle. */
  const zipfft__expr *second_item =
      zipfft__e_select(a, started, item, zipfft__e_var(a, v[ZIPFFT__PAIR_ARG_SECOND_BATCH]));
  zipfft__stockham_build second = member(a, p, 1, v, smem, second_item);
  zipfft__emit_transform(&second, b);
  zipfft__s_barrier(a, b);
  if (zipfft__pair_discards(p))
    emit_discards(a, &zipfft__s_if(a, b, due)->u.if_.then_block, p, v, smem, item);
}

/* Item rank * per_block + j of the cluster's group (the cluster index, E_BLOCK). */
static const zipfft__expr *cluster_item(zipfft__arena *a, const zipfft__pair_spec *p,
                                        const zipfft__var *j) {
  int64_t per_block = zipfft__pair_items_per_group(p) / p->cluster;
  const zipfft__expr *group = zipfft__e_bin(a, ZIPFFT__OP_MUL, zipfft__e_block(a),
                                            i64_in(a, zipfft__pair_items_per_group(p)));
  const zipfft__expr *rank = zipfft__e_cast(a, ZIPFFT__T_I64, zipfft__e_rank(a));
  const zipfft__expr *in_group =
      zipfft__e_bin(a, ZIPFFT__OP_ADD, zipfft__e_bin(a, ZIPFFT__OP_MUL, rank, i64_in(a, per_block)),
                    zipfft__e_cast(a, ZIPFFT__T_I64, zipfft__e_var(a, j)));
  return zipfft__e_bin(a, ZIPFFT__OP_ADD, group, in_group);
}

/* A loop over the block's items of member `which` in its cluster's group, a barrier after
 * each (and, for the second member, the discards of what it read). */
static void emit_cluster_items(zipfft__arena *a, zipfft__block *b, const zipfft__pair_spec *p,
                               int which, const zipfft__var **v, const zipfft__var *smem) {
  const zipfft__var *j = zipfft__var_new(a, which ? "js" : "jf", ZIPFFT__T_I32);
  int64_t per_block = zipfft__pair_items_per_group(p) / p->cluster;
  zipfft__block *loop = &zipfft__s_for(a, b, j, zipfft__e_i32(a, (int32_t)per_block))->u.for_.body;
  const zipfft__expr *item = cluster_item(a, p, j);
  zipfft__stockham_build c = member(a, p, which, v, smem, item);
  zipfft__emit_transform(&c, loop);
  zipfft__s_barrier(a, loop);
  if (which && zipfft__pair_discards(p)) {
    emit_discards(a, loop, p, v, smem, item);
    zipfft__s_barrier(a, loop);
  }
}

/* The cluster form (plan/pair.h): the group's first items, a cluster barrier (its release
 * and acquire order the blocks' global stores before the other blocks' loads), then its
 * second items. */
static void emit_cluster_body(zipfft__arena *a, zipfft__block *b, const zipfft__pair_spec *p,
                              const zipfft__var **v, const zipfft__var *smem) {
  emit_cluster_items(a, b, p, 0, v, smem);
  zipfft__s_cluster_barrier(a, b);
  emit_cluster_items(a, b, p, 1, v, smem);
}

const char *zipfft__build_pair(const zipfft__pair_spec *p, zipfft__arena *a,
                               zipfft__kernel_ast *k) {
  const char *problem = zipfft__pair_check(p);
  if (!problem) problem = zipfft__check_spec(&p->first);
  if (!problem) problem = zipfft__check_spec(&p->second);
  if (problem) return problem;
  if (p->first.shared_twiddles || p->second.shared_twiddles)
    return "a pair kernel's members do not stage twiddles";
  const zipfft__var *v[ZIPFFT__PAIR_ARG_COUNT];
  declare_params(a, p->streaming, v);
  const zipfft__var *smem = zipfft__param_new(a, "smem", ZIPFFT__T_SHARED);
  char name[2 * ZIPFFT__KERNEL_NAME_MAX];
  zipfft__pair_kernel_name(p, name, sizeof name);
  *k = (zipfft__kernel_ast){.name = zipfft__arena_printf(a, "%s", name),
                            .precision = p->first.precision,
                            .shared = smem,
                            .block_threads = zipfft__pair_block_threads(p),
                            .shared_bytes = zipfft__pair_shared_bytes(p),
                            .param_count = ZIPFFT__PAIR_ARG_COUNT,
                            .min_blocks = p->min_blocks,
                            .uses_pair = 1,
                            .cluster_blocks = p->cluster > 1 ? p->cluster : 0};
  for (int i = 0; i < ZIPFFT__PAIR_ARG_COUNT; i++) k->params[i] = v[i];
  if (p->cluster > 1) {
    emit_cluster_body(a, &k->body, p, v, smem);
  } else {
    const zipfft__var *round = zipfft__var_new(a, "round", ZIPFFT__T_I64);
    zipfft__stmt *loop =
        zipfft__s_for(a, &k->body, round, zipfft__e_var(a, v[ZIPFFT__PAIR_ARG_ROUNDS]));
    emit_round(a, &loop->u.for_.body, p, v, smem);
  }
  if (zipfft__arena_error(a)) return zipfft__arena_error(a);
  return zipfft__kernel_validate(k);
}
