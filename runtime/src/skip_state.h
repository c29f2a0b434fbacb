/* skip_state.h: the temporal tile-skip state behind attngen_skip_state (skip_state.c;
 * docs/NUMERICS.md "Tile skipping") and what attngen_fwd (api.c) does with it around a call:
 * check it against the call and the variant, fill the kernel arguments or the reference's,
 * swap the lists. */
#ifndef ATTNGEN_SKIP_STATE_H
#define ATTNGEN_SKIP_STATE_H

#include <stdint.h>

#include "attngen.h"
#include "kargs.h"
#include "numerics.h"
#include "variant.h"

struct attngen_skip_state {
  attngen_context *ctx;
  int batch, heads, seqlen_q, seqlen_kv;
  int block_m, block_n;
  attngen__skip_grid grid;
  size_t words;              /* batch * heads * nqt * nw */
  uint32_t *lists[2];        /* device memory (host on cpu / emu): read one, write the other */
  uint32_t *must_skip;       /* MS, or NULL */
  uint32_t *must_do;         /* MD, or NULL */
  uint32_t *count;           /* [2]: skipped, visited of the last call */
  int cur;                   /* lists[cur] is what the next call reads */
  int fresh;                 /* nothing to read: the next call reads no list */
  float threshold;
  char variant[128];
  long long calls;
  void *stream;              /* the last call's stream */
  int launched;              /* a call was queued (stream is meaningful) */
};

/* The sm90 skip kernels hold a job's verdict words in shared memory: at most this many
 * (templates/sm90/attn_fwd_wgmma.cu.in, kSkipWords; target_sm90_wgmma.lua SKIP_WORDS). */
#define ATTNGEN__SKIP_SM90_MAX_WORDS 64
/* The gfx942 skip kernels hold word w of a q-tile's list in lane w of each wave: at most 64
 * (templates/gfx942/attn_fwd.hip.in). */
#define ATTNGEN__SKIP_GFX942_MAX_WORDS 64

/* What the kernel that runs a skip call can hold: the sm90 kernels at most
 * ATTNGEN__SKIP_SM90_MAX_WORDS words per q-tile (2048 KV tiles), the gfx942 kernels
 * ATTNGEN__SKIP_GFX942_MAX_WORDS, every kernel list indices
 * below 2^32 words. INVALID_ARGUMENT naming args.skip and the limit otherwise. */
attngen_status attngen__skip_check_kernel(const attngen_skip_state *s,
                                          const attngen__variant_desc *d);

/* attngen_skip_state_create (api.c) once the grid is known: allocates the lists and the
 * counter in the context's memory; checks the threshold and the grid (INVALID_ARGUMENT). */
attngen_status attngen__skip_state_new(attngen_context *c, const attngen_fwd_args *a,
                                      int block_m, int block_n, float threshold_log2,
                                      const char *variant, attngen_skip_state **out);

/* The call-independent checks of args.skip (attngen__check_args calls it when a->skip is
 * set): the state's context and shape, no packed batch. A status naming args.skip. */
attngen_status attngen__skip_check_call(const attngen_context *c, const attngen_fwd_args *a);

/* The variant's tile grid must be the state's (INVALID_ARGUMENT naming args.skip). */
attngen_status attngen__skip_check_grid(const attngen_skip_state *s, const char *variant,
                                        int block_m, int kv_tile);

/* The lists, threshold and grid of the next call into k (kargs.h skip_*). */
void attngen__skip_fill_kargs(const attngen_skip_state *s, attngen_kargs *k);

/* The same for a reference run (attngen__ref_args.skip_*; the cpu backend's call). */
void attngen__skip_fill_ref(const attngen_skip_state *s, attngen__ref_args *r);

/* After the call was queued on stream: the written list is the next one read. */
void attngen__skip_after_call(attngen_skip_state *s, void *stream);

#endif /* ATTNGEN_SKIP_STATE_H */
