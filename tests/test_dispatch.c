/* test_dispatch.c: argument checks and variant selection (runtime/src/dispatch.c), driven
 * with made-up candidate tables and devices: no GPU, no generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "attngen_internal.h"

/* ---- argument checks: one status per kind of bad input ------------------------------------ */

static _Alignas(16) unsigned char arena[1 << 16];

/* A valid call on fake pointers in `arena` (only the checks run, nothing is read). */
static attngen_fwd_args valid_args(void) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.batch = 2;
  a.heads = 2;
  a.seqlen_q = 8;
  a.seqlen_kv = 8;
  size_t t = (size_t)2 * 2 * 8 * 128 * 2; /* 8 KiB per tensor */
  a.q = arena;
  a.k = arena + t;
  a.v = arena + 2 * t;
  a.out = arena + 3 * t;
  a.lse = (float *)(arena + 4 * t);
  return a;
}

static void expect(const attngen_fwd_args *a, attngen_status want, const char *mention) {
  attngen_status got = attngen__check_args(a, 1);
  if (got != want)
    print_message("got %s (%s)\n", attngen_status_name(got), attngen_last_error());
  assert_int_equal(got, want);
  if (mention) assert_non_null(strstr(attngen_last_error(), mention));
}

static void test_dispatch_valid_args_pass(void **state) {
  attngen_fwd_args a = valid_args();
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.seqlen_kv = 0; /* an empty KV range is allowed */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a = valid_args();
  a.lse = NULL;
  expect(&a, ATTNGEN_STATUS_OK, NULL);
}

static void test_dispatch_null_pointers(void **state) {
  const char *names[] = {"args.q", "args.k", "args.v", "args.out"};
  for (int i = 0; i < 4; i++) {
    attngen_fwd_args a = valid_args();
    if (i == 0) a.q = NULL;
    if (i == 1) a.k = NULL;
    if (i == 2) a.v = NULL;
    if (i == 3) a.out = NULL;
    expect(&a, ATTNGEN_STATUS_NULL_POINTER, names[i]);
  }
  assert_int_equal(attngen__check_args(NULL, 1), ATTNGEN_STATUS_NULL_POINTER);
}

static void test_dispatch_head_dim(void **state) {
  attngen_fwd_args a = valid_args();
  for (int d = 0; d < 4; ++d) {
    a.head_dim = (int[]){96, 0, -64, 512}[d];
    expect(&a, ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM, "args.head_dim = ");
    assert_non_null(strstr(attngen_last_error(), "allowed: 64, 128, 256"));
  }
  a.head_dim = 64; /* valid (whether a backend has variants of it is the dispatcher's) */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  /* the byte-size limit counts head_dim: 2^31 / (2 * 256) rows of one head pass at 128 */
  a.head_dim = 128;
  a.heads = 1;
  a.seqlen_q = a.seqlen_kv = 4 << 20; /* 4M rows x 256 bytes = 2^30 */
  a.q = a.k = a.v = a.out = NULL;
  a.lse = NULL;
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_OK);
  a.head_dim = 256; /* 4M rows x 512 bytes = 2^31 */
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_TOO_LARGE);
  assert_non_null(strstr(attngen_last_error(), "args.head_dim"));
}

static void test_dispatch_bad_sizes(void **state) {
  attngen_fwd_args a = valid_args();
  a.batch = 0;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.batch = 0");
  a = valid_args();
  a.heads = -3;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.heads = -3");
  a = valid_args();
  a.seqlen_q = 0;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.seqlen_q = 0");
  a = valid_args();
  a.seqlen_kv = -1;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.seqlen_kv = -1");
}

static void test_dispatch_too_large(void **state) {
  attngen_fwd_args a = valid_args();
  a.heads = 1;
  a.seqlen_q = 1 << 23; /* 2^23 * 1 * 128 * 2 = 2^31 bytes per batch entry */
  expect(&a, ATTNGEN_STATUS_TOO_LARGE, "args.seqlen_q * args.heads");
  a.seqlen_q = (1 << 23) - 1; /* one row less fits */
  a.out = NULL; /* only the size checks matter here: stop at the pointer check */
  expect(&a, ATTNGEN_STATUS_NULL_POINTER, "args.out");
  a = valid_args();
  a.heads = 64;
  a.seqlen_kv = 1 << 17; /* 2^17 * 64 * 256 = 2^31 */
  expect(&a, ATTNGEN_STATUS_TOO_LARGE, "args.seqlen_kv");
  a = valid_args();
  a.heads = 70000;
  expect(&a, ATTNGEN_STATUS_TOO_LARGE, "args.heads = 70000");
}

static void test_dispatch_misaligned(void **state) {
  attngen_fwd_args a = valid_args();
  a.k = (const unsigned char *)a.k + 8;
  expect(&a, ATTNGEN_STATUS_MISALIGNED, "args.k");
  assert_non_null(strstr(attngen_last_error(), "16-byte"));
  a = valid_args();
  a.out = (unsigned char *)a.out + 2;
  expect(&a, ATTNGEN_STATUS_MISALIGNED, "args.out");
  a = valid_args();
  a.lse = (float *)((unsigned char *)a.lse + 2);
  expect(&a, ATTNGEN_STATUS_MISALIGNED, "args.lse");
}

static void test_dispatch_aliasing(void **state) {
  attngen_fwd_args a = valid_args();
  a.out = (void *)a.q;
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.out");
  a = valid_args();
  a.out = (unsigned char *)a.v + 4096; /* second half of v */
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.v");
  a = valid_args();
  a.lse = (float *)a.out;
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.lse");
  a = valid_args();
  a.k = a.q; /* inputs may share memory: only outputs must not overlap */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a = valid_args();
  a.out = (unsigned char *)a.v + 8192; /* directly after v: touching, not overlapping */
  a.lse = NULL;
  expect(&a, ATTNGEN_STATUS_OK, NULL);
}

/* args.kv_lengths (int32 [batch], read on the device): the host checks its alignment and
 * that no output overlaps it; its values are the kernels' to clamp. */
static void test_dispatch_kv_lengths(void **state) {
  const size_t t = (size_t)2 * 2 * 8 * 128 * 2;
  attngen_fwd_args a = valid_args();
  a.kv_lengths = (const int32_t *)(arena + 5 * t);
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.kv_lengths = (const int32_t *)(arena + 5 * t + 2);
  expect(&a, ATTNGEN_STATUS_MISALIGNED, "args.kv_lengths");
  assert_non_null(strstr(attngen_last_error(), "4-byte"));
  a = valid_args();
  a.kv_lengths = (const int32_t *)a.out + 4;
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.kv_lengths");
  a = valid_args();
  a.kv_lengths = (const int32_t *)a.lse + 31; /* its last int32 and one past the lse */
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.kv_lengths");
  a = valid_args();
  a.kv_lengths = (const int32_t *)a.lse + 32; /* directly after lse: touching */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.kv_lengths = (const int32_t *)a.q; /* inputs may share memory */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.kv_lengths = (const int32_t *)(arena + 5 * t + 2);
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_OK); /* no pointers: no check */
}

/* A packed batch (args.cu_seqlens_q/_k, read on the device): both or neither, bshd only,
 * totals only with them and in range, cu_seqlens aligned and not under an output; on gfx942
 * (emu) the memo cannot hide the refusal of a tail-split variant (a dense call of the same
 * shape first), nothing written, and the packed call runs on a variant without the split. */
static void test_dispatch_packed_args(void **state) {
  (void)state;
  const size_t t = (size_t)2 * 2 * 8 * 128 * 2;
  int32_t *cu = (int32_t *)(arena + 5 * t); /* 3 + 3 int32, contents never read here */
  attngen_fwd_args a = valid_args();
  a.cu_seqlens_q = cu;
  a.cu_seqlens_k = cu + 4;
  a.total_q = 16; /* the two entries' rows of valid_args' tensors */
  a.total_kv = 16;
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.cu_seqlens_k = NULL;
  expect(&a, ATTNGEN_STATUS_NULL_POINTER, "args.cu_seqlens_k");
  a.cu_seqlens_k = cu + 4;
  a.cu_seqlens_q = NULL;
  expect(&a, ATTNGEN_STATUS_NULL_POINTER, "args.cu_seqlens_q");
  a.cu_seqlens_q = cu;
  a.layout = ATTNGEN_LAYOUT_BHSD;
  expect(&a, ATTNGEN_STATUS_BAD_LAYOUT, "args.layout");
  assert_non_null(strstr(attngen_last_error(), "args.cu_seqlens_q"));
  a.layout = ATTNGEN_LAYOUT_BSHD;
  /* every head dim passes the host check (which variants have packed-batch code is the
   * dispatcher's: test_dispatch_packed_head_dims) */
  a.head_dim = 64; /* (256 would make valid_args' tensors overlap: ALIASING) */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.head_dim = 96;
  expect(&a, ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM, "args.head_dim");
  a.head_dim = 128;
  a.total_q = 0;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.total_q");
  a.total_q = 16;
  a.total_kv = -1;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.total_kv");
  a.total_kv = 0; /* no key rows while a sequence may have keys */
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.total_kv");
  a.seqlen_kv = 0; /* no sequence has a key: fine, k and v may be NULL */
  a.k = a.v = NULL;
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a = valid_args();
  a.total_q = 5; /* totals without cu_seqlens */
  expect(&a, ATTNGEN_STATUS_INVALID_ARGUMENT, "args.total_q");
  a.total_q = 0;
  a.total_kv = 3;
  expect(&a, ATTNGEN_STATUS_INVALID_ARGUMENT, "args.total_kv");
  a = valid_args();
  a.cu_seqlens_q = cu;
  a.cu_seqlens_k = cu + 4;
  a.total_q = 1 << 16; /* 2^16 rows x 256 heads... : 2^31 bytes of q */
  a.heads = 256;
  a.seqlen_q = 8;
  a.total_kv = 16;
  a.heads_kv = 2;
  expect(&a, ATTNGEN_STATUS_TOO_LARGE, "args.total_q");
  a = valid_args();
  a.cu_seqlens_q = cu;
  a.cu_seqlens_k = (const int32_t *)((const char *)(cu + 4) + 2);
  a.total_q = a.total_kv = 16;
  expect(&a, ATTNGEN_STATUS_MISALIGNED, "args.cu_seqlens_k");
  a.cu_seqlens_k = cu + 4;
  a.cu_seqlens_q = (const int32_t *)a.lse + 30; /* [30, 33): lse is [H, total_q] = 32 floats */
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.cu_seqlens_q");
  a.cu_seqlens_q = (const int32_t *)a.lse + 32; /* directly after */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.cu_seqlens_q = (const int32_t *)a.out + 2;
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.cu_seqlens_q");

  /* gfx942 (emu) runs packed batches on the variants without the tail split: after a dense
   * call of the same shape (the memo keys on cu_seqlens) the plan is a nosplit variant, and
   * a forced tail variant is refused by name (NO_VARIANT naming args.cu_seqlens_q), nothing
   * written; the packed rows are the dense calls' of each sequence (bitwise) */
  attngen_context *emu = NULL;
  attngen_context_options eo = {"emu", 0};
  assert_int_equal(attngen_create(&emu, &eo), ATTNGEN_STATUS_OK);
  static _Alignas(16) uint16_t q[2 * 8 * 128], kv[2 * 8 * 128], out[2 * 8 * 128];
  static _Alignas(16) uint16_t dense[2 * 8 * 128];
  static int32_t cuq[3] = {0, 3, 8}, cuk[3] = {0, 8, 8};
  for (int i = 0; i < 2 * 8 * 128; ++i) {
    q[i] = (uint16_t)(0x3C00u + (uint16_t)((i * 37) % 251));
    kv[i] = (uint16_t)(0x3F00u + (uint16_t)((i * 11) % 127) - 60);
  }
  attngen_fwd_args c;
  attngen_fwd_args_init(&c);
  c.q = q;
  c.k = kv;
  c.v = kv;
  c.out = out;
  c.batch = 2;
  c.heads = 1;
  c.seqlen_q = 8;
  c.seqlen_kv = 8;
  assert_int_equal(attngen_fwd(emu, &c), ATTNGEN_STATUS_OK);
  c.cu_seqlens_q = cuq;
  c.cu_seqlens_k = cuk;
  c.total_q = 8;
  c.total_kv = 8;
  c.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942";
  memset(out, 0x7B, sizeof out);
  attngen_choice ch;
  assert_int_equal(attngen_explain(emu, &c, &ch), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.cu_seqlens_q"));
  assert_int_equal(attngen_fwd(emu, &c), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.cu_seqlens_q"));
  for (size_t i = 0; i < sizeof out / sizeof out[0]; ++i) assert_int_equal(out[i], 0x7B7B);
  c.variant = NULL;
  assert_int_equal(attngen_explain(emu, &c, &ch), ATTNGEN_STATUS_OK);
  assert_non_null(strstr(ch.variant, "_nosplit_"));
  assert_int_equal(attngen_fwd(emu, &c), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_synchronize(emu, NULL), ATTNGEN_STATUS_OK);
  /* sequence 0: rows 0-2 over keys 0-7; sequence 1: rows 3-7 without keys (O = 0) */
  attngen_fwd_args d = c;
  d.cu_seqlens_q = d.cu_seqlens_k = NULL;
  d.total_q = d.total_kv = 0;
  d.batch = 1;
  d.seqlen_q = 3;
  d.out = dense;
  assert_int_equal(attngen_fwd(emu, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_synchronize(emu, NULL), ATTNGEN_STATUS_OK);
  assert_memory_equal(out, dense, 3 * 128 * sizeof out[0]);
  for (int i = 3 * 128; i < 8 * 128; ++i) assert_int_equal(out[i], 0);
  attngen_destroy(emu);
}

/* attngen_check_cu_seqlens: the host helper checks host copies fully, naming the array, the
 * index and the value. */
static void test_dispatch_check_cu_seqlens(void **state) {
  (void)state;
  const int32_t q[4] = {0, 5, 5, 12}, k[4] = {0, 0, 9, 10};
  assert_int_equal(attngen_check_cu_seqlens(q, k, 3, 12, 10, 7, 9), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_check_cu_seqlens(q, k, 3, 12, 10, 6, 9), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "cu_seqlens_q[3] - cu_seqlens_q[2] = 7"));
  assert_non_null(strstr(attngen_last_error(), "max_seqlen_q = 6"));
  assert_int_equal(attngen_check_cu_seqlens(q, k, 3, 12, 10, 7, 8), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "cu_seqlens_k[2]"));
  assert_int_equal(attngen_check_cu_seqlens(q, k, 3, 13, 10, 7, 9), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "total_q = 13"));
  assert_int_equal(attngen_check_cu_seqlens(q, k, 3, 12, 11, 7, 9), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "cu_seqlens_k[3] = 10"));
  const int32_t dec[4] = {0, 5, 4, 12}, start[4] = {1, 5, 5, 12};
  assert_int_equal(attngen_check_cu_seqlens(dec, k, 3, 12, 10, 8, 9), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "cu_seqlens_q[2] = 4 < cu_seqlens_q[1] = 5"));
  assert_int_equal(attngen_check_cu_seqlens(start, k, 3, 12, 10, 8, 9), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "cu_seqlens_q[0] = 1"));
  assert_int_equal(attngen_check_cu_seqlens(q, NULL, 3, 12, 10, 7, 9), ATTNGEN_STATUS_NULL_POINTER);
  assert_non_null(strstr(attngen_last_error(), "cu_seqlens_k"));
  assert_int_equal(attngen_check_cu_seqlens(q, k, 0, 12, 10, 7, 9), ATTNGEN_STATUS_BAD_SHAPE);
  /* a length difference that overflows int32 is still caught */
  const int32_t wide[3] = {0, INT32_MAX, INT32_MAX}, neg[3] = {0, INT32_MIN, INT32_MAX};
  assert_int_equal(attngen_check_cu_seqlens(wide, neg, 2, INT32_MAX, INT32_MAX, INT32_MAX,
                                            INT32_MAX), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(attngen_last_error(), "cu_seqlens_k[1]"));
}

/* args.causal: 0 or 1, anything else INVALID_ARGUMENT naming it. A forced gfx942 variant
 * without the mask (emu) refuses it with NO_VARIANT naming args.causal (explain and fwd,
 * nothing written); the cpu reference and the gfx942 causal kernels (emu) run it: row i of
 * a causal call with Sq = Skv = 8 equals the row of a dense call with Skv = i + 1 (its first
 * keys) on the same backend, bitwise. */
static void test_dispatch_causal(void **state) {
  (void)state;
  attngen_fwd_args a = valid_args();
  a.causal = 1;
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  a.causal = 2;
  expect(&a, ATTNGEN_STATUS_INVALID_ARGUMENT, "args.causal");
  assert_non_null(strstr(attngen_last_error(), "allowed: 0"));
  a.causal = -1;
  expect(&a, ATTNGEN_STATUS_INVALID_ARGUMENT, "args.causal");

  attngen_context *emu = NULL, *cpu = NULL;
  attngen_context_options eo = {"emu", 0}, co = {"cpu", 0};
  assert_int_equal(attngen_create(&emu, &eo), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_create(&cpu, &co), ATTNGEN_STATUS_OK);
  enum { S = 8, N = S * 128 };
  static uint16_t q[N], kv[N], out[N], row[128];
  for (int i = 0; i < N; ++i) {
    q[i] = (uint16_t)(0x3C00u + (uint16_t)((i * 37) % 251)); /* bf16 around 0.0078 .. 0.03 */
    kv[i] = (uint16_t)(0x3F00u + (uint16_t)((i * 11) % 127) - 60);
  }
  attngen_fwd_args c;
  attngen_fwd_args_init(&c);
  c.q = q;
  c.k = kv;
  c.v = kv;
  c.out = out;
  c.batch = 1;
  c.heads = 1;
  c.seqlen_q = S;
  c.seqlen_kv = S;
  c.causal = 1;
  attngen_choice ch;
  memset(out, 0x7B, sizeof out);
  c.variant = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_mfma_gfx942";
  assert_int_equal(attngen_explain(emu, &c, &ch), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.causal"));
  assert_int_equal(attngen_fwd(emu, &c), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.causal"));
  for (int i = 0; i < N; ++i) assert_int_equal(out[i], 0x7B7B);
  c.variant = NULL;
  assert_int_equal(attngen_explain(emu, &c, &ch), ATTNGEN_STATUS_OK);
  assert_non_null(strstr(ch.variant, "_causal_"));
  attngen_context *both[2] = {emu, cpu};
  for (int bi = 0; bi < 2; ++bi) {
    memset(out, 0x7B, sizeof out);
    assert_int_equal(attngen_fwd(both[bi], &c), ATTNGEN_STATUS_OK);
    assert_int_equal(attngen_synchronize(both[bi], NULL), ATTNGEN_STATUS_OK);
    for (int i = 0; i < S; ++i) {
      attngen_fwd_args d = c;
      d.causal = 0;
      d.q = q + i * 128;
      d.out = row;
      d.seqlen_q = 1;
      d.seqlen_kv = i + 1;
      assert_int_equal(attngen_fwd(both[bi], &d), ATTNGEN_STATUS_OK);
      assert_int_equal(attngen_synchronize(both[bi], NULL), ATTNGEN_STATUS_OK);
      assert_memory_equal(row, out + i * 128, sizeof row);
    }
  }
  /* not the dense call: its first row sees every key, the causal one only key 0 (so it
   * is v_0, p = 1); their last rows agree */
  static uint16_t first[128];
  memcpy(first, out, sizeof first);
  assert_memory_equal(first, kv, sizeof first);
  c.causal = 0;
  assert_int_equal(attngen_fwd(cpu, &c), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen_synchronize(cpu, NULL), ATTNGEN_STATUS_OK);
  assert_memory_equal(out + (S - 1) * 128, row, sizeof row);
  assert_memory_not_equal(out, first, sizeof first);
  attngen_destroy(emu);
  attngen_destroy(cpu);
}

/* args.heads_kv (grouped-query calls): 0 or a divisor of heads, else BAD_SHAPE naming it and
 * the allowed values; k and v then span heads_kv heads (sizes, overlap ranges). */
static void test_dispatch_heads_kv(void **state) {
  attngen_fwd_args a = valid_args();
  for (int hk = 0; hk <= 2; ++hk) {
    a.heads_kv = hk; /* 0 = heads, 1 = MQA, 2 = heads */
    expect(&a, ATTNGEN_STATUS_OK, NULL);
  }
  a.heads_kv = -1;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.heads_kv = -1");
  assert_non_null(strstr(attngen_last_error(), "divisor of heads"));
  a.heads = 6;
  a.heads_kv = 4;
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.heads_kv = 4");
  a.heads_kv = 12; /* more KV heads than query heads */
  expect(&a, ATTNGEN_STATUS_BAD_SHAPE, "args.heads_kv = 12");
  a.out = NULL; /* refused before any pointer check, also without pointers */
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_BAD_SHAPE);
  /* k and v span batch * seqlen_kv * heads_kv rows: v right after half of k, out right
   * after that v overlap with dense K/V but not with one KV head */
  const size_t t = (size_t)2 * 2 * 8 * 128 * 2;
  a = valid_args();
  a.v = (const unsigned char *)a.k + t / 2;
  a.out = (unsigned char *)a.k + t;
  expect(&a, ATTNGEN_STATUS_ALIASING, "args.v");
  a.heads_kv = 1;
  expect(&a, ATTNGEN_STATUS_OK, NULL);
  /* the per-batch size limit counts KV heads */
  a = valid_args();
  a.heads = 64;
  a.heads_kv = 8;
  a.seqlen_kv = 1 << 17; /* 2^17 * 8 * 256 = 2^28: fits where 64 heads would not */
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_OK);
  a.seqlen_kv = 1 << 20; /* 2^20 * 8 * 256 = 2^31 */
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_TOO_LARGE);
  assert_non_null(strstr(attngen_last_error(), "args.seqlen_kv * args.heads_kv"));
}

static void test_dispatch_bad_layout_rounding_scale(void **state) {
  attngen_fwd_args a = valid_args();
  a.layout = (attngen_layout)7;
  expect(&a, ATTNGEN_STATUS_BAD_LAYOUT, "ATTNGEN_LAYOUT_BHSD");
  a = valid_args();
  a.rounding = (attngen_rounding)-1;
  expect(&a, ATTNGEN_STATUS_BAD_ROUNDING, "ATTNGEN_ROUND_RTZ");
  a = valid_args();
  a.softmax_scale = NAN;
  expect(&a, ATTNGEN_STATUS_BAD_SCALE, "args.softmax_scale");
  a.softmax_scale = INFINITY;
  expect(&a, ATTNGEN_STATUS_BAD_SCALE, "args.softmax_scale");
  a.softmax_scale = -0.5f; /* any finite value is allowed */
  expect(&a, ATTNGEN_STATUS_OK, NULL);
}

static void test_dispatch_explain_skips_pointer_checks(void **state) {
  attngen_fwd_args a = valid_args();
  a.q = a.k = a.v = NULL;
  a.out = NULL;
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_OK);
  a.head_dim = 96;
  assert_int_equal(attngen__check_args(&a, 0), ATTNGEN_STATUS_UNSUPPORTED_HEAD_DIM);
}

/* ---- selection ----------------------------------------------------------------------------- */

/* A made-up gfx942 default set: q2/q3 x off/tail for bshd rtne, plus one bhsd rtz. */
static const attngen__variant_desc gfx_set[] = {
  {"g_q2_off", ATTNGEN__TARGET_GFX942, 0, 0, 2, 64, 8, 0, 0, 512, 128, 32768, 64},
  {"g_q2_tail", ATTNGEN__TARGET_GFX942, 0, 0, 2, 64, 8, 1, 0, 512, 128, 32768, 64},
  {"g_q3_off", ATTNGEN__TARGET_GFX942, 0, 0, 3, 64, 8, 0, 0, 512, 192, 32768, 64},
  {"g_q3_tail", ATTNGEN__TARGET_GFX942, 0, 0, 3, 64, 8, 1, 0, 512, 192, 32768, 64},
  {"g_bhsd_rtz", ATTNGEN__TARGET_GFX942, 1, 2, 2, 64, 8, 0, 0, 512, 128, 32768, 64},
};

static const attngen__variant_desc sm90_set[] = {
  {"s_w4_kv64", ATTNGEN__TARGET_SM90, 0, 0, 1, 64, 4, 0, 1, 128, 64, 65536, 64},
  {"s_w8_kv64", ATTNGEN__TARGET_SM90, 0, 0, 1, 64, 8, 0, 1, 256, 128, 98304, 64},
  {"s_w4_kv32", ATTNGEN__TARGET_SM90, 0, 0, 1, 32, 4, 0, 1, 128, 64, 49152, 64},
};

static int describe_calls;

/* Stands in for the generator: knows one extra name. */
static int fake_describe(void *user, const char *name, attngen__variant_desc *out,
                         const char **source, char **error) {
  describe_calls++;
  if (strcmp(name, "g_extra_kv32") == 0) {
    attngen__variant_desc d = {name, ATTNGEN__TARGET_GFX942, 0, 0, 2, 32, 8, 0, 0, 512, 128, 16384, 32};
    *out = d;
    *source = user; /* the fake generator's source: the input's describe_user */
    return 0;
  }
  *error = strdup("unknown variant (fake generator)");
  return 1;
}

static attngen__dispatch_input gfx_input(int b, int h, int sq, int skv, int cus) {
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_GFX942;
  in.compute_units = cus;
  attngen__shape s = {b, h, sq, skv, 0, 0};
  in.shape = s;
  in.candidates = gfx_set;
  in.count = sizeof gfx_set / sizeof gfx_set[0];
  in.split_supported = 1;
  in.describe = fake_describe;
  return in;
}

/* Selects into *r (desc.name points into r itself, so results are not copied around). */
static void pick(const attngen__dispatch_input *in, attngen__dispatch_result *r) {
  attngen_status st = attngen__dispatch_select(in, r);
  if (st != ATTNGEN_STATUS_OK) print_message("%s\n", attngen_last_error());
  assert_int_equal(st, ATTNGEN_STATUS_OK);
}

static void test_dispatch_forced_in_set(void **state) {
  attngen__dispatch_input in = gfx_input(1, 1, 64, 64, 304);
  in.forced = "g_q3_tail";
  in.forced_by = "args.variant";
  in.tuned = "g_q2_off"; /* forcing wins over the database */
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q3_tail");
  assert_string_equal(r.desc.name, "g_q3_tail");
  assert_int_equal(r.rule, ATTNGEN_RULE_FORCED);
  assert_true(r.in_default_set);
  assert_non_null(strstr(r.reason, "args.variant"));
}

static void test_dispatch_forced_outside_set_uses_generator(void **state) {
  attngen__dispatch_input in = gfx_input(1, 1, 64, 64, 304);
  in.forced = "g_extra_kv32";
  in.forced_by = "ATTNGEN_VARIANT";
  static char source[] = "// g_extra_kv32's source";
  in.describe_user = source;
  describe_calls = 0;
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_int_equal(describe_calls, 1);
  assert_string_equal(r.name, "g_extra_kv32");
  assert_int_equal(r.desc.kv_tile, 32);
  assert_false(r.in_default_set);
  assert_int_equal(r.rule, ATTNGEN_RULE_FORCED);
  /* the describer's source rides in the result (the plan carries it to the JIT) */
  assert_ptr_equal(r.source, source);
  /* a variant of the candidates has none: the JIT generates it from the name */
  in.forced = "g_q3_tail";
  pick(&in, &r);
  assert_true(r.in_default_set);
  assert_null(r.source);
  /* a tuning entry outside the set is described too and carries its source */
  in.forced = NULL;
  in.tuned = "g_extra_kv32";
  pick(&in, &r);
  assert_int_equal(r.rule, ATTNGEN_RULE_TUNING);
  assert_ptr_equal(r.source, source);
}

static void test_dispatch_forced_mismatch_is_an_error(void **state) {
  attngen__dispatch_input in = gfx_input(1, 1, 64, 64, 304);
  attngen__dispatch_result r;
  in.forced = "g_bhsd_rtz";
  in.forced_by = "args.variant";
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "layout bhsd"));
  in.forced = "s_w4_kv64"; /* an sm90 name on a gfx942 device */
  in.candidates = sm90_set;
  in.count = 3;
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "sm90 variant"));
  in = gfx_input(1, 1, 64, 64, 304);
  in.forced = "no_such_variant";
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "fake generator"));
  in = gfx_input(1, 1, 64, 64, 304);
  in.split_supported = 0;
  in.forced = "g_q2_tail";
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "split"));
}

/* args.skip pairs with skip=on variants only, and a dense call with skip=off only: a set
 * with one skip variant gives it to skip calls (and never to dense ones); without one, a skip
 * call is NO_VARIANT naming args.skip; a forced variant of the other kind is refused. */
static void test_dispatch_skip_pairing(void **state) {
  attngen__variant_desc set[3] = {gfx_set[0], gfx_set[2], gfx_set[2]};
  set[2].name = "g_q3_skip";
  set[2].skip = ATTNGEN__SKIP_ON;
  attngen__dispatch_input in = gfx_input(1, 4, 4096, 4096, 304);
  in.candidates = set;
  in.count = 3;
  attngen__dispatch_result r;
  in.skip = 1;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q3_skip");
  in.skip = 0;
  for (int cus = 1; cus < 400; cus += 57) {
    in.compute_units = cus;
    pick(&in, &r);
    assert_int_equal(r.desc.skip, ATTNGEN__SKIP_OFF);
  }
  in.forced = "g_q3_skip";
  in.forced_by = "args.variant";
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "it skips tiles (skip on) and args.skip is NULL"));
  in.skip = 1;
  in.forced = "g_q2_off";
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.skip is set"));
  in.forced = NULL;
  in.count = 2; /* no skip variant */
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.skip: no embedded gfx942 variant skips"));
}

static void test_dispatch_tuning_entry_used_and_bad_one_ignored(void **state) {
  attngen__dispatch_input in = gfx_input(8, 16, 4096, 4096, 304);
  in.tuned = "g_q2_tail";
  in.tuned_why = "exact entry";
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_tail");
  assert_int_equal(r.rule, ATTNGEN_RULE_TUNING);
  assert_non_null(strstr(r.reason, "exact entry"));
  in.tuned = "g_bhsd_rtz"; /* for another layout: ignored, heuristic decides */
  pick(&in, &r);
  assert_int_equal(r.rule, ATTNGEN_RULE_HEURISTIC);
  assert_non_null(strstr(r.reason, "tuning entry g_bhsd_rtz ignored"));
}

/* 304 CUs, one 512-thread block per CU. B*H*ceil(Sq/192) blocks with q3. */
static void test_dispatch_q_tiles_rule(void **state) {
  /* 16 * 16 * ceil(8192/192)=43 -> 11008 blocks >> 608: the larger tile. */
  attngen__dispatch_input in = gfx_input(16, 16, 8192, 8192, 304);
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_int_equal(r.desc.q_tiles, 3);
  assert_int_equal(r.rule, ATTNGEN_RULE_HEURISTIC);
  assert_non_null(strstr(r.reason, "q-tiles-fill"));
  /* 1 * 4 * ceil(1024/192) = 24 blocks < 608: the smaller tile keeps more blocks. */
  in = gfx_input(1, 4, 1024, 1024, 304);
  pick(&in, &r);
  assert_int_equal(r.desc.q_tiles, 2);
}

static void test_dispatch_kv_split_rule(void **state) {
  /* 1 * 4 * ceil(1024/128) = 32 blocks on 304 CUs: one round, 11% full, long KV -> tail. */
  attngen__dispatch_input in = gfx_input(1, 4, 1024, 4096, 304);
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_tail");
  assert_non_null(strstr(r.reason, "kv-split-tail"));
  /* Same grid with a short KV range (< 4 tiles): nothing worth splitting. */
  in = gfx_input(1, 4, 1024, 128, 304);
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_off");
  /* Exactly one full round: q3 would give 2 * ceil(19456/192) = 204 blocks < 2 x 304, so
   * q2 stays, and its 2 * 152 = 304 blocks fill the 304 CUs: no split. */
  in = gfx_input(1, 2, 19456, 8192, 304);
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_off");
  /* Without split support the tail variants are not candidates at all. */
  in = gfx_input(1, 4, 1024, 4096, 304);
  in.split_supported = 0;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_off");
  /* The CU count comes from the device: on 8 CUs the q3 grid (4 * 6 = 24 blocks) fills
   * 3 full rounds: q3, no split. */
  in = gfx_input(1, 4, 1024, 4096, 8);
  pick(&in, &r);
  assert_string_equal(r.name, "g_q3_off");
}

/* Skip variants split only when the launch's plan, parts of whole list words (32 tiles),
 * does: (1,4,1024,4096) at kv_tile 64 on 304 CUs (64 tiles: 2 parts of 32) takes the tail
 * skip variant; (1,4,1024,2048) (32 tiles: one part) the nosplit one, where the dense
 * variants split. */
static void test_dispatch_kv_split_skip_aligned(void **state) {
  (void)state;
  attngen__variant_desc set[4] = {gfx_set[0], gfx_set[1], gfx_set[0], gfx_set[1]};
  set[2].name = "g_q2_off_skip";
  set[2].skip = ATTNGEN__SKIP_ON;
  set[3].name = "g_q2_tail_skip";
  set[3].skip = ATTNGEN__SKIP_ON;
  attngen__dispatch_input in = gfx_input(1, 4, 1024, 4096, 304);
  in.candidates = set;
  in.count = 4;
  in.skip = 1;
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_tail_skip");
  in.shape.seqlen_kv = 2048;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_off_skip");
  assert_non_null(strstr(r.reason, "whole skip-list words"));
  in.skip = 0;
  pick(&in, &r);
  assert_string_equal(r.name, "g_q2_tail");
}

static void test_dispatch_sm90_rules(void **state) {
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_SM90;
  in.compute_units = 132;
  attngen__shape s = {8, 16, 4096, 4096, 0, 0};
  in.shape = s;
  in.candidates = sm90_set;
  in.count = 3;
  /* 8*16*32 = 4096 blocks of 128 rows >= 2 x slots: 8 warps; KV long: kv_tile 64. */
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_string_equal(r.name, "s_w8_kv64");
  /* Tiny grid: 4 warps; Skv 20 < 64: the 32-key tile covers it. */
  attngen__shape t = {1, 1, 64, 20, 0, 0};
  in.shape = t;
  pick(&in, &r);
  assert_string_equal(r.name, "s_w4_kv32");
  assert_non_null(strstr(r.reason, "kv-tile-cover"));
}

/* A variant serves only calls with its head_dim: the d64 candidates for head_dim 64 calls,
 * the others (hand-made descriptors, head_dim 0 = 128) for head_dim 128; a target without a
 * variant of the call's head_dim: NO_VARIANT naming args.head_dim; a forced variant of the
 * other head_dim: NO_VARIANT saying both. */
static void test_dispatch_head_dim_pairing(void **state) {
  static attngen__variant_desc wg[3] = {
    {"s_wg_kv128", ATTNGEN__TARGET_SM90, 0, 0, 1, 128, 12, 0, 2, 384, 128, 230504, 128},
    {"s_wg_d64_kv128", ATTNGEN__TARGET_SM90, 0, 0, 1, 128, 12, 0, 2, 384, 128, 120000, 128},
    {"s_wg_d64_kv176", ATTNGEN__TARGET_SM90, 0, 0, 1, 176, 12, 0, 2, 384, 128, 200000, 176},
  };
  wg[1].head_dim = wg[2].head_dim = 64;
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_SM90;
  in.compute_units = 132;
  in.candidates = wg;
  in.count = 3;
  in.describe = fake_describe;
  attngen__dispatch_result r;
  attngen__shape s = {2, 24, 8192, 8192, 0, 0};
  in.shape = s;
  pick(&in, &r);
  assert_string_equal(r.name, "s_wg_kv128");
  in.shape.head_dim = 64;
  pick(&in, &r);
  assert_non_null(strstr(r.name, "_d64_"));
  in.forced = "s_wg_kv128";
  in.forced_by = "args.variant";
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "head_dim 128 and args.head_dim is 64"));
  in.forced = NULL;
  in.count = 1; /* only the 128 kernel */
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "args.head_dim = 64"));
}

/* head_dim 256 on the default set's sm90 variants (the manifest): a head_dim 256 call gets a
 * d256 kernel of its layout, mode and mask; the kv-tile model's head_dim-256 table (64: T 102;
 * 80: T 126, J 149, run M75) takes the 64-key tile up to about 16k keys (8192: 128 x 102 =
 * 13056 < 103 x 126 + 149 = 13127; 1024 and 100 keys by far) and 80 at 16384 (26112 > 25979);
 * the causal mask has the 64-key kernel only; a grouped-query call the dense one. */
static void test_dispatch_sm90_head_dim_256(void **state) {
  (void)state;
  static attngen__variant_desc sm90[256];
  size_t n = 0;
  for (size_t i = 0; i < attngen__manifest_count; ++i)
    if (attngen__manifest[i].target == ATTNGEN__TARGET_SM90 && n < 256)
      sm90[n++] = attngen__manifest[i];
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_SM90;
  in.compute_units = 132;
  in.candidates = sm90;
  in.count = n;
  in.describe = fake_describe;
  static const struct {
    attngen__shape s;
    int causal;
    const char *want;
  } cases[] = {
      {{1, 16, 8192, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 256}, 0,
       "attn_fwd_d256_bshd_rtne_q1_kv64_w12_nosplit_tma_wgmma_sm90"},
      {{8, 16, 1024, 1024, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 256}, 0,
       "attn_fwd_d256_bshd_rtne_q1_kv64_w12_nosplit_tma_wgmma_sm90"},
      {{1, 16, 16384, 16384, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNA, 8, 256}, 0,
       "attn_fwd_d256_bshd_rtna_q1_kv80_w12_nosplit_tma_wgmma_sm90"},
      {{4, 8, 100, 100, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ, 0, 256}, 0,
       "attn_fwd_d256_bhsd_rtz_q1_kv64_w12_nosplit_tma_wgmma_sm90"},
      {{2, 8, 4096, 4096, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ, 0, 256}, 1,
       "attn_fwd_d256_bhsd_rtz_q1_kv64_w12_nosplit_tma_causal_wgmma_sm90"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    in.shape = cases[i].s;
    in.causal = cases[i].causal;
    attngen__dispatch_result r;
    pick(&in, &r);
    assert_string_equal(r.name, cases[i].want);
    assert_int_equal(attngen__desc_head_dim(&r.desc), 256);
  }
}

/* head_dim-64 causal calls (rule waves-fill, causal form): three consumer warpgroups (192-row
 * blocks) where their modelled time (row-tiles past the diagonal and the last block's padding,
 * and the longest job when the jobs do not fill the device) is less, two (128 rows) otherwise.
 * H200 run M65: w16 0.86-0.92 of w12's time on the long shapes, 1.05 on (8,16,1024), 1.17 on
 * (1,8,2048). Shapes nobody benchmarked included (cross-attention, one head). */
static void test_dispatch_sm90_causal_waves(void **state) {
  (void)state;
  static attngen__variant_desc sm90[256];
  size_t n = 0;
  for (size_t i = 0; i < attngen__manifest_count; ++i)
    if (attngen__manifest[i].target == ATTNGEN__TARGET_SM90 && n < 256)
      sm90[n++] = attngen__manifest[i];
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_SM90;
  in.compute_units = 132;
  in.candidates = sm90;
  in.count = n;
  in.describe = fake_describe;
  in.split_supported = 1;
  in.causal = 1;
  static const struct {
    attngen__shape s;
    int waves;
  } cases[] = {
      {{4, 16, 4096, 4096, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 64}, 16},
      {{1, 32, 8192, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 8, 64}, 16},
      {{2, 24, 4429, 4429, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTNA, 0, 64}, 16},
      {{8, 16, 1024, 1024, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 64}, 12},
      {{1, 8, 2048, 2048, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTZ, 0, 64}, 12},
      {{1, 1, 16384, 16384, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 64}, 12},
      {{1, 16, 4096, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 64}, 16},
      {{4, 16, 1536, 1536, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTNE, 0, 64}, 16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    in.shape = cases[i].s;
    attngen__dispatch_result r;
    pick(&in, &r);
    if (r.desc.waves != cases[i].waves) print_error("case %zu: %s\n  %s\n", i, r.name, r.reason);
    assert_int_equal(r.desc.waves, cases[i].waves);
    assert_int_equal(r.desc.mask, ATTNGEN__MASK_CAUSAL);
    assert_int_equal(attngen__desc_head_dim(&r.desc), 64);
    assert_non_null(strstr(r.reason, "modelled causal time"));
  }
  /* head_dim 128 has one causal waves value: the rule does not model it */
  in.shape = (attngen__shape){4, 16, 4096, 4096, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0};
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_int_equal(r.desc.waves, 12);
  assert_null(strstr(r.reason, "modelled causal time"));
  /* dense head_dim 64 keeps the fill rule */
  in.causal = 0;
  in.shape = (attngen__shape){4, 16, 4096, 4096, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 64};
  pick(&in, &r);
  assert_int_equal(r.desc.waves, 16);
  assert_null(strstr(r.reason, "modelled causal time"));
}

/* sm90 tail split (rule kv-split-plan): without a tuning entry the tail variant runs exactly
 * when the split plan (split_plan.h) splits the call on the device's SMs; the reason names the
 * plan. Shapes nobody benchmarked included. */
static void test_dispatch_sm90_tail_split_follows_the_plan(void **state) {
  (void)state;
  static attngen__variant_desc sm90[256];
  size_t n = 0;
  for (size_t i = 0; i < attngen__manifest_count; ++i)
    if (attngen__manifest[i].target == ATTNGEN__TARGET_SM90 && n < 256)
      sm90[n++] = attngen__manifest[i];
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_SM90;
  in.compute_units = 132;
  in.candidates = sm90;
  in.count = n;
  in.describe = fake_describe;
  in.split_supported = 1;
  static const struct {
    attngen__shape s;
    int causal, cus;
    const char *want, *why;
  } cases[] = {
      /* Flux, 4 heads: 144 q-jobs, the last 12 in 9 parts of 512 keys */
      {{1, 4, 4608, 4608, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0}, 0, 132,
       "attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90",
       "kv-split-plan: kv_split=tail: 144 q-jobs on 132 SMs = 2 round(s), last 12 of 132: "
       "split_first 132, 9 parts of 512 keys"},
      /* 9000 keys take the 176-key tile: 142 q-jobs, 13 parts of 704 keys */
      {{1, 2, 9000, 9000, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ, 0, 0}, 0, 132,
       "attn_fwd_d128_bhsd_rtz_q1_kv176_w12_tail_tma_wgmma_sm90", "13 parts of 704 keys"},
      /* the last round 108 of 132: the plan does not split (3000 keys: the 144-key tile);
       * the tail variant runs every job whole (run M16: faster than the nosplit twin) */
      {{3, 7, 3000, 3000, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNA, 0, 0}, 0, 132,
       "attn_fwd_d128_bshd_rtna_q1_kv144_w12_tail_tma_wgmma_sm90",
       "kv-split-plan: kv_split=tail: 504 q-jobs on 132 SMs = 4 round(s), last 108 of 132: "
       "the plan does not split"},
      /* (1,2,3000): 48 q-jobs in one round, 2 parts of 11 tiles (1584 keys) */
      {{1, 2, 3000, 3000, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTNE, 0, 0}, 0, 132,
       "attn_fwd_d128_bhsd_rtne_q1_kv144_w12_tail_tma_wgmma_sm90",
       "split_first 0, 2 parts of 1584 keys"},
      {{1, 24, 4096, 4096, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0}, 0, 132,
       "attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90", "the plan does not split"},
      {{1, 3, 32760, 32760, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0}, 0, 132,
       "attn_fwd_d128_bshd_rtne_q1_kv176_w12_nosplit_tma_wgmma_sm90", "768 q-jobs"},
      /* 187 tiles per job: long jobs keep the nosplit kernel; the rule's bound, 32 tiles */
      {{1, 3, 32760, 32760, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0}, 0, 132,
       "attn_fwd_d128_bshd_rtne_q1_kv176_w12_nosplit_tma_wgmma_sm90", "the plan does not split"},
      {{1, 24, 4096, 4096, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ, 0, 0}, 0, 132,
       "attn_fwd_d128_bhsd_rtz_q1_kv128_w12_tail_tma_wgmma_sm90", "jobs of 32 KV tiles (<= 32)"},
      /* head_dim 64: the nosplit kernel (run M16: the tail variant 1.006-1.015x its time) */
      {{16, 12, 1024, 1024, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 64}, 0, 132,
       "attn_fwd_d64_bshd_rtne_q1_kv128_w16_nosplit_tma_wgmma_sm90", "the plan does not split"},
      /* the same Flux shape on an H100 PCIe (114 SMs): 144 = 114 + 30, 114 / 30 = 3 parts */
      {{1, 4, 4608, 4608, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0}, 0, 114,
       "attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90", "3 parts of 1536 keys"},
      /* short KV: fewer than 8 tiles, no split (the tail variant, every job whole) */
      {{1, 4, 4608, 512, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0}, 0, 132,
       "attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90", "does not split"},
      /* head_dim 64 (two consumers: 144 q-jobs) and 256 (the 64-key tile: 72 tiles) */
      {{1, 4, 4608, 4608, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 64}, 0, 132,
       "attn_fwd_d64_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90", "split_first 132"},
      {{1, 4, 4608, 4608, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTNE, 0, 256}, 0, 132,
       "attn_fwd_d256_bhsd_rtne_q1_kv64_w12_tail_tma_wgmma_sm90",
       "split_first 132, 11 parts of 448 keys"},
      /* the causal mask has no split variant */
      {{1, 4, 4608, 4608, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 0, 0}, 1, 132,
       "attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_causal_wgmma_sm90", ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    in.shape = cases[i].s;
    in.causal = cases[i].causal;
    in.compute_units = cases[i].cus;
    attngen__dispatch_result r;
    pick(&in, &r);
    if (strcmp(r.name, cases[i].want) != 0 || !strstr(r.reason, cases[i].why))
      print_error("case %zu: %s\n  %s\n", i, r.name, r.reason);
    assert_string_equal(r.name, cases[i].want);
    assert_non_null(strstr(r.reason, cases[i].why));
  }
  /* a packed batch never takes the split variants */
  in.shape = cases[0].s;
  in.causal = 0;
  in.compute_units = 132;
  in.varlen = 1;
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_string_equal(r.name, "attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_wgmma_sm90");
}

/* Packed batches run only on variants with packed-batch code (the descriptor's packed):
 * the bshd variants without the tail split or skipping, at every head dim (sm90 at 256: the
 * 64-key ones); a forced variant without the code is NO_VARIANT saying so. The manifest's
 * own values. */
static void test_dispatch_packed_head_dims(void **state) {
  (void)state;
  static attngen__variant_desc set[512];
  size_t n = 0;
  int packed_gfx[3] = {0, 0, 0}, packed_sm90[3] = {0, 0, 0};
  for (size_t i = 0; i < attngen__manifest_count && n < 512; ++i) {
    const attngen__variant_desc *d = &attngen__manifest[i];
    set[n++] = *d;
    const int hd = attngen__desc_head_dim(d), j = attngen__head_dim_slot(hd);
    /* packed exactly where the generator says it is built */
    const int want = d->layout == ATTNGEN__LAYOUT_BSHD && d->kv_split != ATTNGEN__SPLIT_TAIL &&
                     d->skip != ATTNGEN__SKIP_ON &&
                     (d->target == ATTNGEN__TARGET_GFX942 || hd != 256 || d->kv_tile == 64);
    if (d->packed != want) print_error("%s: packed %d\n", d->name, d->packed);
    assert_int_equal(d->packed, want);
    if (d->target == ATTNGEN__TARGET_GFX942) packed_gfx[j] += d->packed;
    if (d->target == ATTNGEN__TARGET_SM90) packed_sm90[j] += d->packed;
  }
  for (int j = 0; j < 3; ++j) assert_true(packed_gfx[j] >= 6); /* 3 roundings x dense, causal */
  for (int j = 0; j < 3; ++j) assert_true(packed_sm90[j] >= 6);
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.candidates = set;
  in.count = n;
  in.describe = fake_describe;
  in.split_supported = 1;
  in.varlen = 1;
  static const int hds[3] = {64, 128, 256};
  for (int t = 0; t < 2; ++t)
    for (int j = 0; j < 3; ++j)
      for (int causal = 0; causal < 2; ++causal) {
        in.target = t ? ATTNGEN__TARGET_SM90 : ATTNGEN__TARGET_GFX942;
        in.compute_units = t ? 132 : 304;
        in.causal = causal;
        attngen__shape s = {3, 16, 4096, 4096, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNA, 0, hds[j]};
        in.shape = s;
        attngen__dispatch_result r;
        const attngen_status st = attngen__dispatch_select(&in, &r);
        if (st != ATTNGEN_STATUS_OK) print_error("%s\n", attngen_last_error());
        assert_int_equal(st, ATTNGEN_STATUS_OK);
        assert_int_equal(r.desc.packed, 1);
        assert_int_equal(attngen__desc_head_dim(&r.desc), hds[j]);
        assert_int_equal(r.desc.mask == ATTNGEN__MASK_CAUSAL, causal);
      }
  /* a forced variant without the code: named as such */
  in.target = ATTNGEN__TARGET_SM90;
  in.causal = 0;
  /* head_dim 256 over 16384 keys: the kv-tile model takes 80 keys for a dense call, a packed
   * one the 64-key kernel (the 80-key ones are built without the packed code) */
  in.shape.head_dim = 256;
  in.shape.seqlen_q = in.shape.seqlen_kv = 16384;
  {
    attngen__dispatch_result r;
    pick(&in, &r);
    assert_int_equal(r.desc.kv_tile, 64);
    in.varlen = 0;
    pick(&in, &r);
    assert_int_equal(r.desc.kv_tile, 80);
    in.varlen = 1;
  }
  in.forced = "attn_fwd_d256_bshd_rtna_q1_kv80_w12_nosplit_tma_wgmma_sm90";
  in.forced_by = "args.variant";
  attngen__dispatch_result r;
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "no packed-batch code"));
  /* and a dense call still takes it */
  in.varlen = 0;
  pick(&in, &r);
  assert_string_equal(r.name, in.forced);
}

/* A wgmma variant in the set wins on sm90 (measured 3.6x mma.sync), whatever the shape. */
static void test_dispatch_sm90_prefers_wgmma(void **state) {
  static const attngen__variant_desc with_wgmma[] = {
    {"s_w4_kv64", ATTNGEN__TARGET_SM90, 0, 0, 1, 64, 4, 0, 1, 128, 64, 65536, 64},
    {"s_wg_kv128", ATTNGEN__TARGET_SM90, 0, 0, 1, 128, 12, 0, 2, 384, 128, 230504, 128},
  };
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_SM90;
  in.compute_units = 132;
  attngen__shape s = {2, 24, 8192, 8192, 0, 0};
  in.shape = s;
  in.candidates = with_wgmma;
  in.count = 2;
  in.describe = fake_describe;
  attngen__dispatch_result r;
  pick(&in, &r);
  assert_string_equal(r.name, "s_wg_kv128");
  assert_non_null(strstr(r.reason, "impl-wgmma"));
  attngen__shape tiny = {1, 1, 1, 1, 0, 0};
  in.shape = tiny;
  pick(&in, &r);
  assert_string_equal(r.name, "s_wg_kv128");
  in.count = 1; /* without it: the mma kernel */
  pick(&in, &r);
  assert_string_equal(r.name, "s_w4_kv64");
}

/* wgmma: the tile with the least measured cost per job, tiles x T + J (T: 64: 102, 128: 166,
 * 144: 189, 176: 223; J: 176: 41, else 0): 176 on long KV (47 x 223 + 41 < 64 x 166) and for
 * 700 keys (4 x 176 beats 5 x 144 and 6 x 128), 128 for 512 and 2048 keys, 2 x 144 for 257
 * keys, 128 for 100 and 384 keys, 64 for 64 keys. */
static void test_dispatch_sm90_wgmma_kv_tile(void **state) {
  static const attngen__variant_desc wg[] = {
    {"s_wg_kv64", ATTNGEN__TARGET_SM90, 0, 0, 1, 64, 12, 0, 2, 384, 128, 230504, 64},
    {"s_wg_kv128", ATTNGEN__TARGET_SM90, 0, 0, 1, 128, 12, 0, 2, 384, 128, 230504, 128},
    {"s_wg_kv144", ATTNGEN__TARGET_SM90, 0, 0, 1, 144, 12, 0, 2, 384, 128, 214088, 144},
    {"s_wg_kv176", ATTNGEN__TARGET_SM90, 0, 0, 1, 176, 12, 0, 2, 384, 128, 214088, 176},
  };
  attngen__dispatch_input in;
  memset(&in, 0, sizeof in);
  in.target = ATTNGEN__TARGET_SM90;
  in.compute_units = 132;
  in.candidates = wg;
  in.count = 4;
  in.describe = fake_describe;
  attngen__dispatch_result r;
  static const struct {
    int skv;
    const char *want;
  } cases[] = {{8192, "s_wg_kv176"}, {700, "s_wg_kv176"}, {2048, "s_wg_kv128"},
               {512, "s_wg_kv128"}, {257, "s_wg_kv144"}, {100, "s_wg_kv128"},
               {384, "s_wg_kv128"}, {64, "s_wg_kv64"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    attngen__shape sh = {2, 24, 4096, cases[i].skv, 0, 0};
    in.shape = sh;
    pick(&in, &r);
    assert_string_equal(r.name, cases[i].want);
    assert_non_null(strstr(r.reason, "wgmma-kv-tile"));
  }
}

static void test_dispatch_no_candidate_for_layout(void **state) {
  attngen__dispatch_input in = gfx_input(1, 1, 64, 64, 304);
  in.shape.layout = 1;
  in.shape.rounding = 1; /* bhsd rtna: not in the fake set */
  attngen__dispatch_result r;
  assert_int_equal(attngen__dispatch_select(&in, &r), ATTNGEN_STATUS_NO_VARIANT);
  assert_non_null(strstr(attngen_last_error(), "layout bhsd with rounding rtna"));
  in.shape.rounding = 2; /* bhsd rtz exists: the only candidate */
  pick(&in, &r);
  assert_string_equal(r.name, "g_bhsd_rtz");
}

static void test_dispatch_rule_table_is_well_formed(void **state) {
  assert_true(attngen__heuristic_rule_count >= 3);
  attngen__variant_desc d = gfx_set[0];
  for (size_t i = 0; i < attngen__heuristic_rule_count; i++) {
    const attngen__heuristic_rule *r = &attngen__heuristic_rules[i];
    assert_non_null(r->name);
    assert_non_null(r->prefer);
    assert_true(strlen(r->basis) > 20);
    assert_true(attngen__axis_value(&d, r->axis) >= 0);
    for (size_t j = 0; j < i; j++) /* one rule per axis and target */
      assert_false(strcmp(attngen__heuristic_rules[j].axis, r->axis) == 0 &&
                   attngen__heuristic_rules[j].target == r->target);
  }
}

/* Rules name their axis by the generated field list: every field reads back its value (the
 * strcmp chain it replaced knew five of the sixteen; "load" read -1). */
static void test_dispatch_axis_value_reads_every_field(void **state) {
  attngen__variant_desc d = gfx_set[0];
  int k = 3;
#define SET_FIELD(f) d.f = k++;
  ATTNGEN__VARIANT_DESC_FIELDS(SET_FIELD)
#undef SET_FIELD
  k = 3;
#define CHECK_FIELD(f) assert_int_equal(attngen__axis_value(&d, #f), k++);
  ATTNGEN__VARIANT_DESC_FIELDS(CHECK_FIELD)
#undef CHECK_FIELD
  assert_int_equal(attngen__axis_value(&d, "load"), d.load);
  assert_int_equal(attngen__axis_value(&d, "no_such_axis"), -1);
}

static void test_dispatch_occupancy_model(void **state) {
  /* gfx942: one 8-wave block per CU; sm90: shared memory bounds blocks per SM. */
  assert_int_equal(attngen__device_slots(&gfx_set[0], 304), 304);
  assert_int_equal(attngen__device_slots(&sm90_set[0], 132), 132 * 3);  /* 228K / 64K */
  assert_int_equal(attngen__device_slots(&sm90_set[1], 132), 132 * 2);  /* 228K / 96K */
  attngen__shape s = {2, 3, 129, 0, 0, 0};
  assert_int_equal(attngen__q_jobs(&gfx_set[0], &s), 2 * 3 * 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dispatch_valid_args_pass),
    cmocka_unit_test(test_dispatch_null_pointers),
    cmocka_unit_test(test_dispatch_head_dim),
    cmocka_unit_test(test_dispatch_head_dim_pairing),
    cmocka_unit_test(test_dispatch_sm90_head_dim_256),
    cmocka_unit_test(test_dispatch_sm90_tail_split_follows_the_plan),
    cmocka_unit_test(test_dispatch_sm90_causal_waves),
    cmocka_unit_test(test_dispatch_bad_sizes),
    cmocka_unit_test(test_dispatch_too_large),
    cmocka_unit_test(test_dispatch_misaligned),
    cmocka_unit_test(test_dispatch_aliasing),
    cmocka_unit_test(test_dispatch_kv_lengths),
    cmocka_unit_test(test_dispatch_packed_args),
    cmocka_unit_test(test_dispatch_packed_head_dims),
    cmocka_unit_test(test_dispatch_check_cu_seqlens),
    cmocka_unit_test(test_dispatch_causal),
    cmocka_unit_test(test_dispatch_skip_pairing),
    cmocka_unit_test(test_dispatch_heads_kv),
    cmocka_unit_test(test_dispatch_bad_layout_rounding_scale),
    cmocka_unit_test(test_dispatch_explain_skips_pointer_checks),
    cmocka_unit_test(test_dispatch_forced_in_set),
    cmocka_unit_test(test_dispatch_forced_outside_set_uses_generator),
    cmocka_unit_test(test_dispatch_forced_mismatch_is_an_error),
    cmocka_unit_test(test_dispatch_tuning_entry_used_and_bad_one_ignored),
    cmocka_unit_test(test_dispatch_q_tiles_rule),
    cmocka_unit_test(test_dispatch_kv_split_rule),
    cmocka_unit_test(test_dispatch_kv_split_skip_aligned),
    cmocka_unit_test(test_dispatch_sm90_rules),
    cmocka_unit_test(test_dispatch_no_candidate_for_layout),
    cmocka_unit_test(test_dispatch_sm90_prefers_wgmma),
    cmocka_unit_test(test_dispatch_sm90_wgmma_kv_tile),
    cmocka_unit_test(test_dispatch_rule_table_is_well_formed),
    cmocka_unit_test(test_dispatch_axis_value_reads_every_field),
    cmocka_unit_test(test_dispatch_occupancy_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
