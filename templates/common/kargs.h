// kargs.h: the one kernel-argument block, shared by every target's kernels, the runtime
// (which fills it) and the emulator (which passes it to host-compiled gfx942 kernels).
// Passed by value as the single kernel parameter. Plain C, no includes, so it can be
// inlined into self-contained generated sources and compiled by hiprtc/nvrtc/clang/nvcc.
#ifndef ATTNGEN_KARGS_H
#define ATTNGEN_KARGS_H

typedef struct attngen_kargs {
  const void *q;     // bf16 [B,Sq,H,D] by index, in memory per q_sb, q_ss, q_sh (below)
  const void *k;     // bf16 [B,Skv,H_kv,D] by index (k_* strides)
  const void *v;     // bf16 [B,Skv,H_kv,D] by index (v_* strides)
  void *o;           // bf16 [B,Sq,H,D] by index (o_* strides)
  float *lse;        // fp32 [B,H,Sq] natural-log LSE, or 0 when not requested
  float *ws;         // fp32 workspace for tail KV split partials, or 0 (kv_split = off)
  int B, H, Sq, Skv;
  float scale_log2;  // softmax_scale * log2(e), folded into the exp2 softmax
  int num_q_blocks;  // ceil(Sq / block_m) of the variant
  // Tail KV split plan (see runtime/src/split_plan.c). Linear block ids below
  // split_first are whole (b, h, q-block) jobs; the tail is split in num_splits KV parts.
  int split_first;   // first q-job index that is split; == total q-jobs when no split
  int num_splits;    // KV parts per split q-job (1 = no split)
  int kv_per_split;  // KV rows per part, a multiple of the variant's kv_tile
  int vt_prepass;     // v_path=vt: 1 in the V pre-pass launch, 0 in the attention launch
  // Per-batch key lengths, int32 [B], or 0 = all Skv (attngen_fwd_args.kv_lengths). The
  // kernels clamp each value into [0, Skv]: keys >= the clamped length contribute nothing.
  const int *kv_len;
  // Causal mask (attngen_fwd_args.causal): query i of an entry with n keys sees the keys
  // j <= i + n - Sq (bottom-right aligned). 0 = none; nonzero = the mask, and for the
  // persistent sm90 wgmma kernels the job order the runtime chose (1 = longest first, 2 =
  // pairs of m-blocks, 3 = dynamic (job_section below); templates/sm90/attn_fwd_wgmma.cu.in
  // job_at).
  int causal;
  // KV heads (attngen_fwd_args.heads_kv; == H for a dense call): k and v have H_kv heads
  // ([B,Skv,H_kv,128] / [B,H_kv,Skv,128]) and query head h reads KV head h / (H / H_kv).
  int H_kv;
  // Packed variable-length batch (attngen_fwd_args.cu_seqlens_q/_k), or 0 = dense: int32
  // [B + 1] row offsets into q/o ([total_q, H, 128]) and k/v ([total_kv, H_kv, 128]); Sq and
  // Skv are the largest lengths. Sequence b: start = clamp(cu[b], 0, total), end =
  // clamp(cu[b + 1], 0, total), length = clamp(end - start, 0, Sq or Skv); lse [H, total_q].
  const int *cu_q;
  const int *cu_k;
  int total_q, total_kv;
  // Temporal tile skipping (variant axis skip = on; docs/NUMERICS.md "Tile skipping"); all 0
  // when the call has no skip state (skip = off kernels never read them). The grid: q-tiles
  // of the variant's block_m rows x kv-tiles of its kv_tile keys per (batch, query head).
  // A list is uint32 words: tile (b, h, qt, kt) is bit kt % 32 of word
  // ((b * H + h) * skip_nqt + qt) * skip_nw + kt / 32; bit 1 = skip.
  const unsigned *skip_read;      // R: tiles to skip this call, or 0 = none
  unsigned *skip_write;           // W: this call's list for the next call (every word of the
                                  // job's rows stored whole), or 0 = not written
  const unsigned *skip_must_skip; // MS: skipped whatever R says, or 0 = none
  const unsigned *skip_must_do;   // MD: computed and never marked, wins over R and MS; or 0
  unsigned *skip_count;           // [4]: += skipped tiles, += visited tiles; or 0. [2]: the
                                  // sm90 skip kernels' job counter (0 at launch)
  float skip_threshold_log2;      // T < 0: a computed tile is marked when every valid row's
                                  // max t over the tile is below its running max + T
  int skip_nqt;                   // ceil(Sq / block_m)
  int skip_nkt;                   // ceil(Skv / kv_tile)
  int skip_nw;                    // ceil(skip_nkt / 32): words per (b, h, qt)
  // Element strides (batch, sequence, head) of q, k, v and o; the last dimension is
  // unit-stride. Always filled by the runtime (attngen_fwd_args.q_strides ..., else the
  // layout's dense strides), so a kernel addresses (b, s, h) at b sb + s ss + h sh whatever
  // its layout; a packed batch has sb = 0 (a sequence's first row counts its rows). The host
  // keeps every stride a multiple of 8 and a batch entry's span of each tensor below 2^31
  // bytes, so ss and sh fit 32-bit row offsets.
  long long q_sb, k_sb, v_sb, o_sb;
  int q_ss, q_sh, k_ss, k_sh, v_ss, v_sh, o_ss, o_sh;
  // The dynamic causal job order (causal = 3; the head_dim-64 sm90 wgmma causal kernels, whose
  // ws is then the job counter: 16 bytes of the call's workspace, zeroed on the call's stream
  // before the launch): the (head, batch) pairs of one section of the order (longest job first
  // within a section, sections in turn; templates/sm90/attn_fwd_wgmma.cu.in dyn_job); 0
  // otherwise.
  int job_section;
  // The sm90 wgmma kernels' job decode divides by multiply-shift pairs (templates/common/
  // fastdiv.h, made by the runtime for every launch): divisor i = num_q_blocks, H, H * B,
  // H / H_kv for i = 0..3.
  unsigned div_m[4], div_s[4];
} attngen_kargs;

#endif // ATTNGEN_KARGS_H
