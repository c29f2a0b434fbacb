/* emu_engine.c: the gfx942 wave64 execution engine. A grid runs one block at a time (in
 * a seed-shuffled order); every work-item of the block is a cooperative fiber. Lanes run
 * freely until a wave-wide point (cross-lane op, s_waitcnt, s_barrier, end), where they
 * suspend; when all 64 lanes of the wave are there, the engine checks that they agree,
 * performs the operation and lets the wave go on. Which wave runs next is chosen by seed,
 * so missing barriers change results (and the LDS race check reports them).
 *
 * Memory model: buffer and LDS operations are queued per wave in issue order (vmcnt and
 * lgkmcnt queues) and performed only at the s_waitcnt that covers them (or when the queue
 * exceeds the hardware counter range, or at the wave's end for writes); a load's
 * destination register holds ATTNGEN__EMU_POISON until then. */
#define _GNU_SOURCE
#include "emu.h"
#include "emu_core.h"
#include "emu_fiber.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Fiber stacks are announced to valgrind when its header is present (no-ops otherwise). */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define ATTNGEN__EMU_VALGRIND 1
#endif
#endif

enum { SYNC_NONE, SYNC_WAVEOP, SYNC_WAITCNT, SYNC_BARRIER, SYNC_EXIT };
enum { W_RUN, W_BARRIER, W_DONE };
enum { OP_LOAD, OP_STORE, OP_ATOMIC_ADD, OP_LOAD_LDS, OP_DS_READ, OP_DS_WRITE, OP_DS_XLANE };

/* Hardware counter limits (gfx9: vmcnt 6 bits, lgkmcnt 4 bits): issue stalls beyond them,
 * which the engine models by landing the oldest operations at the next wave-wide point. */
#define VM_MAX 63
#define LGKM_MAX 15
#define XBUF 64 /* bytes per lane for wave-op operands */

typedef struct memlane {
  void *dst;                /* load destination (a register in the lane's frame) */
  const unsigned char *src; /* global address of dword 0 (loads) */
  unsigned char *gdst;      /* global address of dword 0 (stores) */
  uint32_t lds;             /* LDS address (ds ops, load-to-LDS) */
  uint32_t inrange;         /* bit i: dword i inside the buffer */
  unsigned char data[16];   /* store / ds_write data captured at issue */
} memlane;

typedef struct memop {
  int kind;
  const char *name;
  attngen__emu_site site;
  unsigned bytes;
  attngen__emu_rsrc rsrc;
  uint32_t soffset, m0;
  attngen__emu_wave_fn fn; /* OP_DS_XLANE semantics */
  uint32_t imm;
  memlane l[ATTNGEN__EMU_WAVE];
} memop;

typedef struct memq {
  memop *ring;
  size_t cap;
  uint64_t head; /* sequence number of the oldest op not landed */
  uint64_t tail; /* next sequence number to allocate */
} memq;

struct block;
struct wave;

typedef struct lane {
  attngen__fiber fib;
  struct block *blk;
  struct wave *wave;
  unsigned lane, tid;
  int sync;
  const char *name;
  attngen__emu_wave_fn fn;
  attngen__emu_site site;
  unsigned char imm[32];
  unsigned imm_size, out_size;
  void *out;
  int vmcnt, lgkmcnt;
  const attngen__emu_var *vars; /* variables named at the wait, or NULL: unchecked */
  unsigned nvars;
  uint64_t vm_issued, lgkm_issued;
  char *stack_lo, *stack_hi;
  unsigned valgrind_id;
} lane;

typedef struct wave {
  unsigned id;
  lane *lanes;
  int state;
  memq vm, lgkm;
  unsigned char xin[ATTNGEN__EMU_WAVE * XBUF];
  unsigned char xout[ATTNGEN__EMU_WAVE * XBUF];
  attngen__emu_site barrier_site;
} wave;

/* Race-check shadow of one LDS dword: last writer and readers, by barrier epoch. */
typedef struct lds_shadow {
  uint64_t w_epoch, r_epoch;
  const char *w_name;
  unsigned w_line;
  uint16_t w_wave, r_waves;
  uint16_t w_lane;
} lds_shadow;

typedef struct block {
  attngen__fiber sched;
  lane *lanes;
  wave *waves;
  unsigned nlanes, nwaves;
  unsigned bid[3], gdim[3];
  attngen__emu_kernel_fn fn;
  attngen_kargs args;
  unsigned char *lds;
  uint32_t lds_bytes;     /* accesses are checked against this */
  uint32_t lds_limit;     /* the option's limit */
  uint32_t lds_declared;  /* size declared by the kernel (AG_LDS_DECLARE), 0 = none yet */
  lds_shadow *shadow;
  int race_check;
  uint64_t epoch;
  uint64_t rng;
  int failed;
  char *err;
  size_t errlen;
  uint64_t n_syncs, n_mem;
} block;

static __thread lane *tls_lane __attribute__((tls_model("initial-exec")));
static __thread block *tls_block __attribute__((tls_model("initial-exec")));

static uint64_t st_launches, st_blocks, st_mfma, st_syncs, st_mem, st_ns;

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static const char *site_file(attngen__emu_site s) { return s.file ? s.file : "?"; }

/* Appends the block/wave/lane prefix and the message to the block's error text (the
 * first failure wins) and marks the run failed. */
static void block_vfail(block *b, int wave_id, int lane_id, const char *fmt, va_list ap) {
  if (b->failed) return;
  b->failed = 1;
  if (!b->err || b->errlen == 0) return;
  int n;
  if (wave_id >= 0 && lane_id >= 0)
    n = snprintf(b->err, b->errlen, "emu: block (%u,%u,%u) wave %d lane %d: ", b->bid[0],
                 b->bid[1], b->bid[2], wave_id, lane_id);
  else if (wave_id >= 0)
    n = snprintf(b->err, b->errlen, "emu: block (%u,%u,%u) wave %d: ", b->bid[0], b->bid[1],
                 b->bid[2], wave_id);
  else
    n = snprintf(b->err, b->errlen, "emu: block (%u,%u,%u): ", b->bid[0], b->bid[1],
                 b->bid[2]);
  if (n < 0 || (size_t)n >= b->errlen) return;
  vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
}

static void block_fail(block *b, int wave_id, int lane_id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void block_fail(block *b, int wave_id, int lane_id, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  block_vfail(b, wave_id, lane_id, fmt, ap);
  va_end(ap);
}

static void lane_yield(lane *l) { attngen__fiber_switch(&l->fib, &l->blk->sched); }

/* Leaves the lane for good after a failure was recorded. */
static __attribute__((noreturn)) void lane_abandon(lane *l) {
  for (;;) lane_yield(l);
}

void attngen__emu_fail(attngen__emu_site site, const char *fmt, ...) {
  lane *l = tls_lane;
  va_list ap;
  char msg[512];
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!l) {
    fprintf(stderr, "attngen emu: wrapper called outside the emulator: %s\n", msg);
    abort();
  }
  block_fail(l->blk, (int)l->wave->id, (int)l->lane, "%s (at %s:%u)", msg, site_file(site),
             site.line);
  lane_abandon(l);
}

static lane *cur_lane(const char *what) {
  lane *l = tls_lane;
  if (!l) {
    fprintf(stderr, "attngen emu: %s called outside an emulated kernel\n", what);
    abort();
  }
  return l;
}

/* --- identity ---------------------------------------------------------------------- */
unsigned attngen__emu_thread_id(int dim) { return dim == 0 ? cur_lane("thread_id")->tid : 0; }
unsigned attngen__emu_block_id(int dim) {
  return (dim >= 0 && dim < 3) ? cur_lane("block_id")->blk->bid[dim] : 0;
}
unsigned attngen__emu_block_dim(int dim) {
  return dim == 0 ? cur_lane("block_dim")->blk->nlanes : 1;
}
unsigned attngen__emu_grid_dim(int dim) {
  return (dim >= 0 && dim < 3) ? cur_lane("grid_dim")->blk->gdim[dim] : 1;
}
unsigned attngen__emu_lane_id(void) { return cur_lane("lane_id")->lane; }
unsigned attngen__emu_wave_id(void) { return cur_lane("wave_id")->wave->id; }

unsigned attngen__emu_lds_base(unsigned declared_bytes) {
  lane *l = cur_lane("lds_base");
  block *b = l->blk;
  attngen__emu_site none = {0, 0};
  if (declared_bytes == 0 || declared_bytes > ATTNGEN__EMU_LDS_BYTES)
    attngen__emu_fail(none, "AG_LDS_BASE: declared LDS size %u is not in 1..65536",
                      declared_bytes);
  if (b->lds_declared && b->lds_declared != declared_bytes)
    attngen__emu_fail(none, "AG_LDS_BASE: LDS declared with %u bytes, earlier with %u",
                      declared_bytes, b->lds_declared);
  b->lds_declared = declared_bytes;
  b->lds_bytes = declared_bytes < b->lds_limit ? declared_bytes : b->lds_limit;
  return 0;
}

/* --- poison ------------------------------------------------------------------------ */
int attngen__emu_is_poison(uint32_t bits) {
  return bits == ATTNGEN__EMU_POISON || bits == ATTNGEN__EMU_LDS_POISON ||
         bits == ATTNGEN__EMU_POISON_QUIET || bits == (ATTNGEN__EMU_LDS_POISON | 0x400000u);
}

void attngen__emu_check_operand(const char *name, const char *operand, const void *p,
                                unsigned n_dwords, attngen__emu_site site) {
  const unsigned char *c = (const unsigned char *)p;
  for (unsigned i = 0; i < n_dwords; i++) {
    uint32_t v;
    memcpy(&v, c + 4 * i, 4);
    if (!attngen__emu_is_poison(v)) continue;
    if (v == ATTNGEN__EMU_LDS_POISON || v == (ATTNGEN__EMU_LDS_POISON | 0x400000u))
      attngen__emu_fail(site,
                        "%s: operand %s dword %u holds LDS poison 0x%08X: LDS that no "
                        "operation wrote was read (missing write, wrong index or missing "
                        "s_barrier)",
                        name, operand, i, v);
    attngen__emu_fail(site,
                      "%s: operand %s dword %u holds poison 0x%08X: a load's destination was "
                      "read before the s_waitcnt that covers the load",
                      name, operand, i, v);
  }
}

/* --- memory queues ----------------------------------------------------------------- */
static memop *memq_at(memq *q, uint64_t seq) { return &q->ring[seq % q->cap]; }

static int memq_grow(memq *q) {
  size_t ncap = q->cap ? q->cap * 2 : 16;
  memop *nr = (memop *)malloc(ncap * sizeof *nr);
  if (!nr) return -1;
  for (uint64_t s = q->head; s < q->tail; s++) nr[s % ncap] = q->ring[s % q->cap];
  free(q->ring);
  q->ring = nr;
  q->cap = ncap;
  return 0;
}

static const char *op_counter(int kind) {
  return (kind == OP_DS_READ || kind == OP_DS_WRITE) ? "lgkmcnt" : "vmcnt";
}

/* The entry for the calling lane's next operation on q (allocated by the first lane that
 * issues it; later lanes must issue the same instruction). */
static memop *issue(memq *q, uint64_t *issued, int kind, const char *name,
                    attngen__emu_site site, unsigned bytes, int *fresh) {
  uint64_t seq = (*issued)++;
  *fresh = 0;
  if (seq == q->tail) {
    *fresh = 1;
    if (q->tail - q->head == q->cap && memq_grow(q) != 0)
      attngen__emu_fail(site, "%s: out of memory for the operation queue", name);
    memop *m = memq_at(q, seq);
    m->kind = kind;
    m->name = name;
    m->site = site;
    m->bytes = bytes;
    q->tail++;
    return m;
  }
  if (seq < q->head || seq > q->tail)
    attngen__emu_fail(site, "%s: lanes of the wave issued different numbers of %s operations",
                      name, op_counter(kind));
  memop *m = memq_at(q, seq);
  if (m->kind != kind || m->bytes != bytes || m->site.line != site.line ||
      (m->name != name && strcmp(m->name, name) != 0))
    attngen__emu_fail(site,
                      "%s: lanes disagree: this lane's %s operation #%llu is %s, lane 0's is "
                      "%s (at %s:%u); lanes must issue the same memory instructions",
                      name, op_counter(kind), (unsigned long long)seq, name, m->name,
                      site_file(m->site), m->site.line);
  return m;
}

static void poison_fill(void *dst, unsigned bytes) {
  unsigned char *d = (unsigned char *)dst;
  uint32_t p = ATTNGEN__EMU_POISON;
  for (unsigned i = 0; i + 4 <= bytes; i += 4) memcpy(d + i, &p, 4);
  if (bytes & 2) memcpy(d + (bytes & ~3u), &p, 2);
}

static int valid_bytes(unsigned bytes) {
  return bytes == 2 || bytes == 4 || bytes == 8 || bytes == 12 || bytes == 16;
}

attngen__emu_rsrc attngen__emu_make_rsrc(const void *base, uint32_t num_records,
                                         uint32_t config) {
  attngen__emu_rsrc r;
  uint64_t a = (uint64_t)(uintptr_t)base;
  r.dw[0] = (uint32_t)a;
  r.dw[1] = (uint32_t)(a >> 32) & 0xFFFFu;
  r.dw[2] = num_records;
  r.dw[3] = config;
  return r;
}

/* Fills the address and range mask of a buffer access. Raw buffer (stride 0) range check,
 * per dword as wrappers.h documents it: dword i is out of range when voffset + ioffset +
 * 4i >= num_records (2-byte accesses: per access); soffset is not part of the check (gfx9). */
static void buffer_address(const char *name, const attngen__emu_rsrc *r, uint32_t voffset,
                           uint32_t soffset, uint32_t ioffset, unsigned bytes, memlane *ml,
                           attngen__emu_site site) {
  uint64_t base = (uint64_t)r->dw[0] | ((uint64_t)(r->dw[1] & 0xFFFFu) << 32);
  uint32_t stride = (r->dw[1] >> 16) & 0x3FFFu;
  uint32_t num = r->dw[2];
  if (stride != 0)
    attngen__emu_fail(site, "%s: buffer descriptor stride %u: only raw buffers (stride 0) "
                            "are emulated", name, stride);
  if (ioffset > 4095) attngen__emu_fail(site, "%s: instruction offset %u > 4095", name, ioffset);
  uint64_t off = (uint64_t)voffset + ioffset;
  unsigned unit = bytes < 4 ? bytes : 4;
  ml->inrange = 0;
  for (unsigned i = 0; i * unit < bytes; i++)
    if (off + (uint64_t)i * unit < num) ml->inrange |= 1u << i;
  uint64_t addr = base + soffset + off;
  ml->src = (const unsigned char *)(uintptr_t)addr;
  ml->gdst = (unsigned char *)(uintptr_t)addr;
}

static void check_uniform_buffer(const char *name, memop *m, int fresh,
                                 const attngen__emu_rsrc *r, uint32_t soffset, uint32_t m0,
                                 attngen__emu_site site) {
  if (fresh) {
    m->rsrc = *r;
    m->soffset = soffset;
    m->m0 = m0;
    return;
  }
  if (memcmp(&m->rsrc, r, sizeof *r) != 0)
    attngen__emu_fail(site, "%s: the buffer descriptor (SGPRs) differs between lanes", name);
  if (m->soffset != soffset)
    attngen__emu_fail(site, "%s: soffset (an SGPR) differs between lanes: 0x%X vs 0x%X", name,
                      soffset, m->soffset);
  if (m->m0 != m0)
    attngen__emu_fail(site, "%s: M0 differs between lanes: 0x%X vs 0x%X", name, m0, m->m0);
}

void attngen__emu_buffer_load(const char *name, const attngen__emu_rsrc *r, uint32_t voffset,
                              uint32_t soffset, uint32_t ioffset, unsigned bytes, void *dst,
                              attngen__emu_site site) {
  lane *l = cur_lane(name);
  if (!valid_bytes(bytes)) attngen__emu_fail(site, "%s: bad access size %u", name, bytes);
  int fresh;
  memop *m = issue(&l->wave->vm, &l->vm_issued, OP_LOAD, name, site, bytes, &fresh);
  check_uniform_buffer(name, m, fresh, r, soffset, 0, site);
  memlane *ml = &m->l[l->lane];
  buffer_address(name, r, voffset, soffset, ioffset, bytes, ml, site);
  ml->dst = dst;
  poison_fill(dst, bytes);
}

void attngen__emu_buffer_store(const char *name, const attngen__emu_rsrc *r, uint32_t voffset,
                               uint32_t soffset, uint32_t ioffset, unsigned bytes,
                               const void *src, attngen__emu_site site) {
  lane *l = cur_lane(name);
  if (!valid_bytes(bytes)) attngen__emu_fail(site, "%s: bad access size %u", name, bytes);
  int fresh;
  memop *m = issue(&l->wave->vm, &l->vm_issued, OP_STORE, name, site, bytes, &fresh);
  check_uniform_buffer(name, m, fresh, r, soffset, 0, site);
  memlane *ml = &m->l[l->lane];
  buffer_address(name, r, voffset, soffset, ioffset, bytes, ml, site);
  memcpy(ml->data, src, bytes);
  if (ml->inrange) attngen__emu_check_operand(name, "data", src, bytes / 4, site);
}

void attngen__emu_buffer_atomic_add(const char *name, const attngen__emu_rsrc *r,
                                    uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                    uint32_t data, attngen__emu_site site) {
  lane *l = cur_lane(name);
  int fresh;
  memop *m = issue(&l->wave->vm, &l->vm_issued, OP_ATOMIC_ADD, name, site, 4, &fresh);
  check_uniform_buffer(name, m, fresh, r, soffset, 0, site);
  memlane *ml = &m->l[l->lane];
  buffer_address(name, r, voffset, soffset, ioffset, 4, ml, site);
  memcpy(ml->data, &data, 4);
  if (ml->inrange) attngen__emu_check_operand(name, "data", &data, 1, site);
}

static void lds_check(lane *l, const char *name, uint64_t addr, unsigned bytes,
                      attngen__emu_site site) {
  block *b = l->blk;
  if (addr + bytes > b->lds_bytes)
    attngen__emu_fail(site, "%s: LDS address 0x%llX (+%u bytes) is outside the block's %u "
                            "bytes of LDS", name, (unsigned long long)addr, bytes, b->lds_bytes);
  unsigned align = bytes >= 4 ? 4 : bytes;
  if (addr % align)
    attngen__emu_fail(site, "%s: LDS address 0x%llX is not %u-byte aligned", name,
                      (unsigned long long)addr, align);
}

void attngen__emu_buffer_load_lds(const char *name, const attngen__emu_rsrc *r,
                                  uint32_t voffset, uint32_t soffset, uint32_t ioffset,
                                  unsigned bytes, uint32_t m0, attngen__emu_site site) {
  lane *l = cur_lane(name);
  if (bytes != 4 && bytes != 2 && bytes != 16 && bytes != 12)
    attngen__emu_fail(site, "%s: bad load-to-LDS size %u", name, bytes);
  int fresh;
  memop *m = issue(&l->wave->vm, &l->vm_issued, OP_LOAD_LDS, name, site, bytes, &fresh);
  check_uniform_buffer(name, m, fresh, r, soffset, m0, site);
  memlane *ml = &m->l[l->lane];
  buffer_address(name, r, voffset, soffset, ioffset, bytes, ml, site);
  uint64_t a = (uint64_t)m0 + ioffset + (uint64_t)l->lane * bytes;
  lds_check(l, name, a, bytes, site);
  ml->lds = (uint32_t)a;
}

void attngen__emu_ds_read(const char *name, uint32_t addr, uint32_t offset, unsigned bytes,
                          void *dst, attngen__emu_site site) {
  lane *l = cur_lane(name);
  if (!valid_bytes(bytes)) attngen__emu_fail(site, "%s: bad access size %u", name, bytes);
  if (offset > 65535) attngen__emu_fail(site, "%s: offset %u > 65535", name, offset);
  uint64_t a = (uint64_t)addr + offset;
  lds_check(l, name, a, bytes, site);
  int fresh;
  memop *m = issue(&l->wave->lgkm, &l->lgkm_issued, OP_DS_READ, name, site, bytes, &fresh);
  memlane *ml = &m->l[l->lane];
  ml->lds = (uint32_t)a;
  ml->dst = dst;
  poison_fill(dst, bytes);
}

void attngen__emu_ds_write(const char *name, uint32_t addr, uint32_t offset, unsigned bytes,
                           const void *src, attngen__emu_site site) {
  lane *l = cur_lane(name);
  if (!valid_bytes(bytes)) attngen__emu_fail(site, "%s: bad access size %u", name, bytes);
  if (offset > 65535) attngen__emu_fail(site, "%s: offset %u > 65535", name, offset);
  uint64_t a = (uint64_t)addr + offset;
  lds_check(l, name, a, bytes, site);
  int fresh;
  memop *m = issue(&l->wave->lgkm, &l->lgkm_issued, OP_DS_WRITE, name, site, bytes, &fresh);
  memlane *ml = &m->l[l->lane];
  ml->lds = (uint32_t)a;
  memcpy(ml->data, src, bytes);
  attngen__emu_check_operand(name, "data", src, bytes / 4, site);
}

void attngen__emu_ds_xlane(const char *name, attngen__emu_wave_fn fn, uint32_t addr,
                           uint32_t data, uint32_t imm, void *dst, attngen__emu_site site) {
  lane *l = cur_lane(name);
  int fresh;
  attngen__emu_check_operand(name, "src", &data, 1, site);
  memop *m = issue(&l->wave->lgkm, &l->lgkm_issued, OP_DS_XLANE, name, site, 4, &fresh);
  if (fresh) {
    m->fn = fn;
    m->imm = imm;
  } else if (m->fn != fn || m->imm != imm) {
    attngen__emu_fail(site, "%s: lanes disagree on the pattern", name);
  }
  memlane *ml = &m->l[l->lane];
  ml->lds = addr;
  memcpy(ml->data, &data, 4);
  ml->dst = dst;
  poison_fill(dst, 4);
}

/* --- landing ----------------------------------------------------------------------- */
static void race(block *b, wave *w, unsigned ln, const memop *m, uint32_t addr, const char *what,
                 const lds_shadow *s, unsigned other_wave) {
  block_fail(b, (int)w->id, (int)ln,
             "%s: LDS race at address 0x%X: %s by wave %u%s%s%s without an s_barrier in "
             "between (this access at %s:%u)",
             m->name, addr, what, other_wave, s && s->w_name ? " (" : "",
             s && s->w_name ? s->w_name : "", s && s->w_name ? ")" : "", site_file(m->site),
             m->site.line);
}

/* Race check of one dword access by wave w, landing now (epoch = current barrier
 * interval): another wave's write or read of the same dword in the same interval. */
static void shadow_access(block *b, wave *w, unsigned ln, const memop *m, uint32_t addr,
                          int write) {
  lds_shadow *s = &b->shadow[addr >> 2];
  uint16_t me = (uint16_t)w->id;
  if (s->w_epoch == b->epoch && s->w_wave != me) {
    race(b, w, ln, m, addr, write ? "written after a write" : "read after a write", s, s->w_wave);
    return;
  }
  if (write) {
    if (s->r_epoch == b->epoch && (s->r_waves & ~(uint16_t)(1u << me))) {
      unsigned other = (unsigned)__builtin_ctz(s->r_waves & ~(uint16_t)(1u << me));
      race(b, w, ln, m, addr, "written after a read", NULL, other);
      return;
    }
    s->w_epoch = b->epoch;
    s->w_wave = me;
    s->w_lane = (uint16_t)ln;
    s->w_name = m->name;
    s->w_line = m->site.line;
  } else {
    if (s->r_epoch != b->epoch) {
      s->r_epoch = b->epoch;
      s->r_waves = 0;
    }
    s->r_waves |= (uint16_t)(1u << me);
  }
}

static void lds_access_check(block *b, wave *w, unsigned ln, const memop *m, uint32_t addr,
                             unsigned bytes, int write) {
  if (!b->race_check) return;
  for (uint32_t a = addr & ~3u; a < addr + bytes && !b->failed; a += 4)
    shadow_access(b, w, ln, m, a, write);
}

/* Performs one wave-level memory instruction for all lanes. with_loads = 0 drops loads
 * (at the wave's end, when no register can receive them any more). */
static void land(block *b, wave *w, memop *m, int with_loads) {
  unsigned bytes = m->bytes;
  unsigned unit = bytes < 4 ? bytes : 4;
  unsigned n = bytes / unit;
  b->n_mem++;
  for (unsigned ln = 0; ln < ATTNGEN__EMU_WAVE && !b->failed; ln++) {
    memlane *ml = &m->l[ln];
    switch (m->kind) {
    case OP_LOAD:
      if (!with_loads) break;
      for (unsigned i = 0; i < n; i++) {
        unsigned char *d = (unsigned char *)ml->dst + i * unit;
        if (ml->inrange >> i & 1)
          memcpy(d, ml->src + i * unit, unit);
        else
          memset(d, 0, unit);
      }
      break;
    case OP_STORE:
      for (unsigned i = 0; i < n; i++)
        if (ml->inrange >> i & 1) memcpy(ml->gdst + i * unit, ml->data + i * unit, unit);
      break;
    case OP_ATOMIC_ADD:
      if (ml->inrange & 1) {
        uint32_t v, add;
        memcpy(&v, ml->gdst, 4);
        memcpy(&add, ml->data, 4);
        v += add;
        memcpy(ml->gdst, &v, 4);
      }
      break;
    case OP_LOAD_LDS:
      lds_access_check(b, w, ln, m, ml->lds, bytes, 1);
      for (unsigned i = 0; i < n; i++) {
        unsigned char *d = b->lds + ml->lds + i * unit;
        if (ml->inrange >> i & 1)
          memcpy(d, ml->src + i * unit, unit);
        else
          memset(d, 0, unit);
      }
      break;
    case OP_DS_READ:
      if (!with_loads) break;
      lds_access_check(b, w, ln, m, ml->lds, bytes, 0);
      memcpy(ml->dst, b->lds + ml->lds, bytes);
      break;
    case OP_DS_WRITE:
      lds_access_check(b, w, ln, m, ml->lds, bytes, 1);
      memcpy(b->lds + ml->lds, ml->data, bytes);
      break;
    case OP_DS_XLANE: break; /* below, for the whole wave */
    }
  }
  if (m->kind == OP_DS_XLANE && with_loads && !b->failed) {
    for (unsigned ln = 0; ln < ATTNGEN__EMU_WAVE; ln++) {
      memcpy(w->xin + (size_t)ln * XBUF, &m->l[ln].lds, 4);
      memcpy(w->xin + (size_t)ln * XBUF + 4, m->l[ln].data, 4);
    }
    m->fn(w->xin, w->xout, &m->imm);
    for (unsigned ln = 0; ln < ATTNGEN__EMU_WAVE; ln++)
      memcpy(m->l[ln].dst, w->xout + (size_t)ln * XBUF, 4);
  }
}

/* At a wait that names its variables: every load landing there must write inside one. */
static void check_listed(block *b, wave *w, const memop *m) {
  if (m->kind != OP_LOAD && m->kind != OP_DS_READ && m->kind != OP_DS_XLANE) return;
  for (unsigned ln = 0; ln < ATTNGEN__EMU_WAVE; ln++) {
    const lane *l = &w->lanes[ln];
    if (!l->vars) return;
    uintptr_t d = (uintptr_t)m->l[ln].dst;
    int ok = 0;
    for (unsigned i = 0; i < l->nvars && !ok; i++) {
      uintptr_t p = (uintptr_t)l->vars[i].p;
      ok = d >= p && d + m->bytes <= p + l->vars[i].bytes;
    }
    if (!ok) {
      block_fail(b, (int)w->id, (int)ln,
                 "%s (at %s:%u) lands at the s_waitcnt at %s:%u, whose argument list does not "
                 "name its destination (every variable a load writes must be listed at the "
                 "wait that covers it)",
                 m->name, site_file(m->site), m->site.line, site_file(l->site), l->site.line);
      return;
    }
  }
}

static void land_until(block *b, wave *w, memq *q, uint64_t outstanding, int with_loads,
                       int at_wait) {
  while (!b->failed && q->tail - q->head > outstanding) {
    if (at_wait) check_listed(b, w, memq_at(q, q->head));
    if (b->failed) return;
    land(b, w, memq_at(q, q->head), with_loads);
    q->head++;
  }
}

/* --- synchronization points (lane side) --------------------------------------------- */
void attngen__emu_wave_op(const char *name, attngen__emu_wave_fn fn, const void *in,
                          unsigned in_size, void *out, unsigned out_size, const void *imm,
                          unsigned imm_size, attngen__emu_site site) {
  lane *l = cur_lane(name);
  if (in_size > XBUF || out_size > XBUF || imm_size > sizeof l->imm)
    attngen__emu_fail(site, "%s: operand sizes too large for the emulator", name);
  memcpy(l->wave->xin + (size_t)l->lane * XBUF, in, in_size);
  l->sync = SYNC_WAVEOP;
  l->name = name;
  l->fn = fn;
  l->site = site;
  l->imm_size = imm_size;
  if (imm_size) memcpy(l->imm, imm, imm_size);
  l->out = out;
  l->out_size = out_size;
  lane_yield(l);
  memcpy(out, l->wave->xout + (size_t)l->lane * XBUF, out_size);
}

/* readfirstlane-style check: all lanes must pass the same value. */
/* v_readfirstlane_b32: every lane gets lane 0's value (the first active lane: wave-wide
 * points need the whole wave, so lane 0 is active); operands sit XBUF bytes apart. */
static void exec_uniform(const unsigned char *in, unsigned char *out, const void *imm) {
  (void)imm;
  for (unsigned l = 0; l < ATTNGEN__EMU_WAVE; l++) memcpy(out + (size_t)l * XBUF, in, 4);
}

uint32_t attngen__emu_uniform_u32(const char *name, uint32_t v, attngen__emu_site site) {
  uint32_t r;
  attngen__emu_wave_op(name, exec_uniform, &v, 4, &r, 4, NULL, 0, site);
  if (r != v) attngen__emu_fail(site, "%s: value 0x%X is not uniform across the wave", name, v);
  return r;
}

/* v_readlane_b32: every lane gets lane imm's value. */
static void exec_readlane(const unsigned char *in, unsigned char *out, const void *imm) {
  uint32_t l;
  memcpy(&l, imm, 4);
  for (unsigned i = 0; i < ATTNGEN__EMU_WAVE; i++)
    memcpy(out + (size_t)i * XBUF, in + (size_t)l * XBUF, 4);
}

uint32_t attngen__emu_readlane_u32(const char *name, uint32_t v, uint32_t l,
                                   attngen__emu_site site) {
  uint32_t r;
  if (l >= ATTNGEN__EMU_WAVE)
    attngen__emu_fail(site, "%s: lane %u is not a lane of the wave (0..63)", name, l);
  attngen__emu_wave_op(name, exec_readlane, &v, 4, &r, 4, &l, 4, site);
  return r;
}

void attngen__emu_waitcnt_list(int vmcnt, int lgkmcnt, const attngen__emu_var *vars,
                               unsigned nvars, attngen__emu_site site) {
  lane *l = cur_lane("s_waitcnt");
  l->sync = SYNC_WAITCNT;
  l->name = "s_waitcnt";
  l->site = site;
  l->vmcnt = vmcnt;
  l->lgkmcnt = lgkmcnt;
  l->vars = vars;
  l->nvars = nvars;
  lane_yield(l);
  l->vars = NULL;
}

void attngen__emu_waitcnt(int vmcnt, int lgkmcnt, attngen__emu_site site) {
  attngen__emu_waitcnt_list(vmcnt, lgkmcnt, NULL, 0, site);
}

static void exec_any(const unsigned char *in, unsigned char *out, const void *imm) {
  (void)imm;
  int any = 0;
  for (unsigned l = 0; l < ATTNGEN__EMU_WAVE; l++) any |= in[(size_t)l * XBUF] != 0;
  for (unsigned l = 0; l < ATTNGEN__EMU_WAVE; l++) out[(size_t)l * XBUF] = (unsigned char)any;
}

int attngen__emu_any(int p, attngen__emu_site site) {
  unsigned char in = p ? 1 : 0, out;
  attngen__emu_wave_op("s_cmp ballot", exec_any, &in, 1, &out, 1, NULL, 0, site);
  return out;
}

static void exec_ballot(const unsigned char *in, unsigned char *out, const void *imm) {
  (void)imm;
  uint64_t m = 0;
  for (unsigned l = 0; l < ATTNGEN__EMU_WAVE; l++) m |= (uint64_t)(in[(size_t)l * XBUF] != 0) << l;
  for (unsigned l = 0; l < ATTNGEN__EMU_WAVE; l++) memcpy(out + (size_t)l * XBUF, &m, 8);
}

uint64_t attngen__emu_ballot(int p, attngen__emu_site site) {
  unsigned char in = p ? 1 : 0;
  uint64_t out;
  attngen__emu_wave_op("v_cmp ballot", exec_ballot, &in, 1, &out, 8, NULL, 0, site);
  return out;
}

void attngen__emu_barrier(attngen__emu_site site) {
  lane *l = cur_lane("s_barrier");
  l->sync = SYNC_BARRIER;
  l->name = "s_barrier";
  l->site = site;
  lane_yield(l);
}

static void lane_main(void *arg) {
  lane *l = (lane *)arg;
  l->blk->fn(l->blk->args);
  l->sync = SYNC_EXIT;
  l->name = "end of kernel";
  lane_abandon(l);
}

/* --- synchronization points (engine side) ------------------------------------------- */
static const char *sync_desc(const lane *l, char *buf, size_t n) {
  switch (l->sync) {
  case SYNC_EXIT: snprintf(buf, n, "end of kernel"); break;
  case SYNC_NONE: snprintf(buf, n, "running"); break;
  default: snprintf(buf, n, "%s (at %s:%u)", l->name, site_file(l->site), l->site.line);
  }
  return buf;
}

static int same_str(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_point(const lane *a, const lane *b) {
  if (a->sync != b->sync) return 0;
  if (a->sync == SYNC_EXIT) return 1;
  if (a->site.line != b->site.line || !same_str(a->site.file, b->site.file) ||
      !same_str(a->name, b->name))
    return 0;
  if (a->sync == SYNC_WAVEOP)
    return a->fn == b->fn && a->imm_size == b->imm_size &&
           memcmp(a->imm, b->imm, a->imm_size) == 0;
  if (a->sync == SYNC_WAITCNT) return a->vmcnt == b->vmcnt && a->lgkmcnt == b->lgkmcnt;
  return 1;
}

/* Reports the lanes of w grouped by where they stopped. */
static void disagree(block *b, wave *w, const char *what) {
  char msg[1024], d[256];
  size_t n = 0;
  int done[ATTNGEN__EMU_WAVE] = {0};
  n += (size_t)snprintf(msg, sizeof msg, "%s:", what);
  for (unsigned i = 0; i < ATTNGEN__EMU_WAVE && n < sizeof msg - 64; i++) {
    if (done[i]) continue;
    unsigned cnt = 0, last = i;
    for (unsigned j = i; j < ATTNGEN__EMU_WAVE; j++)
      if (!done[j] && same_point(&w->lanes[i], &w->lanes[j]) &&
          w->lanes[i].vm_issued == w->lanes[j].vm_issued &&
          w->lanes[i].lgkm_issued == w->lanes[j].lgkm_issued) {
        done[j] = 1;
        cnt++;
        last = j;
      }
    n += (size_t)snprintf(msg + n, sizeof msg - n,
                          " [%u lane(s) from %u to %u at %s, %llu vm / %llu lgkm ops issued]",
                          cnt, i, last, sync_desc(&w->lanes[i], d, sizeof d),
                          (unsigned long long)w->lanes[i].vm_issued,
                          (unsigned long long)w->lanes[i].lgkm_issued);
  }
  block_fail(b, (int)w->id, -1, "%s", msg);
}

static void resolve(block *b, wave *w) {
  lane *l0 = &w->lanes[0];
  for (unsigned i = 1; i < ATTNGEN__EMU_WAVE; i++) {
    lane *li = &w->lanes[i];
    if (!same_point(l0, li) || li->vm_issued != l0->vm_issued ||
        li->lgkm_issued != l0->lgkm_issued) {
      disagree(b, w, "lanes of the wave disagree at a wave-wide point (divergent control "
                     "flow around a cross-lane op, s_waitcnt, s_barrier or memory op)");
      return;
    }
  }
  b->n_syncs++;
  switch (l0->sync) {
  case SYNC_EXIT:
    for (memq *q = &w->vm; q; q = q == &w->vm ? &w->lgkm : NULL)
      for (uint64_t seq = q->head; seq < q->tail; seq++) {
        const memop *m = memq_at(q, seq);
        if (m->kind == OP_LOAD || m->kind == OP_DS_READ || m->kind == OP_DS_XLANE) {
          block_fail(b, (int)w->id, -1,
                     "the wave ended with %s (at %s:%u) never waited for: its destination was "
                     "never listed at a covering s_waitcnt",
                     m->name, site_file(m->site), m->site.line);
          return;
        }
      }
    land_until(b, w, &w->vm, 0, 0, 0);
    land_until(b, w, &w->lgkm, 0, 0, 0);
    w->state = W_DONE;
    return;
  case SYNC_WAVEOP:
    l0->fn(w->xin, w->xout, l0->imm);
    break;
  case SYNC_WAITCNT:
    if (l0->vmcnt >= 0) land_until(b, w, &w->vm, (uint64_t)l0->vmcnt, 1, 1);
    if (l0->lgkmcnt >= 0) land_until(b, w, &w->lgkm, (uint64_t)l0->lgkmcnt, 1, 1);
    break;
  case SYNC_BARRIER:
    w->state = W_BARRIER;
    w->barrier_site = l0->site;
    break;
  }
  land_until(b, w, &w->vm, VM_MAX, 1, 0);
  land_until(b, w, &w->lgkm, LGKM_MAX, 1, 0);
}

/* Runs every lane of w up to its next wave-wide point, then performs that point. */
static void step_wave(block *b, wave *w) {
  for (unsigned i = 0; i < ATTNGEN__EMU_WAVE; i++) {
    lane *l = &w->lanes[i];
    if (l->sync == SYNC_EXIT) continue;
    l->sync = SYNC_NONE;
    tls_lane = l;
    attngen__fiber_switch(&b->sched, &l->fib);
    tls_lane = NULL;
    if (b->failed) return;
  }
  resolve(b, w);
}

static void run_block(block *b) {
  wave *runnable[16];
  for (;;) {
    unsigned n = 0, at_barrier = 0, done = 0;
    for (unsigned i = 0; i < b->nwaves; i++) {
      if (b->waves[i].state == W_RUN) runnable[n++] = &b->waves[i];
      else if (b->waves[i].state == W_BARRIER) at_barrier++;
      else done++;
    }
    if (n == 0) {
      if (done == b->nwaves) return;
      if (done > 0) {
        char msg[512];
        size_t k = 0;
        for (unsigned i = 0; i < b->nwaves && k < sizeof msg - 80; i++)
          if (b->waves[i].state == W_BARRIER)
            k += (size_t)snprintf(msg + k, sizeof msg - k, " wave %u at %s:%u;", i,
                                  site_file(b->waves[i].barrier_site),
                                  b->waves[i].barrier_site.line);
        block_fail(b, -1, -1,
                   "deadlock: %u wave(s) ended while %u wave(s) wait at s_barrier:%s", done,
                   at_barrier, msg);
        return;
      }
      b->epoch++;
      for (unsigned i = 0; i < b->nwaves; i++) b->waves[i].state = W_RUN;
      continue;
    }
    wave *w = runnable[n == 1 ? 0 : rng_next(&b->rng) % n];
    step_wave(b, w);
    if (b->failed) return;
  }
}

/* --- launch -------------------------------------------------------------------------- */
void attngen__emu_default_options(attngen__emu_options *o) {
  const char *rc = getenv("ATTNGEN_EMU_RACECHECK");
  const char *st = getenv("ATTNGEN_EMU_STACK");
  o->race_check = !(rc && rc[0] == '0');
  o->lds_bytes = ATTNGEN__EMU_LDS_BYTES;
  o->stack_bytes = 65536;
  if (st && atol(st) >= 16384) o->stack_bytes = (size_t)atol(st);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void seterr(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

int attngen__emu_launch_opts(attngen__emu_kernel_fn fn, unsigned gx, unsigned gy, unsigned gz,
                             unsigned threads, attngen_kargs args, uint64_t seed,
                             const attngen__emu_options *opts, char *err, size_t errlen) {
  attngen__emu_options o;
  if (opts)
    o = *opts;
  else
    attngen__emu_default_options(&o);
  if (err && errlen) err[0] = 0;
  if (!fn) {
    seterr(err, errlen, "emu: no kernel function");
    return 1;
  }
  if (threads == 0 || threads % ATTNGEN__EMU_WAVE || threads > 1024) {
    seterr(err, errlen, "emu: threads per block must be a multiple of 64, at most 1024");
    return 1;
  }
  if (tls_block) {
    seterr(err, errlen, "emu: launch from inside an emulated kernel");
    return 1;
  }
  double t0 = now_s();
  uint64_t nblocks = (uint64_t)gx * gy * gz;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t stack = (o.stack_bytes + page - 1) / page * page;
  size_t slot = stack + page; /* one guard page below each stack */
  size_t map_bytes = slot * threads;
  block b;
  memset(&b, 0, sizeof b);
  int rc = 1;
  uint64_t *order = NULL;
  char *stacks = MAP_FAILED;
  b.nlanes = threads;
  b.nwaves = threads / ATTNGEN__EMU_WAVE;
  b.gdim[0] = gx;
  b.gdim[1] = gy;
  b.gdim[2] = gz;
  b.fn = fn;
  b.args = args;
  b.lds_limit = (o.lds_bytes && o.lds_bytes < ATTNGEN__EMU_LDS_BYTES) ? (uint32_t)o.lds_bytes
                                                                     : ATTNGEN__EMU_LDS_BYTES;
  b.race_check = o.race_check;
  b.err = err;
  b.errlen = errlen;
  b.rng = seed ^ 0x5DEECE66Dull;
  b.lanes = (lane *)calloc(threads, sizeof(lane));
  b.waves = (wave *)calloc(b.nwaves, sizeof(wave));
  b.lds = (unsigned char *)malloc(ATTNGEN__EMU_LDS_BYTES);
  b.shadow = (lds_shadow *)calloc(ATTNGEN__EMU_LDS_BYTES / 4, sizeof(lds_shadow));
  order = (uint64_t *)malloc((nblocks ? nblocks : 1) * sizeof *order);
  if (!b.lanes || !b.waves || !b.lds || !b.shadow || !order) {
    seterr(err, errlen, "emu: out of memory");
    goto out;
  }
  stacks = (char *)mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stacks == MAP_FAILED) {
    seterr(err, errlen, "emu: cannot map fiber stacks");
    goto out;
  }
  for (unsigned t = 0; t < threads; t++) {
    lane *l = &b.lanes[t];
    mprotect(stacks + (size_t)t * slot, page, PROT_NONE);
    l->stack_lo = stacks + (size_t)t * slot + page;
    l->stack_hi = l->stack_lo + stack;
#ifdef ATTNGEN__EMU_VALGRIND
    l->valgrind_id = VALGRIND_STACK_REGISTER(l->stack_lo, l->stack_hi);
#endif
  }
  for (uint64_t i = 0; i < nblocks; i++) order[i] = i;
  {
    uint64_t s = seed;
    for (uint64_t i = nblocks; i > 1; i--) {
      uint64_t j = rng_next(&s) % i;
      uint64_t t = order[i - 1];
      order[i - 1] = order[j];
      order[j] = t;
    }
  }
  b.epoch = 1;
  tls_block = &b;
  for (uint64_t k = 0; k < nblocks && !b.failed; k++) {
    uint64_t id = order[k];
    b.bid[0] = (unsigned)(id % gx);
    b.bid[1] = (unsigned)(id / gx % gy);
    b.bid[2] = (unsigned)(id / ((uint64_t)gx * gy));
    b.epoch++; /* a new block: nothing of the previous one races */
    b.lds_bytes = b.lds_limit;
    b.lds_declared = 0;
    for (uint32_t i = 0; i < ATTNGEN__EMU_LDS_BYTES / 4; i++) {
      uint32_t p = ATTNGEN__EMU_LDS_POISON;
      memcpy(b.lds + 4 * i, &p, 4);
    }
    for (unsigned wv = 0; wv < b.nwaves; wv++) {
      wave *w = &b.waves[wv];
      w->id = wv;
      w->lanes = &b.lanes[wv * ATTNGEN__EMU_WAVE];
      w->state = W_RUN;
      w->vm.head = w->vm.tail = 0;
      w->lgkm.head = w->lgkm.tail = 0;
    }
    for (unsigned t = 0; t < threads; t++) {
      lane *l = &b.lanes[t];
      l->blk = &b;
      l->wave = &b.waves[t / ATTNGEN__EMU_WAVE];
      l->lane = t % ATTNGEN__EMU_WAVE;
      l->tid = t;
      l->sync = SYNC_NONE;
      l->vars = NULL;
      l->vm_issued = l->lgkm_issued = 0;
      attngen__fiber_init(&l->fib, l->stack_lo, stack, lane_main, l);
    }
    run_block(&b);
    __atomic_add_fetch(&st_blocks, 1, __ATOMIC_RELAXED);
  }
  tls_block = NULL;
  rc = b.failed ? 2 : 0;
out:
  if (stacks != MAP_FAILED) {
#ifdef ATTNGEN__EMU_VALGRIND
    for (unsigned t = 0; t < threads; t++) VALGRIND_STACK_DEREGISTER(b.lanes[t].valgrind_id);
#endif
    munmap(stacks, map_bytes);
  }
  if (b.waves)
    for (unsigned wv = 0; wv < b.nwaves; wv++) {
      free(b.waves[wv].vm.ring);
      free(b.waves[wv].lgkm.ring);
    }
  free(order);
  free(b.lanes);
  free(b.waves);
  free(b.lds);
  free(b.shadow);
  __atomic_add_fetch(&st_launches, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&st_syncs, b.n_syncs, __ATOMIC_RELAXED);
  __atomic_add_fetch(&st_mem, b.n_mem, __ATOMIC_RELAXED);
  __atomic_add_fetch(&st_ns, (uint64_t)((now_s() - t0) * 1e9), __ATOMIC_RELAXED);
  return rc;
}

int attngen__emu_launch(attngen__emu_kernel_fn fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned threads, attngen_kargs args, uint64_t seed, char *err,
                        size_t errlen) {
  return attngen__emu_launch_opts(fn, gx, gy, gz, threads, args, seed, NULL, err, errlen);
}

void attngen__emu_count_mfma(void) { __atomic_add_fetch(&st_mfma, 1, __ATOMIC_RELAXED); }

void attngen__emu_get_stats(attngen__emu_stats *out) {
  out->launches = __atomic_load_n(&st_launches, __ATOMIC_RELAXED);
  out->blocks = __atomic_load_n(&st_blocks, __ATOMIC_RELAXED);
  out->mfma = __atomic_load_n(&st_mfma, __ATOMIC_RELAXED);
  out->wave_syncs = __atomic_load_n(&st_syncs, __ATOMIC_RELAXED);
  out->mem_ops = __atomic_load_n(&st_mem, __ATOMIC_RELAXED);
  out->seconds = 1e-9 * (double)__atomic_load_n(&st_ns, __ATOMIC_RELAXED);
}

const attngen__emu_kernel *attngen__emu_find(const char *name) {
  for (size_t i = 0; name && i < attngen__emu_kernel_count; i++)
    if (strcmp(attngen__emu_kernels[i].name, name) == 0) return &attngen__emu_kernels[i];
  return NULL;
}

const attngen__emu_kernel *attngen__emu_find_selftest(const char *name) {
  for (size_t i = 0; name && i < attngen__emu_selftest_kernel_count; i++)
    if (strcmp(attngen__emu_selftest_kernels[i].name, name) == 0)
      return &attngen__emu_selftest_kernels[i];
  return NULL;
}
