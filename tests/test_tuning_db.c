/* test_tuning_db.c: the tuning database (runtime/src/tuning_db.c): file round trips, merge,
 * metadata mismatch, malformed lines, shape-class lookup and atomic writes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attngen_internal.h"

#define V_A "attn_fwd_d128_bshd_rtne_q3_kv64_w8_tail_gfx942"
#define V_B "attn_fwd_d128_bshd_rtne_q2_kv64_w8_off_gfx942"
#define V_C "attn_fwd_d128_bhsd_rtz_q2_kv32_w8_off_gfx942"

static attngen__tuning_meta mi300x_meta(void) {
  attngen__tuning_meta m;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_meta_set(&m, "0.1.0", "gfx942", "AMD Instinct MI300X", 304,
                                            "hip 6.2.41133", &d),
                   ATTNGEN_STATUS_OK);
  return m;
}

static attngen__tuning_record rec(attngen_layout l, attngen_rounding r, int b, int h, int sq,
                                  int skv, const char *variant, double ms) {
  attngen__tuning_record x;
  memset(&x, 0, sizeof x);
  x.layout = l;
  x.rounding = r;
  x.batch = b;
  x.heads = h;
  x.seqlen_q = sq;
  x.seqlen_kv = skv;
  snprintf(x.variant, sizeof x.variant, "%s", variant);
  x.time_ms = ms;
  x.tflops = 4.0 * b * h * (double)sq * skv * 128 / (ms * 1e-3) / 1e12;
  return x;
}

/* A fresh directory per test, removed with its plain files afterwards. */
typedef struct fixture {
  char dir[256];
  char path[320];
} fixture;

static int setup_dir(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  if (attngen_test_make_tmpdir(f->dir, sizeof f->dir, "attngen-tdb") != 0) {
    free(f);
    return -1;
  }
  snprintf(f->path, sizeof f->path, "%s/tuning.db", f->dir);
  *state = f;
  return 0;
}

static int teardown_dir(void **state) {
  fixture *f = *state;
  attngen_test_remove_tree(f->dir);
  free(f);
  return 0;
}

static void write_text(const char *path, const char *text) {
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
  assert_int_equal(fclose(fp), 0);
}

static char *read_text(const char *path) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  static char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[n] = 0;
  return buf;
}

/* Names in dir other than . and .., joined by spaces, sorted by readdir order. */
static int count_entries(const char *dir, char *names, size_t size) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  names[0] = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    n++;
    size_t k = strlen(names);
    snprintf(names + k, size - k, "%s ", e->d_name);
  }
  closedir(d);
  return n;
}

static const char *valid_header =
    "# comment\n"
    "attngen-tuning 1\n"
    "meta attngen_version 0.1.0\n"
    "meta target gfx942\n"
    "meta device AMD Instinct MI300X\n"
    "meta cu_count 304\n"
    "meta runtime hip 6.2.41133\n";

/* The metadata lines of valid_header, for format-2 texts. */
#define V2_META                                                                              \
  "meta attngen_version 0.1.0\nmeta target gfx942\nmeta device AMD Instinct MI300X\n"      \
  "meta cu_count 304\nmeta runtime hip 6.2.41133\n"

static void test_tuning_db_bucket_centred_on_powers_of_two(void **state) {
  (void)state;
  assert_int_equal(attngen__tuning_bucket(8192), 13);
  assert_int_equal(attngen__tuning_bucket(8000), 13);
  assert_int_equal(attngen__tuning_bucket(5792), 12); /* 2^12.5 = 5792.6 */
  assert_int_equal(attngen__tuning_bucket(5793), 13);
  assert_int_equal(attngen__tuning_bucket(11585), 13);
  assert_int_equal(attngen__tuning_bucket(11586), 14);
  assert_int_equal(attngen__tuning_bucket(1), 0);
  assert_int_equal(attngen__tuning_bucket(0.25), -2);
  assert_int_equal(attngen__tuning_bucket(0), -1000);
  int key[3];
  /* (2,24,8192): 48 * 64 blocks of 128 rows / 304 CUs = 10.1 waves -> R = 3 */
  attngen__tuning_class(2, 24, 8192, 8192, 304, key);
  assert_int_equal(key[0], 13);
  assert_int_equal(key[1], 13);
  assert_int_equal(key[2], 3);
  attngen__tuning_class(1, 12, 32760, 512, 304, key);
  assert_int_equal(key[0], 15);
  assert_int_equal(key[1], 9);
  assert_int_equal(key[2], 3); /* 12 * 256 blocks / 304 = 10.1 waves */
  attngen__tuning_class(32, 16, 512, 512, 304, key);
  assert_int_equal(key[2], 3); /* 2048 / 304 = 6.7 waves: round(log2 6.7) = 3 */
  attngen__tuning_class(1, 1, 100, 0, 0, key);
  assert_int_equal(key[1], -1000);
  assert_int_equal(key[2], 0); /* cu_count 0 counts as 1: one block */
}

static void test_tuning_db_round_trip(void **state) {
  fixture *f = *state;
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_new(&m, &db, &d), ATTNGEN_STATUS_OK);
  attngen__tuning_record r1 = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 24, 8192, 8192,
                                  V_A, 1.25);
  attngen__tuning_record r2 = rec(ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ, 1, 12, 32760, 257,
                                  V_C, 0.03125);
  attngen__tuning_record r3 = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 1, 1, 1, 0, V_B,
                                  0.0021);
  assert_int_equal(attngen__tuning_db_put(db, &r2, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_put(db, &r1, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_put(db, &r3, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_save(db, f->path, &d), ATTNGEN_STATUS_OK);

  attngen__tuning_file *back;
  assert_int_equal(attngen__tuning_db_load(f->path, &m, &back, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(d.problem, ATTNGEN__TUNING_FINE);
  assert_int_equal(attngen__tuning_db_count(back), 3);
  /* key order: bshd before bhsd, then B: (1,1,1,0), (2,24,...), then the bhsd record */
  const attngen__tuning_record *x = attngen__tuning_db_record(back, 0);
  assert_int_equal(x->seqlen_kv, 0);
  assert_string_equal(x->variant, V_B);
  assert_true(x->time_ms == 0.0021);
  x = attngen__tuning_db_record(back, 1);
  assert_int_equal(x->batch, 2);
  assert_int_equal(x->heads, 24);
  assert_string_equal(x->variant, V_A);
  assert_true(x->time_ms == 1.25);
  assert_true(fabs(x->tflops - r1.tflops) <= 1e-6 * r1.tflops);
  x = attngen__tuning_db_record(back, 2);
  assert_int_equal(x->layout, ATTNGEN_LAYOUT_BHSD);
  assert_int_equal(x->rounding, ATTNGEN_ROUND_RTZ);
  assert_int_equal(x->seqlen_kv, 257);
  assert_null(attngen__tuning_db_record(back, 3));
  const attngen__tuning_meta *bm = attngen__tuning_db_meta(back);
  assert_string_equal(bm->device, "AMD Instinct MI300X");
  assert_string_equal(bm->runtime, "hip 6.2.41133");
  assert_int_equal(bm->cu_count, 304);

  /* writing what was read gives the same bytes */
  char *t1, *t2;
  size_t n1, n2;
  assert_int_equal(attngen__tuning_db_format(db, &t1, &n1), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_format(back, &t2, &n2), ATTNGEN_STATUS_OK);
  assert_int_equal(n1, n2);
  assert_string_equal(t1, t2);
  assert_string_equal(t1, read_text(f->path));
  free(t1);
  free(t2);
  attngen__tuning_db_free(db);
  attngen__tuning_db_free(back);
}

static void test_tuning_db_parses_crlf_comments_and_blank_lines(void **state) {
  (void)state;
  const char *text = "\r\n# tuned by hand\r\nattngen-tuning 1\r\n  meta runtime  hip 6.2 \r\n"
                     "meta device AMD Instinct MI300X\r\nmeta target gfx942\r\n"
                     "meta cu_count 304\r\nmeta attngen_version 0.1.0\r\n\r\n"
                     "record\tbshd rtna 4 16 16384 16384 " V_A " 12.5 350.1\r\n";
  attngen__tuning_meta m;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_meta_set(&m, "0.1.0", "gfx942", "AMD Instinct MI300X", 304,
                                            "hip 6.2", &d),
                   ATTNGEN_STATUS_OK);
  attngen__tuning_file *db;
  assert_int_equal(attngen__tuning_db_parse(text, strlen(text), "mem", &m, &db, &d),
                   ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 1);
  assert_int_equal(attngen__tuning_db_record(db, 0)->rounding, ATTNGEN_ROUND_RTNA);
  attngen__tuning_db_free(db);
}

static void test_tuning_db_missing_file_is_reported_as_missing(void **state) {
  fixture *f = *state;
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_file *db = (attngen__tuning_file *)1;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_load(f->path, &m, &db, &d), ATTNGEN_STATUS_IO_ERROR);
  assert_null(db);
  assert_int_equal(d.problem, ATTNGEN__TUNING_MISSING);
}

/* Each metadata field, changed alone, makes the whole file ignored with a message naming
 * the field, the value found in the file and the expected one. */
static void test_tuning_db_metadata_mismatch_ignores_file(void **state) {
  fixture *f = *state;
  char text[4096];
  snprintf(text, sizeof text, "%srecord bshd rtne 2 24 8192 8192 %s 1.5 450\n", valid_header,
           V_A);
  write_text(f->path, text);
  struct {
    const char *field;
    const char *want;
    const char *found;
  } cases[] = {
      {"attngen_version", "0.2.0", "0.1.0"},
      {"target", "sm90", "gfx942"},
      {"device", "AMD Instinct MI308X", "AMD Instinct MI300X"},
      {"cu_count", "80", "304"},
      {"runtime", "hip 6.3.0", "hip 6.2.41133"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    attngen__tuning_meta m = mi300x_meta();
    if (i == 0) snprintf(m.attngen_version, sizeof m.attngen_version, "%s", cases[i].want);
    if (i == 1) snprintf(m.target, sizeof m.target, "%s", cases[i].want);
    if (i == 2) snprintf(m.device, sizeof m.device, "%s", cases[i].want);
    if (i == 3) m.cu_count = 80;
    if (i == 4) snprintf(m.runtime, sizeof m.runtime, "%s", cases[i].want);
    attngen__tuning_file *db = (attngen__tuning_file *)1;
    attngen__tuning_diag d;
    assert_int_equal(attngen__tuning_db_load(f->path, &m, &db, &d),
                     ATTNGEN_STATUS_INVALID_ARGUMENT);
    assert_null(db);
    assert_int_equal(d.problem, ATTNGEN__TUNING_MISMATCH);
    assert_string_equal(d.field, cases[i].field);
    char q[200];
    snprintf(q, sizeof q, "%s is '%s' in the file but '%s' here", cases[i].field,
             cases[i].found, cases[i].want);
    if (!strstr(d.message, q)) fail_msg("message '%s' lacks '%s'", d.message, q);
    assert_non_null(strstr(d.message, f->path));
  }
  /* NULL expected metadata accepts the file */
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_load(f->path, NULL, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 1);
  attngen__tuning_db_free(db);
}

/* Every malformed file is ignored as a whole (even when earlier records were fine) and the
 * message names the offending line. */
static void test_tuning_db_malformed_lines_name_the_line(void **state) {
  (void)state;
  /* a valid record first: a file is ignored as a whole, not up to the bad line */
  const char *ok_rec = "record bshd rtne 1 1 64 64 " V_B " 0.01 0.2\n";
  struct {
    const char *body; /* after valid_header + ok_rec (8 lines) unless it starts with '!' */
    int line;
    const char *words;
  } cases[] = {
      {"record bshd rtne 2 24 8192 " V_A " 1.5 450\n", 9, "9 fields"},
      {"record bxsd rtne 2 24 8192 8192 " V_A " 1.5 450\n", 9, "layout"},
      {"record bshd rtnx 2 24 8192 8192 " V_A " 1.5 450\n", 9, "rounding"},
      {"record bshd rtne 0 24 8192 8192 " V_A " 1.5 450\n", 9, "B, H, Sq"},
      {"record bshd rtne 2 24 -5 8192 " V_A " 1.5 450\n", 9, "B, H, Sq"},
      {"record bshd rtne 2 24 99999999999 8192 " V_A " 1.5 450\n", 9, "B, H, Sq"},
      {"record bshd rtne 2 24 8192 8192 bad-name 1.5 450\n", 9, "variant name"},
      {"record bshd rtne 2 24 8192 8192 " V_A " 0 450\n", 9, "time_ms"},
      {"record bshd rtne 2 24 8192 8192 " V_A " inf 450\n", 9, "time_ms"},
      {"record bshd rtne 2 24 8192 8192 " V_A " 1.5 nan\n", 9, "tflops"},
      {"record bshd rtne 2 24 8192 8192 " V_A " 1.5 450\n"
       "record bshd rtne 1 8 512 512 " V_B " 0.1 50\n"
       "\n"
       "record bshd rtne 2 24 8192 8192 " V_B " 1.7 420\n", 12, "second record"},
      {"record bshd rtne 2 24 8192 8192 " V_A " 1.5 450\nmeta target sm90\n", 10, "meta after"},
      {"bogus\n", 9, "unknown item"},
      {"record bshd rtne 2 24 8192 8192 " V_A " 1.5 450\x01\n", 9, "control character"},
      {"!attngen-tuning 3\n", 1, "unsupported format version"},
      /* format 2: 12 fields with head_dim, mask and H_kv */
      {"!attngen-tuning 2\n" V2_META "record bshd rtne 2 24 8192 8192 " V_A " 1.5 450\n", 7,
       "12 fields"},
      {"!attngen-tuning 2\n" V2_META "record bshd rtne 96 none 2 24 24 8192 8192 " V_A
       " 1.5 450\n", 7, "head_dim must be one of 64, 128, 256"},
      {"!attngen-tuning 2\n" V2_META "record bshd rtne 64 sliding 2 24 24 8192 8192 " V_A
       " 1.5 450\n", 7, "mask must be none or causal"},
      {"!attngen-tuning 2\n" V2_META "record bshd rtne 64 causal 2 24 5 8192 8192 " V_A
       " 1.5 450\n", 7, "H_kv must be an integer >= 1 that divides H (24)"},
      {"!attngen-tuning 2\n" V2_META "record bshd rtne 64 causal 2 24 0 8192 8192 " V_A
       " 1.5 450\n", 7, "H_kv"},
      {"!attngen-tuning 2\n" V2_META "record bshd rtne 128 none 2 24 24 8192 8192 " V_A
       " 1.5 450\nrecord bshd rtne 128 none 2 24 8 8192 8192 " V_B " 1 1\n"
       "record bshd rtne 128 none 2 24 0024 8192 8192 " V_B " 1 1\n", 9, "second record"},
      {"!\n# only a comment\nrecord bshd rtne 2 24 8192 8192 x 1 1\n", 3, "not a tuning"},
      {"!attngen-tuning 1\nmeta target gfx942\nrecord bshd rtne 2 24 8192 8192 " V_A " 1 1\n",
       3, "no meta 'attngen_version'"},
      {"!attngen-tuning 1\nmeta attngen_version 0.1.0\nmeta attngen_version 0.1.0\n", 3,
       "given twice"},
      {"!attngen-tuning 1\nmeta colour blue\n", 2, "unknown meta field 'colour'"},
      {"!attngen-tuning 1\nmeta cu_count many\n", 2, "cu_count"},
      {"!attngen-tuning 1\nmeta device\n", 2, "field name and a value"},
      {"!attngen-tuning 1\nmeta attngen_version 0.1.0\nmeta target gfx942\n", 3,
       "meta 'device' is missing"},
      {"!", 1, "empty file"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[8192];
    if (cases[i].body[0] == '!')
      snprintf(text, sizeof text, "%s", cases[i].body + 1);
    else
      snprintf(text, sizeof text, "%s%s%s", valid_header, ok_rec, cases[i].body);
    attngen__tuning_file *db = (attngen__tuning_file *)1;
    attngen__tuning_diag d;
    attngen_status st = attngen__tuning_db_parse(text, strlen(text), "t.db", NULL, &db, &d);
    if (st != ATTNGEN_STATUS_INVALID_ARGUMENT || db != NULL)
      fail_msg("case %zu: accepted:\n%s", i, text);
    assert_int_equal(d.problem, ATTNGEN__TUNING_MALFORMED);
    if (d.line != cases[i].line)
      fail_msg("case %zu: line %d, expected %d (%s)", i, d.line, cases[i].line, d.message);
    char where[32];
    snprintf(where, sizeof where, "t.db:%d:", cases[i].line);
    if (!strstr(d.message, where) || !strstr(d.message, cases[i].words))
      fail_msg("case %zu: message '%s' lacks '%s' or '%s'", i, d.message, where,
               cases[i].words);
  }
  /* a too-long line */
  char big[4096];
  snprintf(big, sizeof big, "%s# ", valid_header);
  size_t k = strlen(big);
  memset(big + k, 'x', 1100);
  big[k + 1100] = '\n';
  big[k + 1101] = 0;
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_parse(big, strlen(big), "t.db", NULL, &db, &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(d.line, 8);
  assert_non_null(strstr(d.message, "longer than"));
}

static void test_tuning_db_nearby_shape_uses_class_far_one_does_not(void **state) {
  (void)state;
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_new(&m, &db, &d), ATTNGEN_STATUS_OK);
  attngen__tuning_record r = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 24, 8192, 8192,
                                 V_A, 1.25);
  assert_int_equal(attngen__tuning_db_put(db, &r, &d), ATTNGEN_STATUS_OK);
  attngen__tuning_match how;
  const attngen__tuning_record *x;
  x = attngen__tuning_db_lookup(db, 2, 24, 8000, 8000, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_non_null(x);
  assert_int_equal(how, ATTNGEN__TUNING_CLASS);
  assert_string_equal(x->variant, V_A);
  /* same work per CU and sequence lengths: B*H traded between batch and heads */
  x = attngen__tuning_db_lookup(db, 1, 48, 8192, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_non_null(x);
  assert_int_equal(how, ATTNGEN__TUNING_CLASS);
  /* far: cross attention, 4x the sequence, a quarter of the work, other layout/rounding */
  struct {
    int b, h, sq, skv;
    attngen_layout l;
    attngen_rounding rd;
  } far[] = {
      {2, 24, 8192, 512, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE},
      {2, 24, 32768, 32768, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE},
      {1, 12, 8192, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE},
      {2, 24, 8192, 8192, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTNE},
      {2, 24, 8192, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTZ},
      {2, 24, 8192, 0, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE},
  };
  for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
    x = attngen__tuning_db_lookup(db, far[i].b, far[i].h, far[i].sq, far[i].skv, far[i].l,
                                  far[i].rd, &how);
    if (x) fail_msg("far shape %zu found %s", i, x->variant);
    assert_int_equal(how, ATTNGEN__TUNING_NONE);
  }
  /* invalid queries find nothing */
  assert_null(attngen__tuning_db_lookup(db, 0, 24, 8192, 8192, ATTNGEN_LAYOUT_BSHD,
                                        ATTNGEN_ROUND_RTNE, &how));
  assert_null(attngen__tuning_db_lookup(NULL, 2, 24, 8192, 8192, ATTNGEN_LAYOUT_BSHD,
                                        ATTNGEN_ROUND_RTNE, &how));
  attngen__tuning_db_free(db);
}

/* A record of another kind: head_dim, mask and KV heads given (0 = 128 / heads). */
static attngen__tuning_record rec_kind(int b, int h, int sq, int skv, int head_dim, int causal,
                                       int heads_kv, const char *variant, double ms) {
  attngen__tuning_record x = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, b, h, sq, skv, variant, ms);
  x.head_dim = head_dim;
  x.causal = causal;
  x.heads_kv = heads_kv;
  return x;
}

/* The dispatcher's query for a call (tuning.h). */
static int lookup_call(const attngen__tuning_file *db, int b, int h, int sq, int skv,
                       int head_dim, int causal, int heads_kv, int varlen, char *variant,
                       char *why) {
  attngen_fwd_args a;
  attngen_fwd_args_init(&a);
  a.batch = b;
  a.heads = h;
  a.seqlen_q = sq;
  a.seqlen_kv = skv;
  a.head_dim = head_dim;
  a.heads_kv = heads_kv;
  attngen__tuning_query q = {attngen__call_shape_of(&a), causal, varlen};
  variant[0] = 0;
  return attngen__tuning_lookup(db, &q, variant, 128, why, 256);
}

/* head_dim, the mask and the KV heads are part of a record's key: a call takes the record of
 * its own kind (exactly or by class), never one tuned for another kind; 128 and heads given
 * explicitly are the canonical 0; packed calls take none. */
static void test_tuning_db_kinds_are_keys(void **state) {
  (void)state;
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_new(&m, &db, &d), ATTNGEN_STATUS_OK);
  const char *dense = "attn_fwd_d128_bshd_rtne_dense", *d64 = "attn_fwd_d64_bshd_rtne_dense",
             *causal = "attn_fwd_d128_bshd_rtne_causal", *gqa = "attn_fwd_d128_bshd_rtne_gqa3",
             *d256c = "attn_fwd_d256_bshd_rtne_causal_mqa";
  attngen__tuning_record r[5] = {
      rec_kind(2, 24, 8192, 8192, 0, 0, 0, dense, 1.25),
      rec_kind(2, 24, 8192, 8192, 64, 0, 0, d64, 0.7),
      rec_kind(2, 24, 8192, 8192, 0, 1, 0, causal, 0.8),
      rec_kind(2, 24, 8192, 8192, 128, 0, 8, gqa, 1.2), /* 128 given: canonical 0 */
      rec_kind(1, 16, 4096, 4096, 256, 1, 1, d256c, 0.9),
  };
  for (int i = 0; i < 5; i++) assert_int_equal(attngen__tuning_db_put(db, &r[i], &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 5);
  /* the same key written another way replaces, not adds */
  attngen__tuning_record again = rec_kind(2, 24, 8192, 8192, 128, 0, 24, dense, 1.0);
  assert_int_equal(attngen__tuning_db_put(db, &again, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 5);

  char v[128], why[256];
  struct {
    int b, h, sq, skv, hd, causal, hkv, varlen;
    const char *want; /* NULL: no entry */
    const char *why;
  } cases[] = {
      {2, 24, 8192, 8192, 128, 0, 0, 0, dense, "exact entry (2,24,8192,8192)"},
      {2, 24, 8192, 8192, 128, 0, 24, 0, dense, "exact"},
      {2, 24, 8192, 8192, 64, 0, 0, 0, d64, "exact entry (2,24,8192,8192, head_dim 64)"},
      {2, 24, 8192, 8192, 128, 1, 0, 0, causal, "exact entry (2,24,8192,8192, causal)"},
      {2, 24, 8192, 8192, 128, 0, 8, 0, gqa, "(2,24,8192,8192, 8 KV heads)"},
      {1, 16, 4096, 4096, 256, 1, 1, 0, d256c, "head_dim 256, causal, 1 KV heads"},
      /* the same classes, nearby shapes */
      {2, 24, 8000, 8000, 64, 0, 0, 0, d64, "shape-class entry"},
      {2, 24, 8000, 8000, 128, 1, 0, 0, causal, "shape-class entry"},
      {2, 24, 8000, 8000, 128, 0, 8, 0, gqa, "shape-class entry"},
      {4, 12, 8000, 8000, 128, 0, 4, 0, gqa, "shape-class entry"}, /* group 3, same W */
      {1, 16, 4000, 4000, 256, 1, 1, 0, d256c, "shape-class entry"},
      /* other kinds: no entry, whatever the shape */
      {2, 24, 8192, 8192, 256, 0, 0, 0, NULL, "no tuning entry"},
      {2, 24, 8192, 8192, 64, 1, 0, 0, NULL, "no tuning entry"},
      {2, 24, 8192, 8192, 128, 0, 4, 0, NULL, "no tuning entry"},  /* group 6 */
      {2, 24, 8000, 8000, 128, 0, 12, 0, NULL, "no tuning entry"}, /* group 2 */
      {1, 16, 4096, 4096, 256, 0, 1, 0, NULL, "no tuning entry"},
      {1, 16, 4096, 4096, 256, 1, 0, 0, NULL, "no tuning entry"},
      {2, 24, 8192, 8192, 128, 0, 0, 1, NULL, "packed variable-length call"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = lookup_call(db, cases[i].b, cases[i].h, cases[i].sq, cases[i].skv, cases[i].hd,
                          cases[i].causal, cases[i].hkv, cases[i].varlen, v, why);
    if (got != (cases[i].want != NULL) || (cases[i].want && strcmp(v, cases[i].want) != 0) ||
        !strstr(why, cases[i].why))
      fail_msg("case %zu: got %d '%s' (%s), expected '%s' (%s)", i, got, v, why,
               cases[i].want ? cases[i].want : "no entry", cases[i].why);
  }
  /* the direct lookup of a head_dim-128 maskless MHA call is the same */
  assert_string_equal(attngen__tuning_db_lookup(db, 2, 24, 8192, 8192, ATTNGEN_LAYOUT_BSHD,
                                                ATTNGEN_ROUND_RTNE, NULL)->variant, dense);

  /* format 2 written, read back to the same records and the same text */
  char *t1, *t2;
  assert_int_equal(attngen__tuning_db_format(db, &t1, NULL), ATTNGEN_STATUS_OK);
  assert_non_null(strstr(t1, "\nattngen-tuning 2\n"));
  assert_non_null(strstr(t1, "record bshd rtne 64 none 2 24 24 8192 8192 attn_fwd_d64_bshd_rtne_dense 0.7 "));
  assert_non_null(strstr(t1, "record bshd rtne 128 causal 2 24 24 8192 8192 "));
  assert_non_null(strstr(t1, "record bshd rtne 128 none 2 24 8 8192 8192 "));
  assert_non_null(strstr(t1, "record bshd rtne 256 causal 1 16 1 4096 4096 "));
  attngen__tuning_file *back;
  assert_int_equal(attngen__tuning_db_parse(t1, strlen(t1), "mem", &m, &back, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(back), 5);
  for (size_t i = 0; i < 5; i++) {
    const attngen__tuning_record *x = attngen__tuning_db_record(db, i), *y = attngen__tuning_db_record(back, i);
    assert_string_equal(x->variant, y->variant);
    assert_int_equal(x->head_dim, y->head_dim);
    assert_int_equal(x->causal, y->causal);
    assert_int_equal(x->heads_kv, y->heads_kv);
  }
  assert_int_equal(attngen__tuning_db_format(back, &t2, NULL), ATTNGEN_STATUS_OK);
  assert_string_equal(t1, t2);
  free(t1);
  free(t2);
  attngen__tuning_db_free(back);

  /* records of impossible kinds are refused */
  attngen__tuning_record bad = rec_kind(2, 24, 64, 64, 96, 0, 0, dense, 1);
  assert_int_equal(attngen__tuning_db_put(db, &bad, &d), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(d.message, "head_dim"));
  bad = rec_kind(2, 24, 64, 64, 64, 2, 0, dense, 1);
  assert_int_equal(attngen__tuning_db_put(db, &bad, &d), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(d.message, "causal"));
  bad = rec_kind(2, 24, 64, 64, 64, 0, 5, dense, 1);
  assert_int_equal(attngen__tuning_db_put(db, &bad, &d), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(d.message, "heads_kv"));
  assert_int_equal(attngen__tuning_db_count(db), 5);
  attngen__tuning_db_free(db);
}

/* A format-1 file (written before the kinds were keys) keeps working: its records are head_dim
 * 128, maskless MHA calls; a merge rewrites it in format 2 with those records kept. */
static void test_tuning_db_format1_file_read_and_upgraded_by_merge(void **state) {
  fixture *f = *state;
  char text[4096];
  snprintf(text, sizeof text, "%srecord bshd rtne 2 24 8192 8192 %s 1.5 450\n", valid_header,
           V_A);
  write_text(f->path, text);
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_load(f->path, &m, &db, &d), ATTNGEN_STATUS_OK);
  char v[128], why[256];
  assert_int_equal(lookup_call(db, 2, 24, 8192, 8192, 128, 0, 0, 0, v, why), 1);
  assert_string_equal(v, V_A);
  assert_int_equal(lookup_call(db, 2, 24, 8192, 8192, 64, 0, 0, 0, v, why), 0);
  assert_int_equal(lookup_call(db, 2, 24, 8192, 8192, 128, 1, 0, 0, v, why), 0);
  assert_int_equal(lookup_call(db, 2, 24, 8192, 8192, 128, 0, 8, 0, v, why), 0);
  attngen__tuning_db_free(db);

  attngen__tuning_record add = rec_kind(2, 24, 8192, 8192, 64, 1, 8, V_B, 0.5);
  assert_int_equal(attngen__tuning_db_merge_file(f->path, &m, &add, 1, 0, &d), ATTNGEN_STATUS_OK);
  const char *now = read_text(f->path);
  assert_non_null(strstr(now, "\nattngen-tuning 2\n"));
  assert_non_null(strstr(now, "record bshd rtne 128 none 2 24 24 8192 8192 " V_A " 1.5 450\n"));
  assert_non_null(strstr(now, "record bshd rtne 64 causal 2 24 8 8192 8192 " V_B " 0.5 "));
  assert_int_equal(attngen__tuning_db_load(f->path, &m, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 2);
  assert_int_equal(lookup_call(db, 2, 24, 8192, 8192, 64, 1, 8, 0, v, why), 1);
  assert_string_equal(v, V_B);
  attngen__tuning_db_free(db);
}

static void test_tuning_db_exact_beats_class_and_nearest_wins(void **state) {
  (void)state;
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_new(&m, &db, &d), ATTNGEN_STATUS_OK);
  attngen__tuning_record r1 = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 24, 8192, 8192,
                                  V_A, 1.25);
  attngen__tuning_record r2 = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 24, 7000, 7000,
                                  V_B, 1.0);
  assert_int_equal(attngen__tuning_db_put(db, &r2, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_put(db, &r1, &d), ATTNGEN_STATUS_OK);
  attngen__tuning_match how;
  const attngen__tuning_record *x;
  x = attngen__tuning_db_lookup(db, 2, 24, 8192, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_int_equal(how, ATTNGEN__TUNING_EXACT);
  assert_string_equal(x->variant, V_A);
  x = attngen__tuning_db_lookup(db, 2, 24, 7000, 7000, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_int_equal(how, ATTNGEN__TUNING_EXACT);
  assert_string_equal(x->variant, V_B);
  /* both in the class of 7800: the nearer in log space (8192) wins; of 7100: 7000 wins */
  x = attngen__tuning_db_lookup(db, 2, 24, 7800, 7800, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_int_equal(how, ATTNGEN__TUNING_CLASS);
  assert_string_equal(x->variant, V_A);
  x = attngen__tuning_db_lookup(db, 2, 24, 7100, 7100, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_int_equal(how, ATTNGEN__TUNING_CLASS);
  assert_string_equal(x->variant, V_B);
  attngen__tuning_db_free(db);
}

static void test_tuning_db_merge_replaces_same_key_and_keeps_others(void **state) {
  fixture *f = *state;
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_diag d;
  attngen__tuning_record first[2] = {
      rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 24, 8192, 8192, V_A, 1.25),
      rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 32, 16, 512, 512, V_B, 0.5),
  };
  assert_int_equal(attngen__tuning_db_merge_file(f->path, &m, first, 2, 0, &d),
                   ATTNGEN_STATUS_OK);
  attngen__tuning_record second[2] = {
      rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 24, 8192, 8192, V_B, 1.125),
      rec(ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ, 1, 40, 75600, 512, V_C, 3.5),
  };
  assert_int_equal(attngen__tuning_db_merge_file(f->path, &m, second, 2, 0, &d),
                   ATTNGEN_STATUS_OK);
  attngen__tuning_file *db;
  assert_int_equal(attngen__tuning_db_load(f->path, &m, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 3);
  attngen__tuning_match how;
  const attngen__tuning_record *x;
  x = attngen__tuning_db_lookup(db, 2, 24, 8192, 8192, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_string_equal(x->variant, V_B);
  assert_true(x->time_ms == 1.125);
  x = attngen__tuning_db_lookup(db, 32, 16, 512, 512, ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE,
                                &how);
  assert_int_equal(how, ATTNGEN__TUNING_EXACT);
  assert_string_equal(x->variant, V_B);
  x = attngen__tuning_db_lookup(db, 1, 40, 75600, 512, ATTNGEN_LAYOUT_BHSD, ATTNGEN_ROUND_RTZ,
                                &how);
  assert_int_equal(how, ATTNGEN__TUNING_EXACT);
  assert_string_equal(x->variant, V_C);
  attngen__tuning_db_free(db);
  /* an invalid record is refused before the file is touched */
  attngen__tuning_record bad = second[0];
  bad.time_ms = -1;
  char before[65536];
  snprintf(before, sizeof before, "%s", read_text(f->path));
  assert_int_equal(attngen__tuning_db_merge_file(f->path, &m, &bad, 1, 0, &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_string_equal(before, read_text(f->path));
}

static void test_tuning_db_merge_keeps_foreign_file_unless_replacing(void **state) {
  fixture *f = *state;
  char text[4096];
  snprintf(text, sizeof text, "%srecord bshd rtne 2 24 8192 8192 %s 1.5 450\n", valid_header,
           V_A);
  write_text(f->path, text);
  attngen__tuning_meta m = mi300x_meta();
  snprintf(m.device, sizeof m.device, "AMD Instinct MI325X");
  attngen__tuning_record r = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 1, 8, 1024, 1024,
                                 V_B, 0.25);
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_merge_file(f->path, &m, &r, 1, 0, &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(d.problem, ATTNGEN__TUNING_MISMATCH);
  assert_string_equal(d.field, "device");
  assert_non_null(strstr(d.message, "not overwritten"));
  assert_string_equal(read_text(f->path), text);

  assert_int_equal(attngen__tuning_db_merge_file(f->path, &m, &r, 1, 1, &d), ATTNGEN_STATUS_OK);
  assert_non_null(strstr(d.message, "replaced"));
  attngen__tuning_file *db;
  assert_int_equal(attngen__tuning_db_load(f->path, &m, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 1); /* the foreign record is gone */
  assert_int_equal(attngen__tuning_db_record(db, 0)->seqlen_q, 1024);
  attngen__tuning_db_free(db);

  /* a malformed file is not overwritten either */
  write_text(f->path, "attngen-tuning 1\nmeta target\n");
  assert_int_equal(attngen__tuning_db_merge_file(f->path, &m, &r, 1, 0, &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(d.problem, ATTNGEN__TUNING_MALFORMED);
  assert_int_equal(d.line, 2);
  assert_string_equal(read_text(f->path), "attngen-tuning 1\nmeta target\n");
}

static void test_tuning_db_atomic_write_leaves_no_temp_files(void **state) {
  fixture *f = *state;
  attngen__tuning_meta m = mi300x_meta();
  attngen__tuning_diag d;
  /* the directory is created on demand */
  char nested[400];
  snprintf(nested, sizeof nested, "%s/a/b/tuning.db", f->dir);
  for (int i = 0; i < 5; i++) {
    attngen__tuning_record r = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 1 + i, 8, 1024,
                                   1024, V_B, 0.25 + i);
    assert_int_equal(attngen__tuning_db_merge_file(nested, &m, &r, 1, 0, &d),
                     ATTNGEN_STATUS_OK);
  }
  char names[1024], sub[400];
  snprintf(sub, sizeof sub, "%s/a/b", f->dir);
  /* the database and its lock file (kept: deleting a lock file another process may be
   * waiting on would let two processes hold "the" lock), no temporary file */
  assert_int_equal(count_entries(sub, names, sizeof names), 2);
  assert_true(strcmp(names, "tuning.db tuning.db.lock ") == 0 ||
              strcmp(names, "tuning.db.lock tuning.db ") == 0);
  attngen__tuning_file *db;
  assert_int_equal(attngen__tuning_db_load(nested, &m, &db, &d), ATTNGEN_STATUS_OK);
  assert_int_equal(attngen__tuning_db_count(db), 5);

  /* a failing rename (the target is a non-empty directory) removes the temporary file and
   * leaves the directory as it was */
  char blocked[400], inner[480];
  snprintf(blocked, sizeof blocked, "%s/blocked", f->dir);
  assert_int_equal(mkdir(blocked, 0777), 0);
  snprintf(inner, sizeof inner, "%s/keep", blocked);
  write_text(inner, "x");
  assert_int_equal(attngen__tuning_db_save(db, blocked, &d), ATTNGEN_STATUS_IO_ERROR);
  assert_int_equal(d.problem, ATTNGEN__TUNING_UNREADABLE);
  assert_non_null(strstr(d.message, blocked));
  assert_int_equal(count_entries(f->dir, names, sizeof names), 2); /* a/ and blocked/ */
  assert_null(strstr(names, ".tmp."));
  attngen__tuning_db_free(db);
}

static void test_tuning_db_rejects_bad_metadata_and_records(void **state) {
  (void)state;
  attngen__tuning_meta m;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_meta_set(&m, "0.1.0", "gfx942", "two\nlines", 304, "hip", &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_string_equal(d.field, "device");
  assert_int_equal(attngen__tuning_meta_set(&m, "0.1.0", "", "dev", 304, "hip", &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_string_equal(d.field, "target");
  assert_int_equal(attngen__tuning_meta_set(&m, "0.1.0", "gfx942", "dev", -1, "hip", &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_string_equal(d.field, "cu_count");
  char longname[300];
  memset(longname, 'd', sizeof longname - 1);
  longname[sizeof longname - 1] = 0;
  assert_int_equal(attngen__tuning_meta_set(&m, "0.1.0", "gfx942", longname, 1, "hip", &d),
                   ATTNGEN_STATUS_INVALID_ARGUMENT);
  m = mi300x_meta();
  attngen__tuning_file *db;
  assert_int_equal(attngen__tuning_db_new(&m, &db, &d), ATTNGEN_STATUS_OK);
  attngen__tuning_record r = rec(ATTNGEN_LAYOUT_BSHD, ATTNGEN_ROUND_RTNE, 2, 24, 8192, 8192,
                                 "has space", 1.0);
  assert_int_equal(attngen__tuning_db_put(db, &r, &d), ATTNGEN_STATUS_INVALID_ARGUMENT);
  r = rec(ATTNGEN_LAYOUT_BSHD, (attngen_rounding)7, 2, 24, 8192, 8192, V_A, 1.0);
  assert_int_equal(attngen__tuning_db_put(db, &r, &d), ATTNGEN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(attngen__tuning_db_count(db), 0);
  attngen__tuning_db_free(db);
}

static void test_tuning_db_default_path_follows_environment(void **state) {
  (void)state;
  char buf[512];
  setenv("ATTNGEN_TUNING_FILE", "/x/y.db", 1);
  assert_int_equal(attngen__tuning_default_path(buf, sizeof buf), 0);
  assert_string_equal(buf, "/x/y.db");
  unsetenv("ATTNGEN_TUNING_FILE");
  setenv("ATTNGEN_CACHE_DIR", "/c", 1);
  assert_int_equal(attngen__tuning_default_path(buf, sizeof buf), 0);
  assert_string_equal(buf, "/c/tuning.db");
  unsetenv("ATTNGEN_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  assert_int_equal(attngen__tuning_default_path(buf, sizeof buf), 0);
  assert_string_equal(buf, "/xdg/attngen/tuning.db");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  assert_int_equal(attngen__tuning_default_path(buf, sizeof buf), 0);
  assert_string_equal(buf, "/home/u/.cache/attngen/tuning.db");
  assert_int_equal(attngen__tuning_default_path(buf, 8), -1);
}

static void test_tuning_db_meta_from_device_is_valid_and_stable(void **state) {
  (void)state;
  attngen_device_props p;
  memset(&p, 0, sizeof p);
  snprintf(p.backend, sizeof p.backend, "hip");
  snprintf(p.name, sizeof p.name, "  AMD Instinct\tMI300X\n ");
  p.compute_units = 304;
  p.driver_version = 60241133;
  p.target = "gfx942";
  attngen__tuning_meta m, again;
  attngen__tuning_meta_from_device(&p, &m);
  assert_string_equal(m.device, "AMD Instinct MI300X?");
  assert_string_equal(m.target, "gfx942");
  assert_string_equal(m.runtime, "hip 60241133");
  assert_string_equal(m.attngen_version, ATTNGEN_VERSION_STRING);
  assert_int_equal(m.cu_count, 304);
  attngen__tuning_meta_from_device(&p, &again);
  assert_null(attngen__tuning_meta_diff(&m, &again));
  /* what it makes is always writable */
  attngen__tuning_file *db;
  attngen__tuning_diag d;
  assert_int_equal(attngen__tuning_db_new(&m, &db, &d), ATTNGEN_STATUS_OK);
  attngen__tuning_db_free(db);
  memset(p.name, 0, sizeof p.name);
  p.target = NULL;
  attngen__tuning_meta_from_device(&p, &m);
  assert_string_equal(m.device, "unknown");
  assert_string_equal(m.target, "hip");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tuning_db_bucket_centred_on_powers_of_two),
      cmocka_unit_test_setup_teardown(test_tuning_db_round_trip, setup_dir, teardown_dir),
      cmocka_unit_test(test_tuning_db_parses_crlf_comments_and_blank_lines),
      cmocka_unit_test_setup_teardown(test_tuning_db_missing_file_is_reported_as_missing,
                                      setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_tuning_db_metadata_mismatch_ignores_file, setup_dir,
                                      teardown_dir),
      cmocka_unit_test(test_tuning_db_malformed_lines_name_the_line),
      cmocka_unit_test(test_tuning_db_nearby_shape_uses_class_far_one_does_not),
      cmocka_unit_test(test_tuning_db_exact_beats_class_and_nearest_wins),
      cmocka_unit_test(test_tuning_db_kinds_are_keys),
      cmocka_unit_test_setup_teardown(test_tuning_db_format1_file_read_and_upgraded_by_merge,
                                      setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_tuning_db_merge_replaces_same_key_and_keeps_others,
                                      setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_tuning_db_merge_keeps_foreign_file_unless_replacing,
                                      setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_tuning_db_atomic_write_leaves_no_temp_files,
                                      setup_dir, teardown_dir),
      cmocka_unit_test(test_tuning_db_rejects_bad_metadata_and_records),
      cmocka_unit_test(test_tuning_db_default_path_follows_environment),
      cmocka_unit_test(test_tuning_db_meta_from_device_is_valid_and_stable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
