/* dispatch.h: argument checks and variant selection. Selection order: feature support
 * (target, layout, rounding, split support) -> forced variant (args.variant or
 * ATTNGEN_VARIANT) -> tuning database entry for the shape -> built-in heuristic. The
 * heuristic is a table of rules (dispatch.c), each narrowing one axis; everything here is
 * pure (no device, no globals) so that tests can drive it with made-up devices. */
#ifndef ATTNGEN_DISPATCH_H
#define ATTNGEN_DISPATCH_H
#include <stddef.h>

#include "attngen.h"
#include "call_shape.h"
#include "variant.h"

/* The shape limits attngen__check_args enforces (BAD_SHAPE, TOO_LARGE), as the CLI documents
 * them: heads and batch are the launch grid's y and z; the kernels use 32-bit byte offsets
 * within one batch entry (Sq * H * 128 * 2 bytes, Skv * H * 128 * 2 bytes) and 32-bit row
 * numbers (B * H * Sq). */
#define ATTNGEN__GRID_YZ_LIMIT 65535
#define ATTNGEN__SHAPE_LIMITS_TEXT                                                              \
  "B, H in 1..65535, Sq >= 1, Skv >= 0; Sq*H and Skv*H < 2^23; B*H*Sq < 2^31"

/* Checks a's fields in a fixed order; the first problem gives the status and a message
 * naming the argument and its allowed values. need_pointers = 0 skips the pointer checks
 * (attngen_explain). */
attngen_status attngen__check_args(const attngen_fwd_args *a, int need_pointers);

/* The shape of a call (call_shape.h). */
typedef attngen__call_shape attngen__shape;

/* Describes a variant by name (in the library the generator's attngen__gen_variant through
 * the context, which keeps the source made in the same generator state; tests substitute
 * their own). user is the dispatch input's describe_user. Returns 0 with the descriptor in
 * *out and in *source the variant's generated source or NULL (owned by the describer, alive
 * as long as its user: the plan carries it to the JIT), or nonzero with a malloc'd *error. */
typedef int (*attngen__describe_fn)(void *user, const char *name, attngen__variant_desc *out,
                                    const char **source, char **error);

typedef struct attngen__dispatch_input {
  int target;                 /* attngen__target of the context */
  int compute_units;          /* SMs / CUs of the device */
  attngen__shape shape;
  const char *forced;         /* variant forced by the caller, or NULL */
  const char *forced_by;      /* "args.variant" | "ATTNGEN_VARIANT" */
  const char *tuned;          /* the tuning database's winner, or NULL */
  const char *tuned_why;      /* where the entry comes from */
  const attngen__variant_desc *candidates; /* the default set (manifest) */
  size_t count;
  int split_supported;        /* kv_split=tail variants can be planned and launched */
  int causal;                 /* args.causal: only variants with that mask (axis mask) */
  int varlen;                 /* args.cu_seqlens_q set: sm90 variants only (a kernel argument) */
  int skip;                   /* args.skip set: only variants with skip on (axis skip) */
  attngen__describe_fn describe; /* for names outside the candidates */
  void *describe_user;           /* describe's first argument */
} attngen__dispatch_input;

typedef struct attngen__dispatch_result {
  attngen__variant_desc desc; /* desc.name points to name */
  char name[128];
  int rule;                   /* attngen_rule */
  int in_default_set;         /* found among the candidates */
  const char *source;         /* a described variant's generated source (describe's), for
                                 the JIT; NULL for the candidates or when describe has none */
  char reason[512];
} attngen__dispatch_result;

attngen_status attngen__dispatch_select(const attngen__dispatch_input *in,
                                        attngen__dispatch_result *out);

/* ---- heuristic rules (exposed for tests and `attngen info`) ---------------------------- */

typedef struct attngen__features {
  int target, compute_units;
  attngen__shape shape;
} attngen__features;

typedef struct attngen__heuristic_rule {
  const char *name;
  const char *axis;   /* the axis this rule narrows */
  int target;         /* attngen__target it applies to, -1 = all */
  /* The preferred value of the axis among the candidates (each has every axis value
   * still open); writes a short justification into why. */
  int (*prefer)(const attngen__features *f, const attngen__variant_desc *const *cands, size_t n,
                char *why, size_t why_len);
  const char *basis;  /* why this rule exists (measurement or reasoning) */
} attngen__heuristic_rule;

extern const attngen__heuristic_rule attngen__heuristic_rules[];
extern const size_t attngen__heuristic_rule_count;

/* Value of a named field of a descriptor (any of ATTNGEN__VARIANT_DESC_FIELDS: "q_tiles",
 * "kv_tile", "load", ...); -1 for a name that is not one. */
int attngen__axis_value(const attngen__variant_desc *d, const char *axis);

/* Blocks of the variant that run at once on the whole device (occupancy model of the
 * heuristic) and the number of (b, h, q-block) jobs of a call. */
long attngen__device_slots(const attngen__variant_desc *d, int compute_units);
long attngen__q_jobs(const attngen__variant_desc *d, const attngen__shape *s);

#endif /* ATTNGEN_DISPATCH_H */
