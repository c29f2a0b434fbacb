/* attngen 0.1.0 | variant axes of generator/lua/config.lua | generated, do not edit */
#ifndef ATTNGEN_VARIANT_AXES_H
#define ATTNGEN_VARIANT_AXES_H

/* axis layout */
typedef enum { ATTNGEN__LAYOUT_BSHD = 0, ATTNGEN__LAYOUT_BHSD = 1, ATTNGEN__LAYOUT_COUNT = 2 } attngen__layout;
extern const char *const attngen__layout_names[ATTNGEN__LAYOUT_COUNT];
#define ATTNGEN__LAYOUT_LIST "bshd, bhsd" /* for messages */
#define ATTNGEN__LAYOUT_CHOICES "bshd|bhsd" /* for usage texts */
#define ATTNGEN__LAYOUT_BSHD_NAME "bshd"
#define ATTNGEN__LAYOUT_BHSD_NAME "bhsd"

/* axis rounding */
typedef enum { ATTNGEN__ROUNDING_RTNE = 0, ATTNGEN__ROUNDING_RTNA = 1, ATTNGEN__ROUNDING_RTZ = 2, ATTNGEN__ROUNDING_COUNT = 3 } attngen__rounding;
extern const char *const attngen__rounding_names[ATTNGEN__ROUNDING_COUNT];
#define ATTNGEN__ROUNDING_LIST "rtne, rtna, rtz" /* for messages */
#define ATTNGEN__ROUNDING_CHOICES "rtne|rtna|rtz" /* for usage texts */
#define ATTNGEN__ROUNDING_RTNE_NAME "rtne"
#define ATTNGEN__ROUNDING_RTNA_NAME "rtna"
#define ATTNGEN__ROUNDING_RTZ_NAME "rtz"

/* axis kv_split */
typedef enum { ATTNGEN__SPLIT_OFF = 0, ATTNGEN__SPLIT_TAIL = 1, ATTNGEN__SPLIT_COUNT = 2 } attngen__kv_split;
extern const char *const attngen__kv_split_names[ATTNGEN__SPLIT_COUNT];
#define ATTNGEN__SPLIT_LIST "off, tail" /* for messages */
#define ATTNGEN__SPLIT_CHOICES "off|tail" /* for usage texts */
#define ATTNGEN__SPLIT_OFF_NAME "off"
#define ATTNGEN__SPLIT_TAIL_NAME "tail"

/* axis v_path */
typedef enum { ATTNGEN__V_PATH_PERM = 0, ATTNGEN__V_PATH_VT = 1, ATTNGEN__V_PATH_COUNT = 2 } attngen__v_path;
extern const char *const attngen__v_path_names[ATTNGEN__V_PATH_COUNT];
#define ATTNGEN__V_PATH_LIST "perm, vt" /* for messages */
#define ATTNGEN__V_PATH_CHOICES "perm|vt" /* for usage texts */
#define ATTNGEN__V_PATH_PERM_NAME "perm"
#define ATTNGEN__V_PATH_VT_NAME "vt"

/* axis load */
typedef enum { ATTNGEN__LOAD_THREAD = 0, ATTNGEN__LOAD_TMA = 1, ATTNGEN__LOAD_COUNT = 2 } attngen__load;
extern const char *const attngen__load_names[ATTNGEN__LOAD_COUNT];
#define ATTNGEN__LOAD_LIST "thread, tma" /* for messages */
#define ATTNGEN__LOAD_CHOICES "thread|tma" /* for usage texts */
#define ATTNGEN__LOAD_THREAD_NAME "thread"
#define ATTNGEN__LOAD_TMA_NAME "tma"

/* axis mask */
typedef enum { ATTNGEN__MASK_NONE = 0, ATTNGEN__MASK_CAUSAL = 1, ATTNGEN__MASK_COUNT = 2 } attngen__mask;
extern const char *const attngen__mask_names[ATTNGEN__MASK_COUNT];
#define ATTNGEN__MASK_LIST "none, causal" /* for messages */
#define ATTNGEN__MASK_CHOICES "none|causal" /* for usage texts */
#define ATTNGEN__MASK_NONE_NAME "none"
#define ATTNGEN__MASK_CAUSAL_NAME "causal"

/* axis skip */
typedef enum { ATTNGEN__SKIP_OFF = 0, ATTNGEN__SKIP_ON = 1, ATTNGEN__SKIP_COUNT = 2 } attngen__skip;
extern const char *const attngen__skip_names[ATTNGEN__SKIP_COUNT];
#define ATTNGEN__SKIP_LIST "off, on" /* for messages */
#define ATTNGEN__SKIP_CHOICES "off|on" /* for usage texts */
#define ATTNGEN__SKIP_OFF_NAME "off"
#define ATTNGEN__SKIP_ON_NAME "on"

/* axis impl */
typedef enum { ATTNGEN__IMPL_MFMA = 0, ATTNGEN__IMPL_MMA = 1, ATTNGEN__IMPL_WGMMA = 2, ATTNGEN__IMPL_COUNT = 3 } attngen__impl;
extern const char *const attngen__impl_names[ATTNGEN__IMPL_COUNT];
#define ATTNGEN__IMPL_LIST "mfma, mma, wgmma" /* for messages */
#define ATTNGEN__IMPL_CHOICES "mfma|mma|wgmma" /* for usage texts */
#define ATTNGEN__IMPL_MFMA_NAME "mfma"
#define ATTNGEN__IMPL_MMA_NAME "mma"
#define ATTNGEN__IMPL_WGMMA_NAME "wgmma"

/* axis target */
typedef enum { ATTNGEN__TARGET_GFX942 = 0, ATTNGEN__TARGET_SM90 = 1, ATTNGEN__TARGET_COUNT = 2 } attngen__target;
extern const char *const attngen__target_names[ATTNGEN__TARGET_COUNT];
#define ATTNGEN__TARGET_LIST "gfx942, sm90" /* for messages */
#define ATTNGEN__TARGET_CHOICES "gfx942|sm90" /* for usage texts */
#define ATTNGEN__TARGET_GFX942_NAME "gfx942"
#define ATTNGEN__TARGET_SM90_NAME "sm90"

/* per target (attngen__target): compiled-for architecture, GPU backend */
extern const char *const attngen__target_arch[ATTNGEN__TARGET_COUNT];
extern const char *const attngen__target_backend[ATTNGEN__TARGET_COUNT];

/* Axis values and derived launch geometry of one variant. */
typedef struct attngen__variant_desc {
  const char *name; /* canonical name = kernel symbol = generated file stem */
  int target; /* attngen__target */
  int layout; /* attngen__layout (= attngen_layout) */
  int rounding; /* attngen__rounding (= attngen_rounding) */
  int q_tiles; /* 16-row Q tiles per wave (gfx942) / warp (sm90) */
  int kv_tile; /* KV rows per inner iteration */
  int waves; /* waves (gfx942, 64 lanes) or warps (sm90, 32 lanes) per block */
  int kv_split; /* attngen__kv_split */
  int impl; /* attngen__impl */
  int threads; /* threads per block */
  int block_m; /* Q rows per block */
  int smem_bytes; /* dynamic shared memory / LDS bytes requested at launch */
  int softmax_step; /* keys per running-max update (P is rounded against that max): the CPU reference uses the same step */
  int ws_row_bytes; /* tail KV split: workspace bytes per Q row of a part (0 without a split) */
  int score_fma; /* softmax form: 1 = p = exp2(fma(s, scale_log2, -m)) rounded once, 0 = exp2(fl(s * scale_log2) - m), 2 = 1 for scale_log2 > 0 and 0 otherwise; the CPU reference follows it */
  int v_path; /* attngen__v_path: VT = V pre-transposed into the workspace by a pre-pass launch of the kernel (kargs.vt_prepass = 1) */
  int load; /* attngen__load: TMA = the kernel's parameter is attngen_kargs_tma (tensor maps of q, k, v encoded by the runtime at launch) */
  int mask; /* attngen__mask: CAUSAL = the kernel applies the causal mask (kargs.causal = 1); a variant serves only calls with its mask */
  int head_dim; /* elements per row of q, k, v and out (axis head_dim); a variant serves only calls with its head_dim (0 in a hand-made descriptor: 128) */
  int skip; /* attngen__skip: ON = the kernel reads and writes tile skip lists (kargs.skip_*); a variant serves only calls with its skip (args.skip given or not) */
  int var_entry; /* 1 = the code object has a second kernel, NAME_var, that the runtime launches for calls with key lengths or packed batches (kargs.kv_len, kargs.cu_q); NAME is built without that code */
  int packed; /* 1 = the kernel takes packed variable-length batches (kargs.cu_q, args.cu_seqlens_q); a packed call runs only on such variants */
} attngen__variant_desc;

/* X(field) for every int field of attngen__variant_desc, in order. */
#define ATTNGEN__VARIANT_DESC_FIELDS(X) X(target) X(layout) X(rounding) X(q_tiles) X(kv_tile) X(waves) X(kv_split) X(impl) X(threads) X(block_m) X(smem_bytes) X(softmax_step) X(ws_row_bytes) X(score_fma) X(v_path) X(load) X(mask) X(head_dim) X(skip) X(var_entry) X(packed)

#endif /* ATTNGEN_VARIANT_AXES_H */
