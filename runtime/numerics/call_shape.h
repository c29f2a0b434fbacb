/* call_shape.h: the shape of one attention call, the one struct that argument checking,
 * dispatch (attngen__shape), the tuning database lookup and the plan cache share. */
#ifndef ATTNGEN_CALL_SHAPE_H
#define ATTNGEN_CALL_SHAPE_H

#include "attngen.h"

typedef struct attngen__call_shape {
  int batch, heads, seqlen_q, seqlen_kv;
  int layout, rounding; /* attngen_layout, attngen_rounding */
} attngen__call_shape;

static inline attngen__call_shape attngen__call_shape_of(const attngen_fwd_args *a) {
  attngen__call_shape s = {a->batch, a->heads, a->seqlen_q, a->seqlen_kv, (int)a->layout,
                           (int)a->rounding};
  return s;
}

/* The inverse: sets the shape, layout and rounding of a call (nothing else). */
static inline void attngen__call_shape_to_args(const attngen__call_shape *s,
                                               attngen_fwd_args *a) {
  a->batch = s->batch;
  a->heads = s->heads;
  a->seqlen_q = s->seqlen_q;
  a->seqlen_kv = s->seqlen_kv;
  a->layout = (attngen_layout)s->layout;
  a->rounding = (attngen_rounding)s->rounding;
}

#endif /* ATTNGEN_CALL_SHAPE_H */
