/* api.c: the public API: contexts, attngen_fwd / attngen_explain, memory, events, timing.
 * A call validates its arguments, asks the dispatcher for a variant, loads it once per
 * context (embedded code object, emulator kernel or JIT), and launches it on the caller's
 * stream without synchronizing. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "attngen.h"
#include "backend.h"
#include "context.h"
#include "dispatch.h"
#include "env.h"
#include "fastdiv.h"
#include "gen.h"
#include "jit.h"
#include "status.h"
#include "numerics.h"
#include "skip_state.h"
#include "split_plan.h"
#include "tuning.h"
#include "variant.h"

/* One variant loaded into a context. */
typedef struct kernel {
  char *name;
  attngen__variant_desc desc; /* desc.name == name */
  void *module;               /* GPU module, NULL on emu */
  void *fn, *merge_fn;        /* merge_fn only for kv_split=tail */
  void *var_fn;               /* NAME_var: key lengths or packed batches (desc.var_entry) */
  struct kernel *next;
} kernel;

/* A variant described by name (outside the built-in set) for a context's plans: the
 * descriptor and, from the same generator state, the source the JIT compiles (NULL when
 * its generation failed: the JIT then generates it again and reports why). A generator
 * state costs about 1.5 ms (measured as the whole per-call time of small shapes in
 * `attngen tune` on an H200), so each name is described once per context; the entries live
 * until attngen_destroy, so the plans (and the plan memo) may point at their sources. */
struct described {
  char *name;
  attngen__variant_desc desc; /* desc.name == name */
  char *source;
  struct described *next;
};

/* Split-partials workspace of one stream; grown by replacement, old buffers retired (freed
 * at destroy) so a growing call never waits for earlier calls that may still use them. */
typedef struct workspace {
  void *stream;
  void *ptr;
  size_t bytes;
  struct workspace *next;
} workspace;


/* The kernel target a backend runs; the cpu backend (target -1) runs the reference. */
static const char *target_name(int t) {
  return t >= 0 && t < ATTNGEN__TARGET_COUNT ? attngen__target_names[t] : "reference";
}

void attngen_fwd_args_init(attngen_fwd_args *a) {
  if (!a) return;
  memset(a, 0, sizeof *a);
  a->head_dim = 128;
  a->layout = ATTNGEN_LAYOUT_BSHD;
  a->rounding = ATTNGEN_ROUND_RTNE;
  a->softmax_scale = 0.08838834764831845f; /* 1/sqrt(128) */
}

void attngen__kargs_set_strides(attngen_kargs *k, const attngen_fwd_args *a) {
  int64_t s[3];
  attngen__call_strides(a, ATTNGEN__T_Q, s); /* the host keeps ss, sh < 2^30 (check_args) */
  k->q_sb = s[0], k->q_ss = (int)s[1], k->q_sh = (int)s[2];
  attngen__call_strides(a, ATTNGEN__T_K, s);
  k->k_sb = s[0], k->k_ss = (int)s[1], k->k_sh = (int)s[2];
  attngen__call_strides(a, ATTNGEN__T_V, s);
  k->v_sb = s[0], k->v_ss = (int)s[1], k->v_sh = (int)s[2];
  attngen__call_strides(a, ATTNGEN__T_OUT, s);
  k->o_sb = s[0], k->o_ss = (int)s[1], k->o_sh = (int)s[2];
}

/* ---- contexts --------------------------------------------------------------------------- */

static attngen_status open_backend(attngen_context *c, const attngen__backend_ops *be, int device) {
  attngen_status st = be->open(device, &c->bs, &c->props);
  if (st != ATTNGEN_STATUS_OK) return st;
  c->be = be;
  c->props.target = target_name(be->target);
  c->runs_target = 1;
  if (be->target >= 0 && be->target < ATTNGEN__TARGET_COUNT) {
    /* The device runs the kernels when its architecture and the one they are compiled for
     * agree up to the shorter: "sm_90" runs sm_90a code, "gfx942:sramecc+:xnack-" gfx942. */
    const char *want = attngen__target_arch[be->target], *have = c->props.arch;
    const size_t n = strlen(want) < strlen(have) ? strlen(want) : strlen(have);
    if (n == 0 || strncmp(want, have, n) != 0 || (have[n] && have[n] != ':')) {
      c->runs_target = 0;
      snprintf(c->target_problem, sizeof c->target_problem,
               "the %s kernels (%s) need a device of that architecture and device %d is %s (%s)",
               target_name(be->target), want, device, c->props.arch, c->props.name);
    }
  }
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen_create(attngen_context **out, const attngen_context_options *opts) {
  attngen__clear_error();
  if (!out) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_create: ctx is NULL");
  *out = NULL;
  attngen_context *c = calloc(1, sizeof *c);
  if (!c) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "attngen_create: out of memory");
  attngen_status st = attngen__env_read(&c->env);
  if (st != ATTNGEN_STATUS_OK) {
    free(c);
    return st;
  }
  const char *name = opts && opts->backend && strcmp(opts->backend, "auto") != 0 ? opts->backend : NULL;
  const char *from = "options.backend";
  if (!name && c->env.backend[0]) {
    name = c->env.backend;
    from = "ATTNGEN_BACKEND";
  }
  int device = opts ? opts->device : 0;
  pthread_mutex_init(&c->mutex, NULL);
  if (name) {
    const attngen__backend_ops *be = attngen__backend_find(name);
    if (!be) {
      st = attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT, "%s = \"%s\" is unknown (allowed: %s)",
                         from, name, attngen__backend_names());
    } else {
      st = open_backend(c, be, device);
    }
  } else {
    char tried[1024] = "";
    st = ATTNGEN_STATUS_NO_BACKEND;
    for (size_t i = 0; i < attngen__backend_auto_count && st != ATTNGEN_STATUS_OK; i++) {
      st = open_backend(c, attngen__backend_auto_order[i], device);
      if (st != ATTNGEN_STATUS_OK) {
        size_t n = strlen(tried);
        snprintf(tried + n, sizeof tried - n, "%s%s", n ? "; " : "", attngen_last_error());
      }
    }
    if (st != ATTNGEN_STATUS_OK) {
      attngen__log(ATTNGEN__LOG_NOTICE, "no GPU backend (%s); using the cpu reference backend", tried);
      st = open_backend(c, &attngen__backend_cpu, device);
    }
  }
  if (st != ATTNGEN_STATUS_OK) {
    pthread_mutex_destroy(&c->mutex);
    free(c);
    return st;
  }
  if (c->be->kind != ATTNGEN__BACKEND_CPU) c->tuning = attngen__tuning_load_for_device(&c->props);
  attngen__log(ATTNGEN__LOG_INFO, "context: backend %s, device %d: %s (%s, %d compute units)",
               c->props.backend, c->props.device, c->props.name, c->props.arch,
               c->props.compute_units);
  attngen__clear_error();
  *out = c;
  return ATTNGEN_STATUS_OK;
}

void attngen_destroy(attngen_context *c) {
  if (!c) return;
  c->be->synchronize_device(c->bs);
  for (kernel *k = c->kernels, *next; k; k = next) {
    next = k->next;
    if (k->module && c->be->module_unload) c->be->module_unload(c->bs, k->module);
    free(k->name);
    free(k);
  }
  workspace *lists[] = {c->workspaces, c->retired};
  for (size_t i = 0; i < 2; i++) {
    for (workspace *w = lists[i], *next; w; w = next) {
      next = w->next;
      c->be->mem_free(c->bs, w->ptr);
      free(w);
    }
  }
  attngen__tuning_db_free(c->tuning);
  free(c->memo);
  for (struct described *d = c->described, *next; d; d = next) {
    next = d->next;
    free(d->source);
    free(d->name);
    free(d);
  }
  c->be->close(c->bs);
  pthread_mutex_destroy(&c->mutex);
  free(c);
}

attngen_status attngen_device_info(attngen_context *c, attngen_device_props *out) {
  attngen__clear_error();
  if (!c || !out) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_device_info: %s is NULL",
                                       !c ? "ctx" : "out");
  *out = c->props;
  return ATTNGEN_STATUS_OK;
}

/* ---- planning --------------------------------------------------------------------------- */

typedef struct plan {
  attngen__dispatch_result sel;     /* sel.source: a described variant's source, for the JIT */
  const attngen__code_object *code; /* embedded code object (GPU), or NULL */
  int embedded;                     /* code object (GPU) / emulator kernel (emu) exists */
  unsigned grid[3];
  unsigned merge_grid[3];
  unsigned merge_threads;
  unsigned vt_grid[3];              /* v_path=vt: the V pre-pass launch (grid x 0: none) */
  size_t vt_bytes;                  /* v_path=vt: V in operand order, at the workspace start */
  int num_splits;
  size_t workspace_bytes;
  attngen__split_plan split;        /* kv_split=tail variants: the tail split of this call */
  attngen_kargs k;                  /* without pointers */
} plan;

static const attngen__code_object *find_code_object(const char *name, int target) {
  for (size_t i = 0; i < attngen__code_object_count; i++)
    if (attngen__code_objects[i].name && attngen__code_objects[i].target == target &&
        strcmp(attngen__code_objects[i].name, name) == 0)
      return &attngen__code_objects[i];
  return NULL;
}

static const struct described *find_described(const attngen_context *c, const char *name) {
  for (const struct described *d = c->described; d; d = d->next)
    if (strcmp(d->name, name) == 0) return d;
  return NULL;
}

/* The dispatcher's describe function (dispatch.h) for a context (user). */
static int describe_variant(void *user, const char *name, attngen__variant_desc *out,
                            const char **source, char **error) {
  attngen_context *c = user;
  pthread_mutex_lock(&c->mutex);
  const struct described *known = find_described(c, name);
  pthread_mutex_unlock(&c->mutex);
  if (known) {
    *out = known->desc;
    *source = known->source;
    return 0;
  }
  struct described *d = calloc(1, sizeof *d);
  if (!d || !(d->name = strdup(name))) {
    free(d);
    *error = strdup("out of memory describing the variant");
    return 1;
  }
  int rc = attngen__gen_variant(name, &d->desc, &d->source, error, NULL);
  if (rc != 0) {
    free(d->name);
    free(d);
    return rc;
  }
  d->desc.name = d->name;
  pthread_mutex_lock(&c->mutex);
  known = find_described(c, name); /* another thread may have described it meanwhile */
  if (!known) {
    d->next = c->described;
    c->described = d;
    known = d;
    d = NULL;
  }
  *out = known->desc;
  *source = known->source;
  pthread_mutex_unlock(&c->mutex);
  if (d) {
    free(d->source);
    free(d->name);
    free(d);
  }
  return 0;
}

/* The sm90 wgmma kernels built with the dynamic causal order (target_sm90_wgmma.lua causal_dyn:
 * the head_dim-64 causal TMA kernels); they have no pair-order end. */
static int dynamic_ok_kernel(const attngen__variant_desc *d) {
  return attngen__desc_head_dim(d) == 64 && d->load == ATTNGEN__LOAD_TMA;
}

/* Launch geometry and the kernel arguments that do not depend on pointers. Non-split
 * variants: grid (q-blocks, H, B), or for the persistent wgmma kernels (min(jobs, compute
 * units), 1, 1). kv_split=tail variants: the planner of split_plan.h with
 * the device's compute units and one block per CU (grid (grid_x, 1, 1), then NAME_merge on
 * (merge_grid_x, 1, 1) when it is nonzero, with the workspace the plan asks for). */
static attngen_status plan_launch(plan *p, const attngen_fwd_args *a, int compute_units,
                                  int causal_forced) {
  const attngen__variant_desc *d = &p->sel.desc;
  int bm = d->block_m > 0 ? d->block_m : 1;
  int qb = (a->seqlen_q + bm - 1) / bm;
  memset(&p->k, 0, sizeof p->k);
  p->k.B = a->batch;
  p->k.H = a->heads;
  const int heads_kv = a->heads_kv > 0 ? a->heads_kv : a->heads;
  p->k.H_kv = heads_kv;
  p->k.Sq = a->seqlen_q;
  p->k.Skv = a->seqlen_kv;
  p->k.scale_log2 = attngen__scale_log2(a->softmax_scale);
  p->k.num_q_blocks = qb;
  p->k.causal = a->causal; /* the persistent wgmma kernels: their job order (below) */
  p->k.split_first = qb * a->heads * a->batch;
  p->k.num_splits = 1;
  int kt = d->kv_tile > 0 ? d->kv_tile : 1;
  p->k.kv_per_split = (a->seqlen_kv + kt - 1) / kt * kt;
  p->grid[0] = (unsigned)qb;
  p->grid[1] = (unsigned)a->heads;
  p->grid[2] = (unsigned)a->batch;
  {
    /* the job decode's divisors as multiply-shift pairs (templates/common/fastdiv.h) */
    const long dv[4] = {qb > 0 ? qb : 1, a->heads > 0 ? a->heads : 1,
                        (long)a->heads * a->batch > 0 ? (long)a->heads * a->batch : 1,
                        a->heads / heads_kv > 0 ? a->heads / heads_kv : 1};
    for (int i = 0; i < 4; i++)
      ag_fdiv_make((unsigned)(dv[i] < 0x7FFFFFFFL ? dv[i] : 0x7FFFFFFFL), &p->k.div_m[i],
                   &p->k.div_s[i]);
  }
  if (d->impl == ATTNGEN__IMPL_WGMMA) {
    /* Persistent wgmma kernels (templates/sm90/attn_fwd_wgmma.cu.in): one block per SM, each
     * looping over the jobs (q-block, head, batch) x, x + gridDim.x, ... */
    long jobs = (long)qb * a->heads * a->batch;
    long cu = compute_units > 0 ? compute_units : 1;
    p->grid[0] = (unsigned)(jobs < cu ? jobs : cu);
    p->grid[1] = 1;
    p->grid[2] = 1;
    if (a->causal) {
      /* the dynamic order: the kernels built with it (target_sm90_wgmma.lua causal_dyn: the
       * head_dim-64 causal TMA kernels), dense batches */
      const int dynamic_ok = dynamic_ok_kernel(d) && !a->cu_seqlens_q;
      p->k.causal = attngen__causal_order(a->batch, a->heads, heads_kv, a->seqlen_kv,
                                          attngen__desc_head_dim(d), jobs, (long)p->grid[0],
                                          causal_forced, dynamic_ok);
      if (p->k.causal == ATTNGEN__CAUSAL_DYNAMIC)
        p->k.job_section = attngen__causal_section(a->batch, a->heads, heads_kv, a->seqlen_kv,
                                                   attngen__desc_head_dim(d));
    }
  }
  p->num_splits = 1;
  p->workspace_bytes = 0;
  memset(&p->split, 0, sizeof p->split);
  p->split.num_splits = 1;
  /* v_path=vt: the kernel's pre-pass (split_plan.h) writes V in operand order to the start
   * of the workspace; split partials follow it. */
  p->vt_bytes = 0;
  memset(p->vt_grid, 0, sizeof p->vt_grid);
  if (d->v_path == ATTNGEN__V_PATH_VT)
    p->workspace_bytes = p->vt_bytes =
        attngen__vt_plan(a->batch, heads_kv, a->seqlen_kv, attngen__desc_head_dim(d), p->vt_grid);
  /* The dynamic causal order's job counter (kargs.ws): 16 bytes of the workspace (the causal
   * kernels have no split and no V pre-pass), zeroed on the call's stream before the launch.
   * In the call's workspace rather than one kept per stream: a captured graph's own workspace
   * (the Python layer's, from torch's allocator) and concurrent calls never share it. */
  if (p->k.causal == ATTNGEN__CAUSAL_DYNAMIC) p->workspace_bytes = ATTNGEN__JOB_COUNTER_BYTES;
  if (d->kv_split != ATTNGEN__SPLIT_TAIL) return ATTNGEN_STATUS_OK;
  attngen_status st = attngen__split_plan_make_aligned(
      a->batch, a->heads, a->seqlen_q, a->seqlen_kv, bm, kt,
      compute_units > 0 ? compute_units : 1, 1,
      d->skip == ATTNGEN__SKIP_ON ? ATTNGEN__SPLIT_SKIP_ALIGN_TILES : 1, &p->split);
  if (st != ATTNGEN_STATUS_OK)
    return attngen__fail(st, "split plan of %s for %dx%dx%dx%d failed", p->sel.name, a->batch,
                         a->heads, a->seqlen_q, a->seqlen_kv);
  attngen__split_plan_apply(&p->split, &p->k);
  p->grid[0] = p->split.grid_x;
  p->grid[1] = 1;
  p->grid[2] = 1;
  p->merge_grid[0] = p->split.merge_grid_x;
  p->merge_grid[1] = 1;
  p->merge_grid[2] = 1;
  p->merge_threads = (unsigned)d->threads;
  if (d->impl == ATTNGEN__IMPL_WGMMA) {
    /* the persistent kernels: min(jobs and parts, SMs) blocks (the parts are jobs of their
     * own, split_plan.h); the merge on (split q-jobs, row groups) */
    const unsigned cu = compute_units > 0 ? (unsigned)compute_units : 1u;
    if (p->grid[0] > cu) p->grid[0] = cu;
    attngen__wgmma_merge_grid(&p->split, bm, attngen__desc_head_dim(d), p->merge_grid);
    p->merge_threads = ATTNGEN__WGMMA_MERGE_THREADS;
  }
  p->num_splits = p->split.num_splits;
  if (p->split.ws_rows &&
      (d->ws_row_bytes <= 0 || p->split.ws_rows > SIZE_MAX / (size_t)d->ws_row_bytes))
    return attngen__fail(ATTNGEN_STATUS_TOO_LARGE, "split workspace of %s: %zu rows of %d bytes",
                         p->sel.name, p->split.ws_rows, d->ws_row_bytes);
  p->workspace_bytes = p->vt_bytes + p->split.ws_rows * (size_t)d->ws_row_bytes;
  return ATTNGEN_STATUS_OK;
}

/* skip: plan a call with a skip state (skip=on variants only), whatever a->skip says. */
static attngen_status make_plan_skip(attngen_context *c, const attngen_fwd_args *a, int skip,
                                     plan *p) {
  memset(p, 0, sizeof *p);
  if (!c->runs_target)
    return attngen__fail(ATTNGEN_STATUS_NO_VARIANT, "%s: %s", c->props.backend, c->target_problem);
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = c->be->target;
  in.compute_units = c->props.compute_units;
  in.shape = attngen__call_shape_of(a);
  in.causal = a->causal != 0;
  in.varlen = a->cu_seqlens_q != NULL;
  in.skip = skip;
  if (a->variant && a->variant[0]) {
    in.forced = a->variant;
    in.forced_by = "args.variant";
  } else if (c->env.variant[0]) {
    in.forced = c->env.variant;
    in.forced_by = "ATTNGEN_VARIANT";
  }
  char tuned[128], tuned_why[256];
  if (!in.forced && c->env.tuning) {
    const attngen__tuning_query q = {in.shape, in.causal, in.varlen};
    if (attngen__tuning_lookup(c->tuning, &q, tuned, sizeof tuned, tuned_why, sizeof tuned_why)) {
      in.tuned = tuned;
      in.tuned_why = tuned_why;
    }
  }
  in.candidates = attngen__manifest;
  in.count = attngen__manifest_count;
  in.split_supported = 1; /* tail variants are planned by split_plan.h (plan_launch) */
  in.describe = describe_variant;
  in.describe_user = c;
  attngen_status st = attngen__dispatch_select(&in, &p->sel);
  if (st != ATTNGEN_STATUS_OK) return st;
  if (c->be->kind == ATTNGEN__BACKEND_GPU) {
    p->code = find_code_object(p->sel.name, c->be->target);
    p->embedded = p->code != NULL;
  } else {
    void *fn = NULL;
    p->embedded = c->be->function(c->bs, NULL, p->sel.name, p->sel.desc.smem_bytes, &fn) ==
                  ATTNGEN_STATUS_OK;
    attngen__clear_error();
  }
  return plan_launch(p, a, c->props.compute_units, c->env.causal_order);
}

static attngen_status make_plan(attngen_context *c, const attngen_fwd_args *a, plan *p) {
  return make_plan_skip(c, a, a->skip != NULL, p);
}

static attngen_status cpu_variant_check(const attngen_context *c, const attngen_fwd_args *a);

#define SKIP_CPU_BLOCK 128 /* the cpu backend's tile grid when create is given 0 */

attngen_status attngen_skip_state_create(attngen_context *c, const attngen_fwd_args *a,
                                         int block_m, int block_n, float threshold_log2,
                                         attngen_skip_state **out) {
  attngen__clear_error();
  if (!c || !a || !out)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_skip_state_create: %s is NULL",
                         !c ? "ctx" : !a ? "args" : "out");
  *out = NULL;
  attngen_status st = attngen__check_args(a, 0);
  if (st != ATTNGEN_STATUS_OK) return st;
  if (a->cu_seqlens_q || a->cu_seqlens_k)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.cu_seqlens_q: tile skipping does not take packed batches "
                         "(allowed: NULL)");
  if (block_m < 0 || block_n < 0)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "%s = %d (allowed: 0 = the variant's, or a positive tile size)",
                         block_m < 0 ? "block_m" : "block_n", block_m < 0 ? block_m : block_n);
  if (!(threshold_log2 < 0.0f))
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "threshold_log2 = %g (allowed: a negative value in log2 units, e.g. "
                         "-6, or -INFINITY = mark nothing)", (double)threshold_log2);
  if (c->be->kind == ATTNGEN__BACKEND_CPU) {
    if ((st = cpu_variant_check(c, a)) != ATTNGEN_STATUS_OK) return st;
    return attngen__skip_state_new(c, a, block_m ? block_m : SKIP_CPU_BLOCK,
                                   block_n ? block_n : SKIP_CPU_BLOCK, threshold_log2,
                                   "reference", out);
  }
  plan p;
  if ((st = make_plan_skip(c, a, 1, &p)) != ATTNGEN_STATUS_OK) return st;
  const int vm = p.sel.desc.block_m, vn = p.sel.desc.kv_tile;
  if ((block_m && block_m != vm) || (block_n && block_n != vn)) {
    const int bad_m = block_m && block_m != vm;
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "%s = %d: the calls of this shape run %s, whose tile grid is %d x %d "
                         "(allowed: 0 or that value)", bad_m ? "block_m" : "block_n",
                         bad_m ? block_m : block_n, p.sel.name, vm, vn);
  }
  return attngen__skip_state_new(c, a, vm, vn, threshold_log2, p.sel.name, out);
}

/* What decides a call's plan: calls with the same key get the same variant, grid and
 * kernel arguments, so attngen_fwd reuses the context's last plan instead of walking the
 * dispatch rules (and formatting their reasons) again for every call of a shape. */
typedef struct plan_key {
  attngen__call_shape shape;
  int tuning_on;
  int causal;         /* args.causal (only variants with that mask run it) */
  int varlen;         /* args.cu_seqlens_q given (not every target takes packed batches) */
  int skip;           /* args.skip given (only skip=on variants run it) */
  uint32_t scale_bits;
  char forced[128]; /* args.variant, else ATTNGEN_VARIANT, else "" */
} plan_key;

struct plan_memo {
  plan_key key;
  plan plan;
};

/* Fills the key; returns 0 when the call cannot be keyed (a forced name too long). */
static int plan_key_of(const attngen_context *c, const attngen_fwd_args *a, plan_key *key) {
  memset(key, 0, sizeof *key); /* padding too: keys are compared with memcmp */
  const char *forced = a->variant && a->variant[0] ? a->variant : c->env.variant;
  if (strlen(forced) >= sizeof key->forced) return 0;
  strcpy(key->forced, forced);
  key->tuning_on = c->env.tuning;
  key->causal = a->causal;
  key->varlen = a->cu_seqlens_q != NULL;
  key->skip = a->skip != NULL;
  key->shape = attngen__call_shape_of(a);
  memcpy(&key->scale_bits, &a->softmax_scale, sizeof key->scale_bits);
  return 1;
}

/* make_plan, remembered for the last key of the context. */
static attngen_status cached_plan(attngen_context *c, const attngen_fwd_args *a, plan *p) {
  plan_key key;
  const int keyed = plan_key_of(c, a, &key);
  if (keyed) {
    pthread_mutex_lock(&c->mutex);
    const int hit = c->memo && memcmp(&key, &c->memo->key, sizeof key) == 0;
    if (hit) *p = c->memo->plan;
    pthread_mutex_unlock(&c->mutex);
    if (hit) {
      p->sel.desc.name = p->sel.name; /* pointed into the memo's copy */
      return ATTNGEN_STATUS_OK;
    }
  }
  attngen_status st = make_plan(c, a, p);
  if (st != ATTNGEN_STATUS_OK || !keyed) return st;
  pthread_mutex_lock(&c->mutex);
  if (!c->memo) c->memo = malloc(sizeof *c->memo);
  if (c->memo) {
    c->memo->key = key;
    c->memo->plan = *p;
  }
  pthread_mutex_unlock(&c->mutex);
  return ATTNGEN_STATUS_OK;
}

static kernel *find_loaded(attngen_context *c, const char *name) {
  for (kernel *k = c->kernels; k; k = k->next)
    if (strcmp(k->name, name) == 0) return k;
  return NULL;
}

/* Loads the planned variant into the context (once); caller holds c->mutex. */
static attngen_status load_kernel(attngen_context *c, const plan *p, void *stream, kernel **out) {
  kernel *k = find_loaded(c, p->sel.name);
  if (k) {
    *out = k;
    return ATTNGEN_STATUS_OK;
  }
  k = calloc(1, sizeof *k);
  char *name = k ? strdup(p->sel.name) : NULL;
  if (!name) {
    free(k);
    return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "out of memory loading %s", p->sel.name);
  }
  k->name = name;
  k->desc = p->sel.desc;
  k->desc.name = name;
  const attngen__backend_ops *be = c->be;
  attngen_status st = ATTNGEN_STATUS_OK;
  /* GPU: the embedded code object, else the JIT's; emu: the built-in kernel (no module),
   * else the JIT's host object */
  const int jit = be->kind == ATTNGEN__BACKEND_GPU ? !p->code
                                                   : be->kind == ATTNGEN__BACKEND_EMU && !p->embedded;
  if (be->kind == ATTNGEN__BACKEND_GPU || jit) {
    if (p->code) {
      st = be->module_load(c->bs, p->code->data, p->code->size, &k->module);
      if (st == ATTNGEN_STATUS_OK)
        attngen__log(ATTNGEN__LOG_INFO, "loaded embedded %s (%zu bytes)", name, p->code->size);
    } else {
      int capturing = 0;
      st = be->stream_capturing(c->bs, stream, &capturing);
      if (st == ATTNGEN_STATUS_OK && capturing)
        st = attngen__fail(ATTNGEN_STATUS_STREAM_CAPTURING,
                           "variant %s is not embedded and must be JIT-compiled, which cannot "
                           "happen while the stream captures a graph (run it once before "
                           "capturing)", name);
      if (st == ATTNGEN_STATUS_OK) {
        attngen__jit_request req = {name, be->target, p->sel.source,
                                    c->env.jit_lock_timeout_s, &c->env,
                                    be->kind == ATTNGEN__BACKEND_EMU};
        attngen__jit_result res;
        st = attngen__jit_get(&req, &res);
        if (st == ATTNGEN_STATUS_OK) {
          st = be->module_load(c->bs, res.image, res.size, &k->module);
          free(res.image);
        }
      }
    }
  }
  if (st == ATTNGEN_STATUS_OK)
    st = be->function(c->bs, k->module, name, k->desc.smem_bytes, &k->fn);
  if (st == ATTNGEN_STATUS_OK && k->desc.kv_split == ATTNGEN__SPLIT_TAIL) {
    char merge[160];
    snprintf(merge, sizeof merge, "%s_merge", name);
    st = be->function(c->bs, k->module, merge, 0, &k->merge_fn);
  }
  if (st == ATTNGEN_STATUS_OK && k->desc.var_entry) {
    char var[160];
    snprintf(var, sizeof var, "%s_var", name);
    st = be->function(c->bs, k->module, var, k->desc.smem_bytes, &k->var_fn);
  }
  if (st != ATTNGEN_STATUS_OK) {
    if (k->module) be->module_unload(c->bs, k->module);
    free(k->name);
    free(k);
    return st;
  }
  k->next = c->kernels;
  c->kernels = k;
  *out = k;
  return ATTNGEN_STATUS_OK;
}

/* Workspace of at least `bytes` for stream; caller holds c->mutex. */
static attngen_status get_workspace(attngen_context *c, void *stream, size_t bytes, void **ptr) {
  workspace *w = c->workspaces;
  while (w && w->stream != stream) w = w->next;
  if (w && w->bytes >= bytes) {
    *ptr = w->ptr;
    return ATTNGEN_STATUS_OK;
  }
  size_t want = w ? w->bytes * 2 : 0;
  if (want < bytes) want = bytes;
  void *p = NULL;
  attngen_status st = c->be->mem_alloc(c->bs, want, &p);
  if (st != ATTNGEN_STATUS_OK) return st;
  if (!w) {
    w = calloc(1, sizeof *w);
    if (!w) {
      c->be->mem_free(c->bs, p);
      return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    w->stream = stream;
    w->next = c->workspaces;
    c->workspaces = w;
  } else {
    workspace *old = calloc(1, sizeof *old);
    if (!old) {
      c->be->mem_free(c->bs, p);
      return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    old->ptr = w->ptr;
    old->bytes = w->bytes;
    old->next = c->retired;
    c->retired = old;
  }
  w->ptr = p;
  w->bytes = want;
  *ptr = p;
  return ATTNGEN_STATUS_OK;
}

static attngen_status cpu_variant_check(const attngen_context *c, const attngen_fwd_args *a) {
  const char *forced = a->variant && a->variant[0] ? a->variant : c->env.variant;
  if (forced[0] && strcmp(forced, "reference") != 0)
    return attngen__fail(ATTNGEN_STATUS_NO_VARIANT,
                         "%s = %s: the cpu backend runs only the fp32 reference (allowed: "
                         "\"reference\" or none)", a->variant && a->variant[0] ? "args.variant" :
                         "ATTNGEN_VARIANT", forced);
  return ATTNGEN_STATUS_OK;
}

/* The caller's workspace (args.workspace), when given, must hold the plan's partials. */
static attngen_status check_workspace(const attngen_fwd_args *a, size_t need) {
  if (!a->workspace) return ATTNGEN_STATUS_OK;
  if ((uintptr_t)a->workspace % 16 != 0)
    return attngen__fail(ATTNGEN_STATUS_MISALIGNED, "args.workspace = %p is not 16-byte aligned",
                         a->workspace);
  if (a->workspace_bytes < need)
    return attngen__fail(ATTNGEN_STATUS_INVALID_ARGUMENT,
                         "args.workspace_bytes = %zu is smaller than the %zu bytes this call "
                         "needs (attngen_explain's workspace_bytes)", a->workspace_bytes, need);
  return ATTNGEN_STATUS_OK;
}

/* Plans the call, loads its variant and finds its workspace (the caller's or the
 * context's for the stream): all of attngen_fwd but the launch. */
static attngen_status prepare_call(attngen_context *c, const attngen_fwd_args *a, plan *p,
                                   kernel **k, void **ws) {
  attngen_status st = cached_plan(c, a, p);
  if (st != ATTNGEN_STATUS_OK) return st;
  if ((st = check_workspace(a, p->workspace_bytes)) != ATTNGEN_STATUS_OK) return st;
  *ws = NULL;
  pthread_mutex_lock(&c->mutex);
  st = load_kernel(c, p, a->stream, k);
  if (st == ATTNGEN_STATUS_OK && p->workspace_bytes) {
    if (a->workspace)
      *ws = a->workspace;
    else
      st = get_workspace(c, a->stream, p->workspace_bytes, ws);
  }
  pthread_mutex_unlock(&c->mutex);
  return st;
}

attngen_status attngen_prepare(attngen_context *c, const attngen_fwd_args *a) {
  attngen__clear_error();
  if (!c) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_prepare: ctx is NULL");
  attngen_status st = attngen__check_args(a, 0);
  if (st == ATTNGEN_STATUS_OK) st = attngen__skip_check_call(c, a);
  if (st != ATTNGEN_STATUS_OK) return st;
  if (c->be->kind == ATTNGEN__BACKEND_CPU) return cpu_variant_check(c, a);
  plan p;
  kernel *k = NULL;
  void *ws = NULL;
  return prepare_call(c, a, &p, &k, &ws);
}

attngen_status attngen_fwd(attngen_context *c, const attngen_fwd_args *a) {
  attngen__clear_error();
  if (!c) return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_fwd: ctx is NULL");
  attngen_status st = attngen__check_args(a, 1);
  if (st == ATTNGEN_STATUS_OK) st = attngen__skip_check_call(c, a);
  if (st != ATTNGEN_STATUS_OK) return st;
  if (c->be->kind == ATTNGEN__BACKEND_CPU) {
    if ((st = cpu_variant_check(c, a)) != ATTNGEN_STATUS_OK) return st;
    if (!a->skip) return c->be->reference(c->bs, a);
    /* the reference skips on the state's grid; its softmax step is the default's (64) where
     * the kv-tile is a multiple of it, else the kv-tile */
    attngen__ref_args r = attngen__ref_args_of_call(a);
    attngen__skip_fill_ref(a->skip, &r);
    r.kv_step = r.skip_block_n % ATTNGEN__REF_KV_TILE == 0 ? ATTNGEN__REF_KV_TILE : r.skip_block_n;
    memset(a->skip->count, 0, 4 * sizeof(uint32_t));
    if ((st = attngen__reference_fwd(&r)) != ATTNGEN_STATUS_OK)
      return attngen__fail(st, "the cpu reference refused the skip call (%s)",
                           attngen_status_name(st));
    attngen__skip_after_call(a->skip, a->stream);
    return ATTNGEN_STATUS_OK;
  }
  plan p;
  kernel *k = NULL;
  void *ws = NULL;
  if ((st = prepare_call(c, a, &p, &k, &ws)) != ATTNGEN_STATUS_OK) return st;
  if (a->skip && (st = attngen__skip_check_grid(a->skip, k->name, k->desc.block_m,
                                                k->desc.kv_tile)) != ATTNGEN_STATUS_OK)
    return st;
  if (a->skip && (st = attngen__skip_check_kernel(a->skip, &k->desc)) != ATTNGEN_STATUS_OK)
    return st;
  attngen_kargs kargs = p.k;
  if (a->skip) {
    attngen__skip_fill_kargs(a->skip, &kargs);
    /* the counters of this call (tiles, and the sm90 kernels' job counter): zeroed on the
     * stream before the kernels add to them */
    if ((st = c->be->memset_async(c->bs, a->skip->count, 0, 4 * sizeof(uint32_t), a->stream)) !=
        ATTNGEN_STATUS_OK)
      return st;
  }
  kargs.q = a->q;
  kargs.k = a->k;
  kargs.v = a->v;
  kargs.o = a->out;
  kargs.lse = a->lse;
  kargs.ws = ws;
  kargs.kv_len = a->kv_lengths;
  kargs.cu_q = a->cu_seqlens_q;
  kargs.cu_k = a->cu_seqlens_k;
  kargs.total_q = a->total_q;
  kargs.total_kv = a->total_kv;
  attngen__kargs_set_strides(&kargs, a);
  if (kargs.causal == ATTNGEN__CAUSAL_DYNAMIC &&
      (st = c->be->memset_async(c->bs, ws, 0, ATTNGEN__JOB_COUNTER_BYTES, a->stream)) !=
          ATTNGEN_STATUS_OK)
    return st;
  if (p.vt_grid[0] > 0) {
    attngen__log(ATTNGEN__LOG_DEBUG, "launch %s (V pre-pass) grid (%u,%u,%u) x %d threads, "
                 "%zu bytes of V in operand order", k->name, p.vt_grid[0], p.vt_grid[1],
                 p.vt_grid[2], k->desc.threads, p.vt_bytes);
    kargs.vt_prepass = 1; /* kargs.h: the pre-pass launch of v_path=vt */
    st = c->be->launch(c->bs, k->fn, p.vt_grid, (unsigned)k->desc.threads,
                       (unsigned)k->desc.smem_bytes, a->stream, &kargs);
    kargs.vt_prepass = 0;
    if (st != ATTNGEN_STATUS_OK) return st;
  }
  /* key lengths or a packed batch run the variant's NAME_var entry where it has one (the
   * generator's var_entry: NAME itself is built without that code and traps on it) */
  const int var = (a->cu_seqlens_q || a->kv_lengths) && k->var_fn;
  void *fn = var ? k->var_fn : k->fn;
  attngen__log(ATTNGEN__LOG_DEBUG, "launch %s%s grid (%u,%u,%u) x %d threads, %d bytes smem",
               k->name, var ? "_var" : "", p.grid[0], p.grid[1], p.grid[2], k->desc.threads,
               k->desc.smem_bytes);
  if (k->desc.load == ATTNGEN__LOAD_TMA) {
    /* load=tma (templates/common/kargs_tma.h): the backend encodes the tensor maps of q, k,
     * v and o with the variant's boxes and passes them in the kernel parameter. O boxes are
     * one consumer warpgroup's rows: 64, whatever the number of consumers
     * (templates/sm90/attn_fwd_wgmma.cu.in; block_m = 64 x consumers). */
    if (!c->be->launch_tma)
      return attngen__fail(ATTNGEN_STATUS_NO_VARIANT, "%s loads through tensor maps (load=%s), "
                           "which backend %s does not launch", k->name,
                           attngen__load_names[ATTNGEN__LOAD_TMA], c->be->name);
    const attngen__tma_boxes boxes = {k->desc.block_m, k->desc.kv_tile,
                                      64, attngen__desc_head_dim(&k->desc)};
    st = c->be->launch_tma(c->bs, fn, p.grid, (unsigned)k->desc.threads,
                           (unsigned)k->desc.smem_bytes, a->stream, &kargs, &boxes);
  } else {
    st = c->be->launch(c->bs, fn, p.grid, (unsigned)k->desc.threads,
                       (unsigned)k->desc.smem_bytes, a->stream, &kargs);
  }
  if (st == ATTNGEN_STATUS_OK && p.merge_grid[0] > 0) {
    attngen__log(ATTNGEN__LOG_DEBUG, "launch %s_merge grid (%u,%u,1) x %u threads, %d parts, "
                 "%zu workspace bytes", k->name, p.merge_grid[0], p.merge_grid[1], p.merge_threads,
                 p.num_splits, p.workspace_bytes);
    st = c->be->launch(c->bs, k->merge_fn, p.merge_grid, p.merge_threads, 0, a->stream, &kargs);
  }
  if (st == ATTNGEN_STATUS_OK && a->skip) attngen__skip_after_call(a->skip, a->stream);
  return st;
}

attngen_status attngen_explain(attngen_context *c, const attngen_fwd_args *a, attngen_choice *out) {
  attngen__clear_error();
  if (!c || !out)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen_explain: %s is NULL", !c ? "ctx" : "out");
  memset(out, 0, sizeof *out);
  attngen_status st = attngen__check_args(a, 0);
  if (st == ATTNGEN_STATUS_OK) st = attngen__skip_check_call(c, a);
  if (st != ATTNGEN_STATUS_OK) return st;
  static const char *const rule_names[] = {"forced", "tuning database", "heuristic"};
  if (c->be->kind == ATTNGEN__BACKEND_CPU) {
    if ((st = cpu_variant_check(c, a)) != ATTNGEN_STATUS_OK) return st;
    snprintf(out->variant, sizeof out->variant, "reference");
    out->rule = (a->variant && a->variant[0]) || c->env.variant[0] ? ATTNGEN_RULE_FORCED
                                                                   : ATTNGEN_RULE_HEURISTIC;
    out->rule_name = rule_names[out->rule];
    snprintf(out->reason, sizeof out->reason,
             "the cpu backend runs the fp32 reference of docs/NUMERICS.md on the host");
    out->embedded = 1;
    out->loaded = 1;
    out->num_splits = 1;
    return ATTNGEN_STATUS_OK;
  }
  plan p;
  if ((st = make_plan(c, a, &p)) != ATTNGEN_STATUS_OK) return st;
  snprintf(out->variant, sizeof out->variant, "%s", p.sel.name);
  out->rule = (attngen_rule)p.sel.rule;
  out->rule_name = rule_names[p.sel.rule];
  snprintf(out->reason, sizeof out->reason, "%s%s", p.sel.reason,
           !a->causal || p.sel.desc.impl != ATTNGEN__IMPL_WGMMA ? ""
           : p.k.causal == ATTNGEN__CAUSAL_PAIRS && !dynamic_ok_kernel(&p.sel.desc) &&
                     attngen__pair_end_round(p.k.num_q_blocks, (long)p.k.H * p.k.B,
                                             (long)p.grid[0]) != INT_MAX
               ? "; causal jobs in pairs of m-blocks (one round's K/V exceeds L2), the jobs of "
                 "the last rounds longest first (the pairs' last round part-empty)"
           : p.k.causal == ATTNGEN__CAUSAL_PAIRS
               ? "; causal jobs in pairs of m-blocks (one round's K/V exceeds L2)"
           : p.k.causal == ATTNGEN__CAUSAL_DYNAMIC
               ? "; causal jobs in a dynamic order (a job counter in the workspace; longest first "
                 "in sections of (head, batch) pairs whose K/V fits L2)"
               : "; causal jobs longest first");
  out->embedded = p.embedded;
  out->needs_jit = !p.embedded && c->be->kind != ATTNGEN__BACKEND_CPU;
  pthread_mutex_lock(&c->mutex);
  out->loaded = find_loaded(c, p.sel.name) != NULL;
  pthread_mutex_unlock(&c->mutex);
  if (out->loaded) out->needs_jit = 0;
  memcpy(out->grid, p.grid, sizeof out->grid);
  out->threads = p.sel.desc.threads;
  out->smem_bytes = p.sel.desc.smem_bytes;
  out->num_splits = p.num_splits;
  out->workspace_bytes = p.workspace_bytes;
  if (p.num_splits > 1) { /* the tail split of the plan (split_plan.h) */
    const size_t n = strlen(out->reason);
    snprintf(out->reason + n, sizeof out->reason - n,
             "; tail KV split: q-jobs %d..%d of %d in %d parts of %d keys (split_first %d)",
             p.split.split_first, p.split.jobs - 1, p.split.jobs, p.split.num_splits,
             p.split.kv_per_split, p.split.split_first);
  }
  return ATTNGEN_STATUS_OK;
}

attngen_status attngen__ref_follow_call(attngen_context *c, const attngen_fwd_args *a,
                                        attngen__ref_args *r, unsigned char **rows,
                                        char *variant, size_t variant_size) {
  attngen__clear_error();
  if (rows) *rows = NULL;
  if (!c || !a || !r || !rows)
    return attngen__fail(ATTNGEN_STATUS_NULL_POINTER, "attngen__ref_follow_call: %s is NULL",
                         !c ? "ctx" : !a ? "args" : !r ? "ref args" : "rows");
  attngen_status st = attngen__check_args(a, 0);
  if (st == ATTNGEN_STATUS_OK) st = attngen__skip_check_call(c, a);
  if (st != ATTNGEN_STATUS_OK) return st;
  r->kv_step = 0;
  r->score_fma = 0;
  r->kv_per_split = 0;
  r->split_rows = NULL;
  r->skip_block_m = r->skip_block_n = 0;
  if (c->be->kind == ATTNGEN__BACKEND_CPU) {
    if ((st = cpu_variant_check(c, a)) != ATTNGEN_STATUS_OK) return st;
    if (variant && variant_size) snprintf(variant, variant_size, "reference");
    if (a->skip) { /* the cpu backend's skip call (attngen_fwd) */
      r->skip_block_m = a->skip->block_m;
      r->skip_block_n = a->skip->block_n;
      r->kv_step = r->skip_block_n % ATTNGEN__REF_KV_TILE == 0 ? ATTNGEN__REF_KV_TILE
                                                                : r->skip_block_n;
    }
    return ATTNGEN_STATUS_OK;
  }
  plan p;
  if ((st = make_plan(c, a, &p)) != ATTNGEN_STATUS_OK) return st;
  if (variant && variant_size) snprintf(variant, variant_size, "%s", p.sel.name);
  const attngen__variant_desc *d = &p.sel.desc;
  r->kv_step = d->softmax_step > 0 ? d->softmax_step : d->kv_tile;
  r->score_fma = d->score_fma;
  if (d->skip == ATTNGEN__SKIP_ON) { /* the grid of the variant's skip lists */
    r->skip_block_m = d->block_m;
    r->skip_block_n = d->kv_tile;
  }
  if (p.split.num_splits < 2) return ATTNGEN_STATUS_OK;
  unsigned char *flags = malloc((size_t)a->batch * a->heads * a->seqlen_q);
  if (!flags) return attngen__fail(ATTNGEN_STATUS_OUT_OF_MEMORY, "out of memory (split rows)");
  attngen__split_plan_row_flags(&p.split, a->batch, a->heads, a->seqlen_q, d->block_m, flags);
  r->kv_per_split = p.split.kv_per_split;
  r->split_rows = flags;
  *rows = flags;
  return ATTNGEN_STATUS_OK;
}
