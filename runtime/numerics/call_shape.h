/* call_shape.h: the shape of one attention call, the one struct that argument checking,
 * dispatch (attngen__shape), the tuning database lookup and the plan cache share. */
#ifndef ATTNGEN_CALL_SHAPE_H
#define ATTNGEN_CALL_SHAPE_H

#include "attngen.h"

typedef struct attngen__call_shape {
  int batch, heads, seqlen_q, seqlen_kv;
  int layout, rounding; /* attngen_layout, attngen_rounding */
  /* KV heads of a grouped-query call (attngen_fwd_args.heads_kv), 0 for a dense call: the
   * canonical form (attngen__call_shape_of maps heads_kv == heads to 0), so that a dense call
   * has one key whichever way it was written and shape literals that leave it out are dense.
   * attngen__shape_heads_kv gives the count itself. */
  int heads_kv;
  /* Elements per row of q, k, v and out (attngen_fwd_args.head_dim), 0 for 128: canonical
   * like heads_kv (attngen__call_shape_of maps 128 to 0), so that shape literals that leave
   * it out are head_dim 128. attngen__shape_head_dim gives the value itself. */
  int head_dim;
} attngen__call_shape;

static inline attngen__call_shape attngen__call_shape_of(const attngen_fwd_args *a) {
  attngen__call_shape s = {a->batch, a->heads, a->seqlen_q, a->seqlen_kv, (int)a->layout,
                           (int)a->rounding, a->heads_kv == a->heads ? 0 : a->heads_kv,
                           a->head_dim == 128 ? 0 : a->head_dim};
  return s;
}

/* The values of the generator's head_dim axis (generator/lua/config.lua): what args.head_dim
 * and the CLI's --head-dim accept; which backend has kernels of which is the dispatcher's. */
#define ATTNGEN__HEAD_DIM_LIST "64, 128, 256"
static inline int attngen__head_dim_valid(int d) { return d == 64 || d == 128 || d == 256; }
/* Its index in that list (0, 1, 2), -1 for any other value: per-head-dim tables. */
static inline int attngen__head_dim_slot(int d) {
  return d == 64 ? 0 : d == 128 ? 1 : d == 256 ? 2 : -1;
}

/* The head dimension of a shape: head_dim, or 128 when it is 0. */
static inline int attngen__shape_head_dim(const attngen__call_shape *s) {
  return s->head_dim > 0 ? s->head_dim : 128;
}

/* The KV heads of a shape: heads_kv, or heads for a dense call. */
static inline int attngen__shape_heads_kv(const attngen__call_shape *s) {
  return s->heads_kv > 0 ? s->heads_kv : s->heads;
}

/* The inverse: sets the shape (heads_kv and head_dim included), layout and rounding of a call (nothing
 * else). */
static inline void attngen__call_shape_to_args(const attngen__call_shape *s,
                                               attngen_fwd_args *a) {
  a->batch = s->batch;
  a->heads = s->heads;
  a->seqlen_q = s->seqlen_q;
  a->seqlen_kv = s->seqlen_kv;
  a->layout = (attngen_layout)s->layout;
  a->rounding = (attngen_rounding)s->rounding;
  a->heads_kv = s->heads_kv;
  a->head_dim = attngen__shape_head_dim(s);
}

#endif /* ATTNGEN_CALL_SHAPE_H */
