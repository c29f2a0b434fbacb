/* test_generator.c: the generator: variant names, validity rules, the template language
 * (expressions, statements, includes, errors, #line), deterministic output, CLI exit codes
 * and the drift check of the committed generated/ tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "attngen_internal.h"

/* Evaluates Lua in a generator state; fails the test on a Lua error. Caller frees. */
static char *eval_ok(const char *code) {
  char *out = NULL, *err = NULL;
  int rc = attngen__gen_eval(code, &out, &err);
  if (rc != 0) print_error("lua error: %s\n", err ? err : "?");
  assert_int_equal(rc, 0);
  free(err);
  return out;
}

static void assert_eval(const char *code, const char *expected) {
  char *out = eval_ok(code);
  if (strcmp(out, expected) != 0) print_error("got:\n%s\nexpected:\n%s\n", out, expected);
  assert_string_equal(out, expected);
  free(out);
}

static void assert_eval_contains(const char *code, const char *needle) {
  char *out = eval_ok(code);
  if (!strstr(out, needle)) print_error("'%s' not in:\n%s\n", needle, out);
  assert_non_null(strstr(out, needle));
  free(out);
}

static void test_generator_name_derivation(void **state) {
  (void)state;
  assert_eval("local c = require('config'); return c.name{layout='bshd', rounding='rtne', "
              "q_tiles=3, kv_tile=64, waves=8, kv_split='off', impl='mfma', target='gfx942'}",
              "attn_fwd_d128_bshd_rtne_q3_kv64_w8_nosplit_mfma_gfx942");
  assert_eval("local c = require('config'); return c.name{layout='bhsd', rounding='rtz', "
              "q_tiles=1, kv_tile=128, waves=4, kv_split='tail', impl='mma', target='sm90'}",
              "attn_fwd_d128_bhsd_rtz_q1_kv128_w4_tail_mma_sm90");
  /* parse is the inverse of name for every search-space variant of both targets */
  assert_eval("local c = require('config'); local n = 0\n"
              "for _, t in ipairs{'gfx942','sm90'} do for _, v in ipairs(c.search_variants(t)) do\n"
              "  local p = assert(c.parse(v.name)); assert(c.name(p) == v.name); n = n + 1 end end\n"
              "return n > 10", "true");
  assert_eval_contains("local c = require('config'); local v, e = c.parse('attn_fwd_d128_bshd_rtxx_q3_kv64_w8_nosplit_mfma_gfx942'); return e",
                       "unknown rounding 'rtxx' (allowed: rtne, rtna, rtz)");
  assert_eval_contains("local c = require('config'); local v, e = c.parse('attn_fwd_d128_bshd'); return e",
                       "has 2 axis tokens, expected 13");
  /* head_dim: the first token (d64, d128), 64 on the sm90 wgmma TMA kernel and on gfx942 */
  assert_eval("local c = require('config'); local v = {head_dim=64, layout='bshd', "
              "rounding='rtne', q_tiles=1, kv_tile=128, waves=12, kv_split='off', "
              "load='tma', impl='wgmma', target='sm90'}; assert(c.validate(v)); "
              "local p = assert(c.parse(c.name(v))); return c.name(v) .. ' ' .. p.head_dim",
              "attn_fwd_d64_bshd_rtne_q1_kv128_w12_nosplit_tma_wgmma_sm90 64");
  assert_eval("local c = require('config'); return tostring(c.validate{head_dim=64, "
              "layout='bshd', rounding='rtne', q_tiles=2, kv_tile=96, waves=8, "
              "kv_split='off', v_path='vt', impl='mfma', target='gfx942'})", "true");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=64, "
                       "layout='bshd', rounding='rtne', q_tiles=1, kv_tile=64, waves=4, "
                       "kv_split='off', impl='mma', target='sm90'}; return e",
                       "rule 'head-dim': head_dim=64 is built for target=sm90 impl=wgmma "
                       "load=tma and target=gfx942 only (allowed here: 128)");
  /* the gfx942 register budget depends on head_dim: q3 x kv96 fits at 64, not at 128;
   * q3 x kv128 spills at 64 */
  assert_eval("local c = require('config'); local v = {head_dim=64, layout='bshd', "
              "rounding='rtne', q_tiles=3, kv_tile=96, waves=8, kv_split='tail', v_path='vt', "
              "impl='mfma', target='gfx942'}; local ok64 = c.validate(v); v.head_dim = 128; "
              "local ok128, e = c.validate(v); return tostring(ok64) .. ' ' .. e",
              "true rule 'gfx942-vgpr-budget': q_tiles=3 with kv_tile=96 at head_dim=128 exceeds "
              "256 VGPRs (spills); q_tiles * kv_tile <= 192 at this head_dim");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=64, "
                       "layout='bshd', rounding='rtne', q_tiles=3, kv_tile=128, waves=8, "
                       "kv_split='off', v_path='vt', impl='mfma', target='gfx942'}; return e",
                       "q_tiles * kv_tile <= 288 at this head_dim");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=64, "
                       "layout='bshd', rounding='rtne', q_tiles=1, kv_tile=128, waves=12, "
                       "kv_split='off', load='thread', impl='wgmma', target='sm90'}; return e",
                       "rule 'head-dim'");
  /* head_dim 256: the sm90 wgmma TMA kernel with 64- and 80-key tiles (the longer ones exceed
   * shared memory next to the 64 KiB Q buffer), the causal mask with both (80 spill-free since
   * the masked tile's test takes no column index per score); 80 is that head_dim's tile only;
   * other families refuse it */
  assert_eval("local c = require('config'); local out = {}\n"
              "for _, kv in ipairs{64, 80, 96} do for _, mask in ipairs{'none', 'causal'} do\n"
              "  local ok, e = c.validate{head_dim=256, layout='bhsd', rounding='rtz', q_tiles=1,\n"
              "    kv_tile=kv, waves=12, kv_split='off', load='tma', mask=mask, impl='wgmma',\n"
              "    target='sm90'}\n"
              "  out[#out + 1] = ok and 'ok' or e:match(\"rule '([^']+)'\") end end\n"
              "return table.concat(out, ' ')",
              "ok ok ok ok sm90-head-dim-256-kv-tile sm90-head-dim-256-kv-tile");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=256, "
                       "layout='bshd', rounding='rtne', q_tiles=1, kv_tile=128, waves=12, "
                       "kv_split='off', load='tma', impl='wgmma', target='sm90'}; return e",
                       "rule 'sm90-head-dim-256-kv-tile': kv_tile=128 at head_dim=256 does not "
                       "fit shared memory next to the 64 KiB Q buffer in two stages (allowed: "
                       "64, 80)");
  /* three consumer warpgroups (waves 16, head_dim 64): dense and causal up to 128-key tiles */
  assert_eval("local c = require('config'); local out = {}\n"
              "for _, kv in ipairs{128, 144} do for _, mask in ipairs{'none', 'causal'} do\n"
              "  local ok, e = c.validate{head_dim=64, layout='bshd', rounding='rtne', q_tiles=1,\n"
              "    kv_tile=kv, waves=16, kv_split='off', load='tma', mask=mask, impl='wgmma',\n"
              "    target='sm90'}\n"
              "  out[#out + 1] = ok and 'ok' or e:match(\"rule '([^']+)'\") end end\n"
              "return table.concat(out, ' ')",
              "ok ok sm90-wgmma-3-consumers sm90-wgmma-3-consumers");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=64, "
                       "layout='bshd', rounding='rtne', q_tiles=1, kv_tile=144, waves=16, "
                       "kv_split='off', load='tma', impl='wgmma', target='sm90'}; return e",
                       "waves=16 with kv_tile=144 spills (allowed: kv_tile <= 128)");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=128, "
                       "layout='bshd', rounding='rtne', q_tiles=1, kv_tile=80, waves=12, "
                       "kv_split='off', load='tma', impl='wgmma', target='sm90'}; return e",
                       "rule 'sm90-head-dim-256-kv-tile': kv_tile=80 is built for head_dim=256 "
                       "only (this is head_dim=128; allowed: 64, 96, 128, 144, 176)");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=256, "
                       "layout='bshd', rounding='rtne', q_tiles=1, kv_tile=64, waves=12, "
                       "kv_split='off', load='thread', impl='wgmma', target='sm90'}; return e",
                       "rule 'head-dim': head_dim=256 is built for target=sm90 impl=wgmma "
                       "load=tma and target=gfx942 only (allowed here: 128)");
  /* head_dim 256 on gfx942: q2 x kv32 with the pre-transposed V, dense and causal; 64-key
   * tiles exceed LDS, the perm V path is not built, q3 exceeds the registers */
  assert_eval("local c = require('config'); local out = {}\n"
              "for _, t in ipairs{{2, 32, 'vt', 'none'}, {2, 64, 'vt', 'none'},\n"
              "    {2, 32, 'perm', 'none'}, {2, 32, 'vt', 'causal'}, {3, 32, 'vt', 'none'}} do\n"
              "  local ok, e = c.validate{head_dim=256, layout='bhsd', rounding='rtz',\n"
              "    q_tiles=t[1], kv_tile=t[2], waves=8, kv_split='off', v_path=t[3], mask=t[4],\n"
              "    impl='mfma', target='gfx942'}\n"
              "  out[#out + 1] = ok and 'ok' or e:match(\"rule '([^']+)'\") end\n"
              "return table.concat(out, ' ')",
              "ok gfx942-head-dim-256 gfx942-head-dim-256 ok gfx942-vgpr-budget");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=256, "
                       "layout='bshd', rounding='rtne', q_tiles=2, kv_tile=64, waves=8, "
                       "kv_split='off', v_path='vt', impl='mfma', target='gfx942'}; return e",
                       "rule 'gfx942-head-dim-256': kv_tile=64 at head_dim=256: the K double "
                       "buffer (2 x kv_tile x 528 bytes) exceeds 64 KiB of LDS past 32 keys "
                       "(allowed: 32)");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{head_dim=256, "
                       "layout='bshd', rounding='rtne', q_tiles=3, kv_tile=32, waves=8, "
                       "kv_split='tail', v_path='vt', impl='mfma', target='gfx942'}; return e",
                       "q_tiles * kv_tile <= 64 at this head_dim");
  /* the default set's gfx942 head_dim 256 kernels: both layouts, every mode, with and without
   * the tail split, the causal mask without it, tile skipping with and without the split
   * (12); the derived K buffers (2 x 32 rows at the 528-byte pitch) and V ring */
  assert_eval("local g = require('generate'); local n, ns = 0, 0; local d\n"
              "for _, v in ipairs(require('config').default_variants()) do\n"
              "  if v.head_dim == 256 and v.target == 'gfx942' then\n"
              "    if v.skip == 'on' then ns = ns + 1 else n = n + 1 end\n"
              "    assert(v.q_tiles == 2 and v.kv_tile == 32 and v.v_path == 'vt')\n"
              "    d = g.values(v) end end\n"
              "return string.format('%d %d %d %d %d %d', n, ns, d.lds_bytes, d.k_pitch,\n"
              "  d.k_rows_per_wave, d.v_ring)",
              "18 12 33792 528 8 8");
  /* the default set's head_dim 256 kernels: both layouts and every mode, kv 64 and 80 (each
   * without and with the tail split), the causal mask at 64, tile skipping at 80 (with and
   * without the split); the derived shared memory of the dense kernels: one Q buffer and two
   * stages, an O buffer with 64-key tiles only; the skip kernels' (+ list words and the job
   * ring) still within the 227 KiB a block may have */
  assert_eval("local g = require('generate'); local n, causal, skip = 0, 0, 0; local shape = {}\n"
              "for _, v in ipairs(require('config').default_variants()) do\n"
              "  if v.head_dim == 256 and v.target == 'sm90' then n = n + 1\n"
              "    assert(g.desc_values(v).head_dim == 256)\n"
              "    if v.mask == 'causal' then causal = causal + 1 end\n"
              "    local d = g.values(v)\n"
              "    if v.skip == 'on' then skip = skip + 1\n"
              "      assert(v.kv_tile == 80 and d.smem_bytes > 230496 and d.smem_bytes <= 232448)\n"
              "    else shape[v.kv_tile] = string.format('%d/%d/%d/%d', d.stages, d.q_bufs,\n"
              "      d.o_bufs, d.smem_bytes) end end end\n"
              "return string.format('%d %d %d %s %s', n, causal, skip, shape[64], shape[80])",
              "42 6 12 2/1/1/230504 2/1/0/230496");
  /* the default set has head_dim 64 kernels, with the descriptor field (12 of them split, 12
   * causal on sm90); 24 more skip tiles (12 gfx942, 12 sm90) */
  assert_eval("local g = require('generate'); local n, ns = 0, 0\n"
              "for _, v in ipairs(require('config').default_variants()) do\n"
              "  if v.head_dim == 64 then assert(g.desc_values(v).head_dim == 64)\n"
              "    if v.skip == 'on' then ns = ns + 1 else n = n + 1 end end end\n"
              "return n .. ' ' .. ns", "54 24");
  /* variable lengths: the causal, head_dim-64 (no split) and packed-batch (bshd head_dim 128,
   * no split, no skip) sm90 kernels have a second entry point NAME_var (descriptor var_entry = 1) with
   * the key-length and packed-batch code; NAME has none of it (it traps on kargs.kv_len or
   * kargs.cu_q); every other variant has one entry, whose code takes key lengths */
  assert_eval("local g = require('generate'); local out = {}\n"
              "for _, n in ipairs{'attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_causal_wgmma_sm90',\n"
              "  'attn_fwd_d128_bshd_rtna_q1_kv176_w12_nosplit_tma_wgmma_sm90',\n"
              "  'attn_fwd_d64_bhsd_rtz_q1_kv128_w16_nosplit_tma_wgmma_sm90',\n"
              "  'attn_fwd_d256_bhsd_rtne_q1_kv64_w12_nosplit_tma_causal_wgmma_sm90',\n"
              "  'attn_fwd_d128_bhsd_rtne_q1_kv128_w12_nosplit_tma_wgmma_sm90',\n"
              "  'attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90',\n"
              "  'attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_skip_wgmma_sm90',\n"
              "  'attn_fwd_d64_bshd_rtne_q1_kv128_w16_nosplit_tma_skip_wgmma_sm90',\n"
              "  'attn_fwd_d64_bshd_rtne_q1_kv128_w12_tail_tma_wgmma_sm90'} do\n"
              "  local v = assert(require('config').parse(n)); local src = assert(g.source(v))\n"
              "  local _, entries = src:gsub('__global__ void __launch_bounds__%(%d+, 1%)%s+' .. n .. '%(', '')\n"
              "  local _, var = src:gsub('__global__ void __launch_bounds__%(%d+, 1%)%s+' .. n .. '_var%(', '')\n"
              "  local _, guard = src:gsub('if %(!kVarEntry && %(a%.cu_q != 0 || a%.kv_len != 0%)%) __trap%(%);', '')\n"
              "  out[#out + 1] = g.desc_values(v).var_entry .. ':' .. entries .. var .. guard end\n"
              "return table.concat(out, ' ')",
              "1:111 1:111 1:111 1:111 0:100 0:100 0:100 0:100 0:100");
  /* v_path: the default (perm) adds no token, vt does; sm90 has only perm */
  assert_eval("local c = require('config'); return c.name{layout='bshd', rounding='rtne', "
              "q_tiles=2, kv_tile=96, waves=8, kv_split='tail', v_path='vt', impl='mfma', "
              "target='gfx942'}",
              "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942");
  assert_eval("local c = require('config'); "
              "local v = assert(c.parse('attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942')); "
              "local w = assert(c.parse('attn_fwd_d128_bshd_rtne_q2_kv64_w8_tail_mfma_gfx942')); "
              "return v.v_path .. ' ' .. w.v_path", "vt perm");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_vt_wgmma_sm90')); "
                       "local ok, e = c.validate(v); return e",
                       "rule 'sm90-v-path': v_path=vt is not supported on sm90 (allowed: perm)");
  assert_eval_contains("local c = require('config'); local v, e = c.parse("
                       "'attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_tma_vt_causal_skip_mfma_gfx942'); "
                       "return e",
                       "has 14 axis tokens, expected 13");
  /* skip: the default (off) adds no token, on adds "skip" after the mask; refused for every
   * family until its template has the skip code (M.skip_built); no skip variant in the
   * default set; the descriptor carries it */
  assert_eval("local c = require('config'); return c.name{layout='bshd', rounding='rtne', "
              "q_tiles=1, kv_tile=128, waves=12, kv_split='off', load='tma', mask='causal', "
              "skip='on', impl='wgmma', target='sm90'}",
              "attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_causal_skip_wgmma_sm90");
  assert_eval("local c = require('config'); "
              "local v = assert(c.parse('attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_skip_wgmma_sm90')); "
              "local w = assert(c.parse('attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_wgmma_sm90')); "
              "return v.skip .. ' ' .. w.skip", "on off");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_causal_skip_wgmma_sm90'"
                       ")); local ok, e = c.validate(v); return e",
                       "(this is head_dim=128 target=sm90 impl=wgmma load=tma mask=causal "
                       "kv_split=off)");
  /* gfx942: built at head_dim 64, 128 and 256 without the causal mask, with and without the
   * tail split; the others are refused naming what is built */
  assert_eval("local c = require('config'); return tostring(c.validate(assert(c.parse("
              "'attn_fwd_d128_bhsd_rtz_q2_kv96_w8_nosplit_vt_skip_mfma_gfx942'))))", "true");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate(assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_causal_skip_mfma_gfx942'"
                       "))); return e",
                       "and mask=none impl=mfma target=gfx942 only "
                       "(this is head_dim=128 target=gfx942 impl=mfma load=thread mask=causal "
                       "kv_split=off)");
  assert_eval("local c = require('config'); return tostring(c.validate(assert(c.parse("
              "'attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_skip_mfma_gfx942'))))", "true");
  /* the default set's gfx942 skip kernels: the dense default's tile at each head dim (64:
   * kv128, 128: kv96, 256: kv32), 12 per head dim (2 layouts x 3 modes x nosplit / tail) */
  assert_eval("local c = require('config'); local n, t = {}, 0\n"
              "local kv = { [64] = 128, [128] = 96, [256] = 32 }\n"
              "for _, v in ipairs(c.default_variants()) do\n"
              "  if v.target == 'gfx942' and v.skip == 'on' then\n"
              "    n[v.head_dim] = (n[v.head_dim] or 0) + 1\n"
              "    assert(v.q_tiles == 2 and v.kv_tile == kv[v.head_dim] and\n"
              "      v.v_path == 'vt' and v.mask == 'none')\n"
              "    if v.kv_split == 'tail' then t = t + 1 end end end\n"
              "return n[64] .. ' ' .. n[128] .. ' ' .. n[256] .. ' ' .. t",
              "12 12 12 18");
  assert_eval("local c = require('config'); return tostring(c.validate(assert(c.parse("
              "'attn_fwd_d64_bshd_rtne_q2_kv128_w8_nosplit_vt_skip_mfma_gfx942')))) .. ' ' .. "
              "tostring(c.validate(assert(c.parse("
              "'attn_fwd_d256_bhsd_rtz_q2_kv32_w8_tail_vt_skip_mfma_gfx942'))))", "true true");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate(assert(c.parse("
                       "'attn_fwd_d64_bshd_rtne_q2_kv128_w8_nosplit_vt_causal_skip_mfma_gfx942'"
                       "))); return e",
                       "(this is head_dim=64 target=gfx942 impl=mfma load=thread mask=causal");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_causal_skip_wgmma_sm90'"
                       ")); local ok, e = c.validate(v); return e",
                       "rule 'skip': skip=on is built for load=tma mask=none "
                       "impl=wgmma target=sm90");
  assert_eval("local c = require('config'); local saved = c.skip_built; "
              "c.skip_built = { { target = 'sm90', impl = 'wgmma', load = 'tma' } }; "
              "local ok1 = c.validate(assert(c.parse("
              "'attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_skip_wgmma_sm90'))); "
              "local ok2, e = c.validate(assert(c.parse("
              "'attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_skip_mfma_gfx942'))); "
              "c.skip_built = saved; "
              "return tostring(ok1) .. ' ' .. tostring(ok2) .. ' ' .. "
              "tostring(e:find('built for load=tma impl=wgmma target=sm90 only', 1, true) ~= nil)",
              "true false true");
  assert_eval("local g = require('generate'); local n = 0\n"
              "for _, v in ipairs(require('config').default_variants()) do\n"
              "  assert(g.desc_values(v).skip == (v.skip == 'on' and 1 or 0))\n"
              "  assert(v.skip == 'off' or v.mask == 'none')\n"
              "  if v.skip == 'on' then n = n + 1 end end\n"
              "return tostring(n >= 6)", "true");
  /* mask: the default (none) adds no token, causal does; wgmma tiles <= 128, gfx942 without
   * the KV split */
  assert_eval("local c = require('config'); return c.name{layout='bshd', rounding='rtz', "
              "q_tiles=1, kv_tile=128, waves=12, kv_split='off', load='tma', mask='causal', "
              "impl='wgmma', target='sm90'}",
              "attn_fwd_d128_bshd_rtz_q1_kv128_w12_nosplit_tma_causal_wgmma_sm90");
  assert_eval("local c = require('config'); return c.parse("
              "'attn_fwd_d128_bshd_rtz_q1_kv128_w12_nosplit_tma_wgmma_sm90').mask", "none");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q1_kv176_w12_nosplit_tma_causal_wgmma_sm90')); "
                       "local ok, e = c.validate(v); return e",
                       "rule 'mask-causal': mask=causal with kv_tile=176 spills");
  assert_eval("local c = require('config'); return tostring(c.validate(assert(c.parse("
              "'attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_causal_mfma_gfx942'))))", "true");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_causal_mfma_gfx942')); "
                       "local ok, e = c.validate(v); return e",
                       "rule 'mask-causal': mask=causal is built without the KV split on gfx942");
  /* load: the default (thread) adds no token, tma does; tma only for the sm90 wgmma family */
  assert_eval("local c = require('config'); return c.name{layout='bhsd', rounding='rtna', "
              "q_tiles=1, kv_tile=176, waves=12, kv_split='off', load='tma', impl='wgmma', "
              "target='sm90'}",
              "attn_fwd_d128_bhsd_rtna_q1_kv176_w12_nosplit_tma_wgmma_sm90");
  assert_eval("local c = require('config'); "
              "local v = assert(c.parse('attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_tma_wgmma_sm90')); "
              "local w = assert(c.parse('attn_fwd_d128_bshd_rtne_q1_kv128_w12_nosplit_wgmma_sm90')); "
              "return v.load .. ' ' .. w.load .. ' ' .. tostring(c.validate(v))", "tma thread true");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q1_kv64_w4_nosplit_tma_mma_sm90')); "
                       "local ok, e = c.validate(v); return e",
                       "rule 'load-tma': load=tma is an sm90 wgmma kernel's (this is target=sm90 impl=mma)");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q2_kv96_w8_nosplit_vt_tma_mfma_gfx942')); "
                       "local ok, e = c.validate(v); return e",
                       "rule 'load-tma': load=tma is an sm90 wgmma kernel's (this is target=gfx942 impl=mfma)");
  assert_eval_contains("local c = require('config'); local v, e = c.parse('flash_fwd'); return e",
                       "is not a variant name");
}

static void test_generator_validity_rules(void **state) {
  (void)state;
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{layout='bshd', "
                       "rounding='rtne', q_tiles=1, kv_tile=64, waves=4, kv_split='tail', "
                       "impl='mma', target='sm90'}; return tostring(ok) .. ' ' .. e",
                       "false rule 'sm90-split': kv_split=tail on sm90 is built for impl=wgmma load=tma "
                       "only (this is impl=mma load=thread; allowed here: kv_split=off)");
  /* the sm90 tail split: the wgmma TMA kernel without the causal mask; with tile skipping */
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_causal_wgmma_sm90')); "
                       "local ok, e = c.validate(v); return tostring(ok) .. ' ' .. e",
                       "false rule 'sm90-split': kv_split=tail is built without the causal mask "
                       "on sm90 (this is mask=causal; allowed with kv_split=tail: mask=none)");
  assert_eval("local c = require('config'); local v = assert(c.parse("
              "'attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_tma_skip_wgmma_sm90')); "
              "return tostring(c.validate(v))", "true");
  assert_eval_contains("local c = require('config'); local v = assert(c.parse("
                       "'attn_fwd_d128_bshd_rtne_q1_kv128_w12_tail_wgmma_sm90')); "
                       "local ok, e = c.validate(v); return tostring(ok) .. ' ' .. e",
                       "false rule 'sm90-split': kv_split=tail on sm90 is built for impl=wgmma "
                       "load=tma only (this is impl=wgmma load=thread; allowed here: "
                       "kv_split=off)");
  assert_eval("local c = require('config'); local n, s = 0, 0\n"
              "for _, v in ipairs(c.default_variants()) do\n"
              "  if v.target == 'sm90' and v.kv_split == 'tail' then n = n + 1\n"
              "    assert(v.impl == 'wgmma' and v.load == 'tma' and v.mask == 'none')\n"
              "    if v.skip == 'on' then s = s + 1 end end end return n .. ' ' .. s", "66 24");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{layout='bshd', "
                       "rounding='rtne', q_tiles=1, kv_tile=64, waves=8, kv_split='off', "
                       "impl='mfma', target='gfx942'}; return e", "rule 'gfx942-q-tiles'");
  assert_eval_contains("local c = require('config'); local ok, e = c.validate{layout='nhwc', "
                       "rounding='rtne', q_tiles=2, kv_tile=64, waves=8, kv_split='off', "
                       "impl='mfma', target='gfx942'}; return e", "rule 'axis-values': layout=nhwc");
  /* every default variant is valid, and names are unique */
  assert_eval("local c = require('config'); local seen = {}; for _, v in ipairs(c.default_variants()) do\n"
              "  assert(c.validate(v)); assert(not seen[v.name]); seen[v.name] = true end return 'ok'",
              "ok");
}

#define EXPAND(files, values)                                                              \
  "local t = require('template'); local files = " files "\n"                              \
  "local out, errs = t.expand('x.in', " values ", {read = function(p) return files[p] end, " \
  "variant = 'V'})\n"                                                                       \
  "return out or ('ERR\\n' .. table.concat(errs, '\\n'))"

static void test_generator_template_expressions(void **state) {
  (void)state;
  assert_eval(EXPAND("{['x.in'] = 'int a = ${n * 2};\\nfloat b = ${f};\\nconst char *s = \"${s}\";'}",
                     "{n = 21, f = 0.5, s = 'hi'}"),
              "#line 1 \"templates/x.in\"\nint a = 42;\nfloat b = 0.5;\nconst char *s = \"hi\";\n");
  /* nested braces and strings inside an expression */
  assert_eval(EXPAND("{['x.in'] = 'x = ${({a = 3}).a + #\"}}\"};'}", "{}"),
              "#line 1 \"templates/x.in\"\nx = 5;\n");
}

static void test_generator_template_statements(void **state) {
  (void)state;
  /* loops unroll; #line points every repeated line back to the template */
  assert_eval(EXPAND("{['x.in'] = 'head\\n//$ for i = 0, n - 1 do\\n  acc${i} += ${i * 16};\\n"
                     "//$ end\\n//$ if mode == \"b\" then\\nB\\n//$ else\\nNOT_B\\n//$ end\\ntail'}",
                     "{n = 2, mode = 'b'}"),
              "#line 1 \"templates/x.in\"\nhead\n#line 3 \"templates/x.in\"\n  acc0 += 0;\n"
              "#line 3 \"templates/x.in\"\n  acc1 += 16;\n#line 6 \"templates/x.in\"\nB\n"
              "#line 10 \"templates/x.in\"\ntail\n");
}

static void test_generator_template_include(void **state) {
  (void)state;
  assert_eval(EXPAND("{['x.in'] = 'a\\n//$ include \"inc.h\"\\nb', ['inc.h'] = 'inc ${n}'}",
                     "{n = 7}"),
              "#line 1 \"templates/x.in\"\na\n#line 1 \"templates/inc.h\"\ninc 7\n"
              "#line 3 \"templates/x.in\"\nb\n");
}

static void test_generator_template_errors(void **state) {
  (void)state;
  /* unknown names are errors with file:line and the variant; errors are collected */
  char *out = eval_ok(EXPAND("{['x.in'] = 'ok\\nint a = ${nope};\\nint b = ${also_nope};'}", "{}"));
  assert_non_null(strstr(out, "ERR"));
  assert_non_null(strstr(out, "templates/x.in:2: error: unknown name 'nope' (variant V)"));
  assert_non_null(strstr(out, "templates/x.in:3: error: unknown name 'also_nope' (variant V)"));
  free(out);
  /* a nil value, a syntax error in a statement line, a missing include, unclosed ${ */
  assert_eval_contains(EXPAND("{['x.in'] = 'x\\n${t.missing}'}", "{t = {}}"),
                       "templates/x.in:2: error: ${t.missing} is nil (variant V)");
  assert_eval_contains(EXPAND("{['x.in'] = 'x\\ny\\n//$ for i = 1 do'}", "{}"),
                       "templates/x.in:3: error:");
  assert_eval_contains(EXPAND("{['x.in'] = 'x\\n//$ include \"gone.h\"'}", "{}"),
                       "include: no template 'gone.h'");
  assert_eval_contains(EXPAND("{['x.in'] = 'x ${1 + '}", "{}"),
                       "templates/x.in:1: error: unclosed ${ expression");
  /* an unknown name used in a statement line */
  assert_eval_contains(EXPAND("{['x.in'] = 'a\\n//$ if undefined_axis then\\nb\\n//$ end'}", "{}"),
                       "templates/x.in:2: error: unknown name 'undefined_axis' (variant V)");
}

/* Runs a shell command; returns its exit status. */
static int sh(const char *fmt, ...) {
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static char tmpdir[256];

static int make_tmpdir(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "/tmp/attngen_test_gen_XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state) {
  (void)state;
  return sh("rm -rf '%s'", tmpdir);
}

static void test_generator_deterministic_output(void **state) {
  (void)state;
  assert_int_equal(sh("'%s' generate -q -o '%s/a' > '%s/log1'", ATTNGEN_CLI, tmpdir, tmpdir), 0);
  assert_int_equal(sh("'%s' generate -q -o '%s/b' > /dev/null", ATTNGEN_CLI, tmpdir), 0);
  assert_int_equal(sh("diff -r '%s/a' '%s/b'", tmpdir, tmpdir), 0);
  /* a second run into the same tree rewrites nothing */
  assert_int_equal(sh("'%s' generate -q -o '%s/a' > '%s/log2'", ATTNGEN_CLI, tmpdir, tmpdir), 0);
  assert_int_equal(sh("grep -q ' 0 written, [0-9]* unchanged, 0 removed' '%s/log2'", tmpdir), 0);
  /* every generated file starts with the stamp and is self-contained */
  assert_int_equal(sh("for f in '%s'/a/*/*; do head -1 \"$f\" | grep -q 'generated, do not edit' "
                      "|| { echo \"no stamp: $f\"; exit 1; }; done", tmpdir), 0);
  assert_int_equal(sh("! grep -l '^[[:space:]]*#[[:space:]]*include' '%s'/a/*/*.hip '%s'/a/*/*.cu",
                      tmpdir, tmpdir), 0);
  /* a stale file in a target folder is removed by a full generation */
  assert_int_equal(sh("touch '%s/a/sm90/attn_fwd_d128_stale.cu' && '%s' generate -q -o '%s/a' "
                      "> '%s/log3' && test ! -e '%s/a/sm90/attn_fwd_d128_stale.cu'",
                      tmpdir, ATTNGEN_CLI, tmpdir, tmpdir, tmpdir), 0);
}

static void test_generator_drift_check(void **state) {
  (void)state;
  assert_int_equal(sh("'%s' generate -q -o '%s/drift' > /dev/null", ATTNGEN_CLI, tmpdir), 0);
  int rc = sh("diff -rq '%s/drift' '%s/generated' >&2", tmpdir, ATTNGEN_SOURCE_DIR);
  if (rc != 0)
    print_error("generated/ is out of date: run `attngen generate` in the source tree and "
                "commit (differences above)\n");
  assert_int_equal(rc, 0);
}

static void test_generator_cli_exit_codes(void **state) {
  (void)state;
  assert_int_equal(sh("'%s' generate --bogus 2>/dev/null", ATTNGEN_CLI), 2);
  assert_int_equal(sh("'%s' generate --target vax 2>/dev/null", ATTNGEN_CLI), 2);
  assert_int_equal(sh("'%s' generate --variant nonsense -o '%s/x' 2>/dev/null", ATTNGEN_CLI, tmpdir), 2);
  /* a well-formed but invalid variant fails with exit 1, naming the rule, writing nothing */
  assert_int_equal(sh("'%s' generate --variant attn_fwd_d128_bshd_rtne_q1_kv64_w4_tail_mma_sm90 "
                      "-o '%s/inv' 2>'%s/err'", ATTNGEN_CLI, tmpdir, tmpdir), 1);
  assert_int_equal(sh("grep -q \"rule 'sm90-split'\" '%s/err'", tmpdir), 0);
  assert_int_equal(sh("test ! -e '%s/inv'", tmpdir), 0);
  assert_int_equal(sh("'%s' list --help >/dev/null", ATTNGEN_CLI), 0);
  assert_int_equal(sh("'%s' --version >/dev/null", ATTNGEN_CLI), 0);
  assert_int_equal(sh("'%s' frobnicate 2>/dev/null", ATTNGEN_CLI), 2);
  assert_int_equal(sh("'%s' list | tail -1 | grep -q 'variant(s)'", ATTNGEN_CLI), 0);
  /* bench: a usage error names the option; a tiny shape on the cpu backend runs */
  assert_int_equal(sh("'%s' bench --shapes nope 2>'%s/berr'", ATTNGEN_CLI, tmpdir), 2);
  assert_int_equal(sh("grep -q -- \"--shapes 'nope': allowed: sweep, video, short, fewhead, prefill, hd64, hd256, all\" '%s/berr'", tmpdir), 0);
  assert_int_equal(sh("'%s' bench --backend cpu --shape 1,1,16,16 --iters 1 | "
                      "grep -q '1 shape(s), 0 failed'", ATTNGEN_CLI), 0);
}

/* A template error inside a real generation: exit code 1, file:line message, nothing
 * written. Uses a variant outside the default set so the committed tree is untouched. */
static void test_generator_template_error_exit_code(void **state) {
  (void)state;
  char *out = NULL, *err = NULL;
  int rc = attngen__gen_source("attn_fwd_d128_bshd_rtne_q2_kv64_w8_nosplit_mfma_gfx942", &out, &err);
  assert_int_equal(rc, 0); /* the real template expands */
  assert_non_null(strstr(out, "attn_fwd_d128_bshd_rtne_q2_kv64_w8_nosplit_mfma_gfx942"));
  assert_non_null(strstr(out, "#line "));
  free(out);
  free(err);
  rc = attngen__gen_source("attn_fwd_d128_bshd_rtne_q1_kv64_w4_tail_mma_sm90", &out, &err);
  assert_int_not_equal(rc, 0);
  assert_null(out);
  assert_non_null(strstr(err, "rule 'sm90-split'"));
  free(err);
  /* through the CLI: a broken template gives file:line, exit 1, and nothing is written */
  assert_int_equal(sh("cp -r '%s/templates' '%s/tpl' && printf '\\nint broken = ${no_such_axis};\\n' "
                      ">> '%s/tpl/sm90/attn_fwd.cu.in'", ATTNGEN_SOURCE_DIR, tmpdir, tmpdir), 0);
  assert_int_equal(sh("ATTNGEN_TEMPLATE_DIR='%s/tpl' '%s' generate -o '%s/broken' 2>'%s/err2'",
                      tmpdir, ATTNGEN_CLI, tmpdir, tmpdir), 1);
  assert_int_equal(sh("grep -q \"templates/sm90/attn_fwd.cu.in:[0-9]*: error: unknown name "
                      "'no_such_axis' (variant attn_fwd_d128_\" '%s/err2'", tmpdir), 0);
  assert_int_equal(sh("test ! -e '%s/broken'", tmpdir), 0);
}

/* attngen__gen_variant: one generator state gives the descriptor of attngen__gen_variant_desc
 * and the source of attngen__gen_source, byte for byte, for every default variant and one
 * outside the set; an invalid name gives the descriptor's error and no source. */
static void test_generator_variant_desc_and_source(void **state) {
  (void)state;
  const char *extra = "attn_fwd_d128_bshd_rtne_q2_kv64_w8_nosplit_mfma_gfx942";
  for (size_t i = 0; i <= attngen__manifest_count; ++i) {
    const char *name = i < attngen__manifest_count ? attngen__manifest[i].name : extra;
    attngen__variant_desc one, two;
    char *src = NULL, *err = NULL, *src_err = NULL, *src2 = NULL, *err2 = NULL;
    assert_int_equal(attngen__gen_variant(name, &one, &src, &err, &src_err), 0);
    assert_null(err);
    assert_null(src_err);
    assert_non_null(src);
    assert_int_equal(attngen__gen_variant_desc(name, &two, &err2), 0);
    assert_string_equal(one.name, name);
#define SAME_FIELD(f) assert_int_equal(one.f, two.f);
    ATTNGEN__VARIANT_DESC_FIELDS(SAME_FIELD)
#undef SAME_FIELD
    if (i < attngen__manifest_count) {
      assert_int_equal(one.smem_bytes, attngen__manifest[i].smem_bytes);
      assert_int_equal(one.softmax_step, attngen__manifest[i].softmax_step);
    }
    assert_int_equal(attngen__gen_source(name, &src2, &err2), 0);
    assert_string_equal(src, src2);
    free(src);
    free(src2);
  }
  attngen__variant_desc d;
  char *src = (char *)1, *err = NULL, *src_err = NULL;
  assert_int_not_equal(
      attngen__gen_variant("attn_fwd_d128_bshd_rtne_q1_kv64_w4_tail_mma_sm90", &d, &src, &err,
                           &src_err),
      0);
  assert_null(src);
  assert_null(src_err);
  assert_non_null(err);
  assert_non_null(strstr(err, "sm90-split"));
  free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_generator_name_derivation),
    cmocka_unit_test(test_generator_validity_rules),
    cmocka_unit_test(test_generator_template_expressions),
    cmocka_unit_test(test_generator_template_statements),
    cmocka_unit_test(test_generator_template_include),
    cmocka_unit_test(test_generator_template_errors),
    cmocka_unit_test(test_generator_deterministic_output),
    cmocka_unit_test(test_generator_drift_check),
    cmocka_unit_test(test_generator_cli_exit_codes),
    cmocka_unit_test(test_generator_template_error_exit_code),
    cmocka_unit_test(test_generator_variant_desc_and_source),
  };
  return cmocka_run_group_tests_name("generator", tests, make_tmpdir, remove_tmpdir);
}
