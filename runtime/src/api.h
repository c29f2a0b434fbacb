/* api.h: what api.c offers the layers above beyond attngen.h (through attngen_internal.h):
 * a reference run that follows the kernel a call would launch (check/verify.c, the tests). */
#ifndef ATTNGEN_API_H
#define ATTNGEN_API_H

#include <stddef.h>

#include "attngen.h"
#include "kargs.h"
#include "numerics.h"

/* Makes a reference run follow the kernel that attngen_fwd would launch for `a` on `ctx`:
 * sets r->kv_step to the variant's softmax_step and, when the call's tail KV split plan
 * splits some q-jobs, r->kv_per_split and r->split_rows (*rows, malloc'd [B,H,Sq] flags the
 * caller frees; NULL when nothing is split). Other fields of r are left alone. The cpu
 * backend gives the reference defaults. `variant` (may be NULL) gets the variant name.
 * With a->skip: r->skip_block_m / skip_block_n get the tile grid (the variant's block_m and
 * kv_tile; the state's on cpu); the lists and threshold are the caller's to set. */
attngen_status attngen__ref_follow_call(attngen_context *ctx, const attngen_fwd_args *a,
                                        attngen__ref_args *r, unsigned char **rows,
                                        char *variant, size_t variant_size);

/* The element strides of a call's q, k, v and out into the kernel arguments (kargs.h):
 * attngen__call_strides of each (the call's own, or the layout's dense ones). */
void attngen__kargs_set_strides(attngen_kargs *k, const attngen_fwd_args *a);

#endif /* ATTNGEN_API_H */
