/* test_gfx942_static.c: the static budget of every built gfx942 code object, read through
 * `attngen report --tsv` (cli/cmd_report.c): <= 256 VGPRs (arch + AGPR, the
 * unified file at 2 waves/SIMD), no scratch and no spills, LDS <= 64 KiB, and exactly the
 * MFMA count per KV tile that the variant's tile shape requires in its main loop:
 * per wave QK^T = q_tiles * (kv_tile/16) * (d/16), P.V = q_tiles * (d/16) * (kv_tile/16),
 * i.e. q_tiles * kv_tile * d / 128 in total (d: the variant's head_dim, 64, 128 or 256). Code objects come from ATTNGEN_KERNEL_DIR/gfx942
 * (compile definition of tests/CMakeLists.txt; $ATTNGEN_GFX942_CO_DIR overrides). Only the
 * variants of the manifest (the default set) are checked, and each of them must be there.
 * A tile-skipping variant (skip = on) is also held to its dense twin (the name without
 * `_skip`): the same LDS and MFMA, LDS, VMEM and barrier counts in the main loop, at most 2
 * more VGPRs and at most 8% more loop VALU (the vote, the walk and their rare blocks; the
 * counts are printed). A head_dim 256 variant is held to its head_dim 128 twin (the default
 * variant of the same layout, rounding, split, V path, mask and skip; a skip variant's twin
 * skips too): main-loop VALU per MFMA (per FLOP:
 * every MFMA is one 16x16x16 product) at most the twin's, since the softmax's VALU is per key
 * and row while the FLOPs per key double (the ratios are printed). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#define ATTNGEN_TEST_REQUIRE "ATTNGEN_REQUIRE_CLANG19" /* what a skip here lacks (test_skip.h) */
#include "test_skip.h"

#include "attngen_internal.h"

#ifndef ATTNGEN_KERNEL_DIR
#define ATTNGEN_KERNEL_DIR "kernels"
#endif
#ifndef ATTNGEN_CLI
#define ATTNGEN_CLI "attngen"
#endif

typedef struct row {
  char name[200];
  long vgpr, agpr, sgpr, scratch, lds, vgpr_spill, sgpr_spill, occ;
  long mfma, valu, lds_ops, vmem, waitcnt, barrier;
} row;

static const char *co_dir(void) {
  const char *d = getenv("ATTNGEN_GFX942_CO_DIR");
  return d && *d ? d : ATTNGEN_KERNEL_DIR "/gfx942";
}

/* Runs the report; returns the number of rows (-1: the command failed). */
static int load_report(row *rows, int max) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' report --tsv --dir '%s'", ATTNGEN_CLI, co_dir());
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[1024];
  int n = 0, header = 1;
  while (fgets(line, sizeof line, p)) {
    if (header) {
      header = 0;
      continue;
    }
    if (n >= max) break;
    row *r = &rows[n];
    if (sscanf(line, "%199s %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", r->name,
               &r->vgpr, &r->agpr, &r->sgpr, &r->scratch, &r->lds, &r->vgpr_spill,
               &r->sgpr_spill, &r->occ, &r->mfma, &r->valu, &r->lds_ops, &r->vmem, &r->waitcnt,
               &r->barrier) == 15)
      n++;
  }
  return pclose(p) == 0 ? n : -1;
}

static int count_code_objects(void) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "ls '%s'/*.co 2>/dev/null | wc -l", co_dir());
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  int n = 0;
  if (fscanf(p, "%d", &n) != 1) n = 0;
  pclose(p);
  return n;
}

static int is_merge(const char *name) {
  size_t len = strlen(name);
  return len > 6 && strcmp(name + len - 6, "_merge") == 0;
}

static const attngen__variant_desc *find_variant(const char *name) {
  for (size_t i = 0; i < attngen__manifest_count; i++)
    if (strcmp(attngen__manifest[i].name, name) == 0) return &attngen__manifest[i];
  return NULL;
}

static void test_gfx942_static_budget_and_mfma_count(void **state) {
  (void)state;
  if (count_code_objects() == 0) {
    print_message("SKIPPED: no gfx942 code objects in %s (clang-19 missing or not built)\n",
                  co_dir());
    skip();
  }
  static row rows[512];
  const int n = load_report(rows, 512);
  assert_true(n > 0);
  int failures = 0;
  static char seen[1024];
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < n; ++i) {
    const row *r = &rows[i];
    const long total = (r->vgpr + 3) / 4 * 4 + r->agpr;
    int ok = total <= 256 && r->scratch == 0 && r->vgpr_spill == 0 && r->sgpr_spill == 0 &&
             r->lds <= 65536;
    long want = 0;
    char base[200];
    snprintf(base, sizeof base, "%.199s", r->name);
    if (is_merge(base)) base[strlen(base) - 6] = 0;
    const attngen__variant_desc *d = find_variant(base);
    if (!d) continue; /* a stale code object of a variant no longer in the default set */
    if (!is_merge(r->name)) {
      seen[d - attngen__manifest] = 1;
      const long hd = attngen__desc_head_dim(d);
      want = (long)d->q_tiles * (d->kv_tile / 16) * (hd / 16) +
             (long)d->q_tiles * (hd / 16) * (d->kv_tile / 16);
      if (r->mfma != want) ok = 0;
      if (r->barrier < 2) ok = 0; /* phase hand-off + iteration boundary */
    }
    if (!ok) {
      print_message("FAIL %s: vgpr %ld agpr %ld scratch %ld spills %ld/%ld lds %ld mfma/tile "
                    "%ld (want %ld) barriers %ld\n",
                    r->name, r->vgpr, r->agpr, r->scratch, r->vgpr_spill, r->sgpr_spill, r->lds,
                    r->mfma, want, r->barrier);
      failures++;
    }
  }
  /* skip variants against their dense twins */
  int skip_pairs = 0;
  for (int i = 0; i < n; ++i) {
    const row *r = &rows[i];
    const char *tok = strstr(r->name, "_skip_");
    if (!tok || is_merge(r->name)) continue;
    char dense[200];
    snprintf(dense, sizeof dense, "%.*s%s", (int)(tok - r->name), r->name, tok + 5);
    const row *d = NULL;
    for (int j = 0; j < n && !d; ++j)
      if (strcmp(rows[j].name, dense) == 0) d = &rows[j];
    if (!d || !find_variant(r->name)) continue;
    skip_pairs++;
    print_message("%s: vgpr %ld (dense %ld), sgpr %ld (%ld); main loop VALU %ld (%ld, %+.1f%%), "
                  "LDS %ld, VMEM %ld, waitcnt %ld (%ld), barriers %ld\n", r->name, r->vgpr,
                  d->vgpr, r->sgpr, d->sgpr, r->valu, d->valu,
                  100.0 * (double)(r->valu - d->valu) / (double)d->valu, r->lds_ops, r->vmem,
                  r->waitcnt, d->waitcnt, r->barrier);
    if (r->lds != d->lds || r->mfma != d->mfma || r->lds_ops != d->lds_ops ||
        r->vmem != d->vmem || r->barrier != d->barrier || r->vgpr > d->vgpr + 2 ||
        100 * r->valu > 108 * d->valu) {
      print_message("FAIL %s: not within the skip kernel's budget against %s\n", r->name, dense);
      failures++;
    }
  }
  /* head_dim 256 variants against their head_dim 128 twins: loop VALU per MFMA */
  int hd256_pairs = 0;
  for (int i = 0; i < n; ++i) {
    const row *r = &rows[i];
    const attngen__variant_desc *v = find_variant(r->name);
    if (!v || attngen__desc_head_dim(v) != 256) continue;
    const row *t = NULL;
    for (int j = 0; j < n && !t; ++j) {
      const attngen__variant_desc *w = find_variant(rows[j].name);
      if (w && w->target == v->target && attngen__desc_head_dim(w) == 128 &&
          w->layout == v->layout && w->rounding == v->rounding && w->kv_split == v->kv_split &&
          w->v_path == v->v_path && w->mask == v->mask && w->skip == v->skip)
        t = &rows[j];
    }
    if (!t) continue;
    hd256_pairs++;
    const double rv = (double)r->valu / (double)r->mfma, tv = (double)t->valu / (double)t->mfma;
    print_message("%s: vgpr %ld, lds %ld, loop MFMA %ld, VALU %ld: %.2f VALU per MFMA (%s: "
                  "%.2f, x%.2f)\n", r->name, r->vgpr, r->lds, r->mfma, r->valu, rv, t->name, tv,
                  rv / tv);
    if (rv > tv) {
      print_message("FAIL %s: more loop VALU per MFMA than %s\n", r->name, t->name);
      failures++;
    }
  }
  int by_head_dim[3] = {0, 0, 0}; /* default-set gfx942 variants checked at head_dim 64, 128, 256 */
  int want_hd256 = 0;
  for (size_t i = 0; i < attngen__manifest_count; i++) {
    if (attngen__manifest[i].target != ATTNGEN__TARGET_GFX942) continue;
    const int hd = attngen__desc_head_dim(&attngen__manifest[i]);
    want_hd256 += hd == 256;
    if (seen[i]) by_head_dim[attngen__head_dim_slot(hd)]++;
    if (seen[i]) continue;
    print_message("FAIL %s: no code object in %s\n", attngen__manifest[i].name, co_dir());
    failures++;
  }
  print_message("gfx942 static: %d head_dim 64, %d head_dim 128 and %d head_dim 256 variants "
                "within budget, %d skip variants against their dense twins, %d head_dim 256 "
                "variants against their head_dim 128 twins\n", by_head_dim[0], by_head_dim[1],
                by_head_dim[2], skip_pairs, hd256_pairs);
  assert_int_equal(hd256_pairs, want_hd256);
  size_t skip_variants = 0;
  for (size_t i = 0; i < attngen__manifest_count; i++)
    skip_variants += attngen__manifest[i].target == ATTNGEN__TARGET_GFX942 &&
                     attngen__manifest[i].skip == ATTNGEN__SKIP_ON;
  assert_int_equal(skip_pairs, (int)skip_variants);
  assert_true(by_head_dim[0] > 0 && by_head_dim[1] > 0 && by_head_dim[2] > 0);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gfx942_static_budget_and_mfma_count),
  };
  return attngen_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
