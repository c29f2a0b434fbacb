/* attngen.h: public C API of libattngen, generated bf16 forward attention (head_dim 64, 128 or 256:
 * which backends have which, attngen_fwd_args.head_dim).
 * Public names start with attngen_, internal ones with attngen__. */
#ifndef ATTNGEN_H
#define ATTNGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTNGEN_VERSION_MAJOR 0
#define ATTNGEN_VERSION_MINOR 1
#define ATTNGEN_VERSION_PATCH 0
#define ATTNGEN_VERSION_STRING "0.1.0"

/* Status codes: X(NAME, "description"). One list gives the enum and the strings. */
#define ATTNGEN_STATUS_LIST(X)                                                         \
  X(OK, "success")                                                                     \
  X(INVALID_ARGUMENT, "invalid argument")                                              \
  X(NULL_POINTER, "a required pointer is null")                                        \
  X(UNSUPPORTED_HEAD_DIM, "head_dim is not 64, 128 or 256")                            \
  X(BAD_SHAPE, "a size is out of range")                                               \
  X(TOO_LARGE, "a tensor is too large for the kernels' index type")                    \
  X(MISALIGNED, "a pointer is not aligned as the kernels need")                        \
  X(ALIASING, "out overlaps an input")                                                 \
  X(BAD_LAYOUT, "unknown layout")                                                      \
  X(BAD_ROUNDING, "unknown rounding mode")                                             \
  X(BAD_SCALE, "softmax_scale is not finite")                                          \
  X(NO_BACKEND, "no usable backend")                                                   \
  X(NO_DEVICE, "no device found")                                                      \
  X(NO_VARIANT, "no kernel variant supports these arguments")                          \
  X(JIT_DISABLED, "the variant is not embedded and JIT is disabled (ATTNGEN_JIT=0)")   \
  X(JIT_FAILED, "run-time compilation failed")                                         \
  X(STREAM_CAPTURING, "cannot JIT-compile while the stream is capturing a graph")      \
  X(LAUNCH_FAILED, "kernel launch failed")                                             \
  X(BACKEND_ERROR, "backend call failed")                                              \
  X(OUT_OF_MEMORY, "out of memory")                                                    \
  X(IO_ERROR, "file input/output failed")                                              \
  X(INTERNAL, "internal error")

typedef enum attngen_status {
#define ATTNGEN__STATUS_ENUM(name, text) ATTNGEN_STATUS_##name,
  ATTNGEN_STATUS_LIST(ATTNGEN__STATUS_ENUM)
#undef ATTNGEN__STATUS_ENUM
  ATTNGEN_STATUS_COUNT_
} attngen_status;

/* Tensor layouts, read natively (no transposes). */
typedef enum attngen_layout {
  ATTNGEN_LAYOUT_BSHD = 0, /* [B, S, H, D] */
  ATTNGEN_LAYOUT_BHSD = 1  /* [B, H, S, D] */
} attngen_layout;

/* fp32 -> bf16 rounding applied to P (before P.V) and to O. See docs/NUMERICS.md. */
typedef enum attngen_rounding {
  ATTNGEN_ROUND_RTNE = 0, /* nearest, ties to even */
  ATTNGEN_ROUND_RTNA = 1, /* nearest, ties away from zero */
  ATTNGEN_ROUND_RTZ = 2   /* toward zero */
} attngen_rounding;

const char *attngen_status_string(attngen_status status);
const char *attngen_status_name(attngen_status status);

/* Library version, e.g. "0.1.0" (ATTNGEN_VERSION_STRING of the library actually loaded). */
const char *attngen_version(void);
/* The git commit of the sources the library was built from (12 hex digits, "-dirty" when
 * tracked files differed from it), or "unknown" when built outside a git checkout. */
const char *attngen_build_id(void);

/* The names of this API's enumerations and of the kernels' variant axes, for bindings that
 * must not retype them: kind "layout" (attngen_layout), "rounding" (attngen_rounding),
 * "status" (attngen_status, as attngen_status_name), or an axis: "target", "kv_split",
 * "impl", "v_path", "load". The name of `value`; NULL past the last value or for an unknown
 * kind (so a binding lists a kind by counting up from 0). */
const char *attngen_enum_name(const char *kind, int value);

/* Text of the last failure on the calling thread ("" when none). Every call that returns a
 * status other than OK sets it; the text names the argument and the allowed values. */
const char *attngen_last_error(void);

/* ---- context ------------------------------------------------------------------------ */

/* One context per device. Thread-safe: calls from several threads may share a context. */
typedef struct attngen_context attngen_context;

typedef struct attngen_context_options {
  /* NULL or "auto": ATTNGEN_BACKEND if set, else the first GPU backend that loads and
   * finds a device (cuda, hip), else "cpu" (with a notice on stderr). Explicit values:
   * "cuda", "hip", "emu" (gfx942 kernels on the CPU emulator), "cpu" (the fp32 reference). */
  const char *backend;
  int device; /* device ordinal within the backend */
} attngen_context_options;

/* opts may be NULL (= all defaults). On failure *ctx is NULL and the status says why
 * (NO_BACKEND: library missing; NO_DEVICE: library loads but no usable device). */
attngen_status attngen_create(attngen_context **ctx, const attngen_context_options *opts);
/* Synchronizes the device, frees everything the context owns. NULL is a no-op. */
void attngen_destroy(attngen_context *ctx);

/* What a context runs on. */
typedef struct attngen_device_props {
  char backend[16];      /* "cuda" | "hip" | "emu" | "cpu" */
  char name[256];        /* device name, e.g. "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X" */
  char arch[64];         /* "sm_90", "gfx942", "gfx942 (emulated)", "host" */
  int compute_units;     /* SMs (cuda) or CUs (hip, emu); CPU threads for cpu */
  int device;            /* ordinal */
  int device_count;      /* devices the backend sees */
  int driver_version;    /* cuda: cuDriverGetVersion; hip: hipDriverGetVersion; else 0 */
  size_t total_memory;   /* bytes, 0 when unknown */
  const char *target;    /* kernel target the context runs: "sm90", "gfx942", "reference" */
} attngen_device_props;

attngen_status attngen_device_info(attngen_context *ctx, attngen_device_props *out);

/* ---- forward attention -------------------------------------------------------------- */

/* Temporal tile skipping state (attngen_skip_state_create, below). */
typedef struct attngen_skip_state attngen_skip_state;

typedef struct attngen_fwd_args {
  const void *q, *k, *v; /* bf16; device pointers (host pointers for cpu/emu), 16-byte aligned;
                            k and v may be NULL when seqlen_kv == 0 (then out = 0, LSE = -inf) */
  void *out;             /* bf16, same shape as q (out_strides: its own strides); must not
                            overlap q/k/v */
  float *lse;            /* fp32 [B,H,Sq] natural-log LSE, or NULL */
  /* head_dim: elements per row of q, k, v and out: 64, 128 or 256 (else UNSUPPORTED_HEAD_DIM
   * naming args.head_dim). The cpu reference takes all three; the kernels: 128 on every
   * backend, 64 and 256 on cuda (sm90 wgmma kernels), hip and emu (gfx942 MFMA kernels);
   * elsewhere NO_VARIANT naming args.head_dim and the head dims the backend has (README:
   * which backend has which). Set softmax_scale with it: attngen_fwd_args_init's default is
   * 1/sqrt(128). */
  int batch, heads, seqlen_q, seqlen_kv, head_dim;
  attngen_layout layout;
  attngen_rounding rounding;
  float softmax_scale;
  void *stream;          /* CUstream / hipStream_t; NULL = the default stream */
  const char *variant;   /* NULL = the dispatcher's choice; else a canonical variant name */
  /* Split partials of kv_split=tail variants (attngen_explain's workspace_bytes; 0 for
   * others). NULL = the context allocates one per stream (the first call of a larger shape
   * allocates). Given: at least workspace_bytes bytes of device memory (host memory on
   * cpu/emu), 16-byte aligned, not used by anything else until the call's kernels have run
   * on a->stream. Pass one to capture attngen_fwd in a CUDA/HIP graph: nothing is then
   * allocated during the call. */
  void *workspace;
  size_t workspace_bytes;
  /* Per-batch key lengths (FlashAttention-3's seqused_k; a key-padding mask whose True part
   * is a prefix): int32 [batch], device memory (host memory on cpu/emu), 4-byte aligned,
   * not overlapping out or lse; NULL = every batch entry uses all seqlen_kv keys. Keys
   * j >= kv_lengths[b] contribute nothing (docs/NUMERICS.md); a row with no key left gets
   * out = 0 and LSE = -inf. The host checks the pointer's alignment and overlap only (the
   * values live on the device and are not read before the launch); the kernels clamp each
   * value into [0, seqlen_kv], so no value can make them read or write out of bounds.
   * Every backend takes it (cpu, emu, hip: gfx942 kernels, cuda: sm90 kernels). */
  const int32_t *kv_lengths;
  /* Causal mask, bottom-right aligned (the FlashAttention >= 2.1 convention): query i of a
   * batch entry with n keys (seqlen_kv, or its kv_lengths value) sees the keys
   * j <= i + n - seqlen_q; a row that sees no key (i < seqlen_q - n) gets out = 0 and
   * LSE = -inf. KV tiles wholly past a q-block's diagonal are not loaded or computed.
   * 0 = off (every key), 1 = on; other values: INVALID_ARGUMENT naming args.causal.
   * Backends: cpu and cuda (sm90 kernels); the gfx942 kernels (hip, emu) do not take it
   * yet: NO_VARIANT naming args.causal. */
  int causal;
  /* Grouped-query / multi-query attention: the number of KV heads, 0 (the default) = heads.
   * k and v then have heads_kv heads (bshd [B, Skv, heads_kv, head_dim], bhsd [B, heads_kv,
   * Skv, head_dim]) and query head h attends with KV head h / (heads / heads_kv); K and V are read in
   * place (no copy). Allowed: 0 or a divisor of heads (1 = MQA); anything else is BAD_SHAPE
   * naming args.heads_kv. q, out and lse keep heads heads. */
  int heads_kv;
  /* Packed variable-length batch (FlashAttention's varlen convention, flash_attn_varlen_func):
   * cu_seqlens_q and cu_seqlens_k, int32 [batch + 1] each, device memory (host memory on
   * cpu/emu), 4-byte aligned, not overlapping out or lse; both or neither (NULL = a dense
   * call). Sequence b's queries are the rows [cu_seqlens_q[b], cu_seqlens_q[b + 1]) of q and
   * out, its keys the rows [cu_seqlens_k[b], cu_seqlens_k[b + 1]) of k and v: q and out are
   * [total_q, heads, 128], k and v [total_kv, heads_kv, 128] (layout ATTNGEN_LAYOUT_BSHD,
   * i.e. FlashAttention's THD: packed rows, no batch dimension; BHSD is refused: BAD_LAYOUT
   * naming args.layout), lse [heads, total_q]. seqlen_q and seqlen_kv are then the largest
   * query and key lengths (max_seqlen_q, max_seqlen_k: seqlen_q >= 1, seqlen_kv >= 0; jobs
   * are planned over seqlen_q); total_q (>= 1) and total_kv (>= 1 when seqlen_kv > 0) the
   * rows of the packed tensors (both 0 in a dense call). The result is exactly the
   * per-sequence dense calls (docs/NUMERICS.md): causal is bottom-right aligned per
   * sequence, a sequence with no key gets out = 0 and LSE = -inf; kv_lengths may be given
   * too (FlashAttention-3's seqused_k with cu_seqlens_k): sequence b then uses the first
   * min(its cu_seqlens_k length, kv_lengths[b]) keys.
   * The host checks the pointers (pairing, alignment, overlap) and the scalars; the values
   * live on the device and are not read before the launch (attngen_check_cu_seqlens checks a
   * host copy). The kernels assume cu_seqlens non-decreasing, starting at 0, ending at the
   * totals, every length <= its maximum; whatever they hold, no access is out of bounds: a
   * sequence is start = clamp(cu[b], 0, total), end = clamp(cu[b + 1], 0, total), length =
   * clamp(end - start, 0, maximum) (rows of q no sequence covers are not written).
   * layout BSHD only (else BAD_LAYOUT). Backends: cpu (head dims 64, 128, 256), hip and emu
   * (gfx942 kernels without the tail KV split: 64, 128, 256) and cuda (sm90 kernels without the
   * tail KV split: 64, 128, 256); elsewhere NO_VARIANT naming args.cu_seqlens_q. */
  const int32_t *cu_seqlens_q, *cu_seqlens_k;
  int total_q, total_kv;
  /* Temporal tile skipping (docs/NUMERICS.md "Tile skipping"), or NULL = dense. The state
   * (attngen_skip_state_create) holds the lists: the call reads the list the previous call
   * with this state wrote (none after create / reset), skips the tiles it marks (and the
   * must-skip mask's, not the must-do mask's), writes the next list and counts. Only
   * variants with skip on run such a call (NO_VARIANT naming args.skip otherwise) and only
   * dense variants run a call without it. Refused, naming args.skip: a state of another
   * context (INVALID_ARGUMENT), of another shape (batch, heads, seqlen_q, seqlen_kv:
   * BAD_SHAPE), with a packed batch (INVALID_ARGUMENT), or when the call's variant has
   * another tile grid than the state's (INVALID_ARGUMENT). Calls with one state must be
   * ordered (one stream, or synchronized): each reads what the previous one wrote. */
  attngen_skip_state *skip;
  /* Element strides of q, k, v and out: {batch, sequence, head}, in elements (not bytes);
   * the last dimension (head_dim) is always unit-stride. All three 0 (the default) = the
   * dense strides of args.layout (bshd [B, S, H, D]: {S H D, H D, D}; bhsd [B, H, S, D]:
   * {H S D, D, S D}; k and v with heads_kv heads, S = seqlen_kv; a packed batch: rows of
   * total_q / total_kv). Given (any nonzero), the tensor is read or written through them,
   * whatever args.layout says (the layout then only picks the variant family, a tuning
   * hint), so views run without a copy: a packed qkv [B, S, 3, H, D] (q, k, v at +0, +H D,
   * +2 H D with strides {3 S H D, 3 H D, D}), a permuted [B, H, S, D] view of a [B, S, H, D]
   * tensor, heads padded apart. Every backend honours them (cpu reference, gfx942 on hip and
   * emu, sm90 on cuda). Checked on the host, each naming the stride (e.g. args.q_strides[1])
   * and nothing launched: a negative stride, or 0 on a dimension of extent > 1
   * (INVALID_ARGUMENT); a stride that is not a multiple of 8 elements, 16 bytes, as the
   * kernels' 16-byte loads and the tensor maps need (MISALIGNED); a tensor that spans 2^31
   * bytes or more within one batch entry, or a batch stride of 2^39 elements or more
   * (TOO_LARGE); out strides under which two elements of out share an address, or out's
   * span [first, last byte] overlapping another tensor's span (ALIASING). In a packed batch
   * the batch strides are not used (any value >= 0). */
  int64_t q_strides[3], k_strides[3], v_strides[3], out_strides[3];
} attngen_fwd_args;

/* Defaults: everything 0/NULL, head_dim 128, bshd, rtne, softmax_scale 1/sqrt(128) (strides
 * all 0: dense in the layout). */
void attngen_fwd_args_init(attngen_fwd_args *a);

/* Checks host copies of a packed batch's cu_seqlens (attngen_fwd_args.cu_seqlens_q/_k, each
 * batch + 1 values) fully, as attngen_fwd cannot without reading device memory: each starts
 * at 0, never decreases, ends at its total (total_q, total_kv), and no length exceeds its
 * maximum (max_seqlen_q, max_seqlen_k: attngen_fwd_args.seqlen_q / seqlen_kv). NULL_POINTER
 * or INVALID_ARGUMENT naming the array, the index and the value (attngen_last_error). */
attngen_status attngen_check_cu_seqlens(const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
                                        int batch, int total_q, int total_kv, int max_seqlen_q,
                                        int max_seqlen_k);

/* Validates the arguments (nothing is launched and out is untouched on failure), picks a
 * variant, loads or JIT-compiles it on first use, and launches it on a->stream. Never
 * synchronizes the device. */
attngen_status attngen_fwd(attngen_context *ctx, const attngen_fwd_args *a);

/* Everything attngen_fwd does before its launch, without launching: validates the
 * arguments (pointers may be NULL), picks the variant, loads or JIT-compiles it into the
 * context and, when the variant splits KV and a->workspace is NULL, allocates the context's
 * workspace for a->stream. Call it (or attngen_fwd once) before capturing a graph: a call
 * captured afterwards with the same arguments neither compiles nor allocates. */
attngen_status attngen_prepare(attngen_context *ctx, const attngen_fwd_args *a);

/* Why a variant is chosen. */
typedef enum attngen_rule {
  ATTNGEN_RULE_FORCED = 0,    /* args.variant or ATTNGEN_VARIANT */
  ATTNGEN_RULE_TUNING = 1,    /* the tuning database has an entry for this shape */
  ATTNGEN_RULE_HEURISTIC = 2  /* the built-in heuristic */
} attngen_rule;

typedef struct attngen_choice {
  char variant[128];        /* canonical variant name ("reference" on the cpu backend) */
  attngen_rule rule;
  const char *rule_name;    /* "forced" | "tuning database" | "heuristic" */
  char reason[512];         /* one line: the rules that fired and their inputs */
  int embedded;             /* 1: code object built into the library (AOT) */
  int needs_jit;            /* 1: must be generated and compiled at first use */
  int loaded;               /* 1: already loaded in this context */
  unsigned grid[3];         /* launch of the main kernel */
  int threads, smem_bytes;
  int num_splits;           /* KV parts of the split tail (1 = no split) */
  size_t workspace_bytes;   /* split partials */
} attngen_choice;

/* Which variant attngen_fwd would run for these arguments and why, without running it.
 * Validates the arguments like attngen_fwd (pointers may be NULL here: only shapes and
 * options are needed). */
attngen_status attngen_explain(attngen_context *ctx, const attngen_fwd_args *a,
                               attngen_choice *out);

/* ---- temporal tile skipping (docs/NUMERICS.md "Tile skipping") ---------------------- */

/* A skip state holds, for one attention layer of one shape, the double-buffered skip lists
 * (device memory; host memory on cpu/emu), the optional must-skip and must-do masks, the
 * threshold and a counter, on a tile grid of block_m query rows x block_n keys per (batch,
 * query head). Create it once per layer, pass it as args.skip in every denoising step of a
 * prompt, reset it between prompts.
 * a: the shape of the calls (batch, heads, seqlen_q, seqlen_kv, head_dim, heads_kv,
 * layout, rounding, causal, variant; pointers are not read). block_m, block_n: the grid; 0
 * = the grid of the variant the dispatcher picks for a with skipping (the cpu backend: 128
 * x 128); on a GPU backend a nonzero value must be that variant's (INVALID_ARGUMENT naming
 * block_m / block_n); on cpu any positive values (the reference's softmax step is then
 * 64 when block_n is a multiple of 64, else block_n). threshold_log2:
 * T < 0 in log2 units (-6: a tile whose scores stay 2^6 below every row's running max is
 * marked); -INFINITY marks nothing (then only the must-skip mask skips); NaN, 0 or positive:
 * INVALID_ARGUMENT naming threshold_log2. NO_VARIANT naming args.skip when the backend has
 * no variant that skips (the cpu reference always does). */
attngen_status attngen_skip_state_create(attngen_context *ctx, const attngen_fwd_args *a,
                                         int block_m, int block_n, float threshold_log2,
                                         attngen_skip_state **out);
/* Frees the state's memory (the calls that use it must have run). NULL is a no-op. */
void attngen_skip_state_destroy(attngen_skip_state *s);
/* Forget the lists: the next call reads no list (computes every tile but the must-skip
 * ones) and starts a new sequence of steps. The masks and the threshold stay. */
attngen_status attngen_skip_state_reset(attngen_skip_state *s);
/* The threshold for the next calls (the rules of create). */
attngen_status attngen_skip_state_set_threshold(attngen_skip_state *s, float threshold_log2);

/* The lists of a state, each attngen_skip_info.words uint32 words in the layout of
 * docs/NUMERICS.md (bit kt % 32 of word ((b * H + h) * q_tiles + qt) * words_per_q_tile +
 * kt / 32). */
typedef enum attngen_skip_list {
  ATTNGEN_SKIP_MUST_SKIP = 0, /* MS: tiles skipped whatever the read list says */
  ATTNGEN_SKIP_MUST_DO = 1,   /* MD: tiles always computed and never marked (wins over MS) */
  ATTNGEN_SKIP_NEXT_READ = 2  /* the list the next call reads (after a call: what it wrote) */
} attngen_skip_list;
/* Copies `words` (host memory, attngen_skip_info.words words; NULL = clear: no mask, or for
 * NEXT_READ the state of a reset) into the list. Synchronous. */
attngen_status attngen_skip_state_set_list(attngen_skip_state *s, attngen_skip_list which,
                                           const uint32_t *words);
/* Copies the list into `words` (host memory; an absent mask or a fresh read list reads as
 * zeros). Waits for the last call that used the state. */
attngen_status attngen_skip_state_get_list(attngen_skip_state *s, attngen_skip_list which,
                                           uint32_t *words);

typedef struct attngen_skip_info {
  int batch, heads, seqlen_q, seqlen_kv;
  int block_m, block_n;      /* the tile grid */
  int q_tiles, kv_tiles;     /* ceil(seqlen_q / block_m), ceil(seqlen_kv / block_n) */
  int words_per_q_tile;      /* ceil(kv_tiles / 32) */
  size_t words;              /* batch * heads * q_tiles * words_per_q_tile */
  float threshold_log2;
  char variant[128];         /* the variant whose grid it is ("reference" on cpu) */
  long long calls;           /* calls since create / reset */
} attngen_skip_info;
attngen_status attngen_skip_state_info(const attngen_skip_state *s, attngen_skip_info *out);

/* The last call's counts: tiles skipped, tiles visited (tiles with a key some row of the
 * q-tile sees), and skipped / visited (0 when nothing was visited or no call ran since
 * create / reset). Waits for that call (reads the device counter). Any pointer may be NULL. */
attngen_status attngen_skip_state_stats(attngen_skip_state *s, uint64_t *skipped,
                                        uint64_t *visited, double *skipped_fraction);

/* ---- memory, streams, timing (no vendor SDK needed) --------------------------------- */

attngen_status attngen_malloc(attngen_context *ctx, size_t bytes, void **ptr);
attngen_status attngen_free(attngen_context *ctx, void *ptr);
attngen_status attngen_memcpy_htod(attngen_context *ctx, void *dst, const void *src, size_t bytes);
attngen_status attngen_memcpy_dtoh(attngen_context *ctx, void *dst, const void *src, size_t bytes);
attngen_status attngen_memset(attngen_context *ctx, void *dst, int byte, size_t bytes);
/* Waits for the stream (NULL = default stream). */
attngen_status attngen_synchronize(attngen_context *ctx, void *stream);

/* Device events for timing (host clock on cpu/emu). */
typedef struct attngen_event attngen_event;
attngen_status attngen_event_create(attngen_context *ctx, attngen_event **ev);
attngen_status attngen_event_record(attngen_context *ctx, attngen_event *ev, void *stream);
/* Waits for `end`, then *ms = time between the two records. */
attngen_status attngen_event_elapsed(attngen_context *ctx, attngen_event *start,
                                     attngen_event *end, float *ms);
void attngen_event_destroy(attngen_context *ctx, attngen_event *ev);

/* One warm-up call (which also loads/compiles the variant), then `iters` calls between two
 * events; *ms = mean milliseconds per call. Synchronizes the stream (a measuring tool). */
attngen_status attngen_time_fwd(attngen_context *ctx, const attngen_fwd_args *a, int iters,
                                float *ms);

/* numerics */
/* fp32 -> bf16 exactly as the kernels round (docs/NUMERICS.md): NaN -> 0x7FFF in every mode,
 * +-Inf kept, finite overflow to Inf under RTNE/RTNA. A mode outside the enum rounds as RTNE. */
uint16_t attngen_bf16_round(float x, attngen_rounding mode);
/* bf16 bit pattern -> fp32 (exact). */
float attngen_bf16_to_float(uint16_t b);
/* end numerics */

#ifdef __cplusplus
}
#endif
#endif /* ATTNGEN_H */
