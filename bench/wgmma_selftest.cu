// wgmma_selftest.cu: standalone check and timing of the sm90 wgmma attention kernels
// (templates/sm90/attn_fwd_wgmma.cu.in) without the attngen runtime. Host code only: each
// kernel comes as a cubin compiled from a generated source and is loaded with the driver API;
// memory, streams and events use the runtime API. Built and run by bench/run_wgmma_selftest.sh.
//
//   wgmma_selftest [--no-perf] KERNEL...     KERNEL = path.cubin:threads:block_m:smem_bytes
//
// The kernel name is the cubin's basename (the canonical variant name); layout, rounding and
// kv tile are parsed from it. For every kernel: a set of shapes (ragged, cross, Sq = 1,
// Skv = 0, large scores, NaN inputs) against a CPU reference of NUMERICS.md in fp32 (same
// rounding mode; output within 1 bf16 ULP, near-zero exemption), fp64 exact attention (rel
// L2 <= 1e-2), LSE, coverage (poisoned output), guard bands, NaN positions, determinism.
// Then, for bshd rtne kernels, TFLOP/s on (1,16,8192,8192) and (2,24,8192,8192): median of 20
// timed launches (cudaEvent), plus a few rows checked against the CPU reference.
// Exit status: 0 all passed, 1 a check failed, 2 usage or CUDA error, 3 a kernel hung.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../templates/common/bf16_round.h"
#include "../templates/common/kargs.h"

namespace {

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, \
                  #x);                                                                        \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)
#define CU(x)                                                                                 \
  do {                                                                                        \
    CUresult r_ = (x);                                                                        \
    if (r_ != CUDA_SUCCESS) {                                                                 \
      const char *s_ = nullptr;                                                               \
      cuGetErrorString(r_, &s_);                                                              \
      std::printf("CUDA driver error %s at %s:%d: %s\n", s_ ? s_ : "?", __FILE__, __LINE__,  \
                  #x);                                                                        \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)

constexpr int D = 128;
constexpr uint16_t kPoison = 0xFFFF;
constexpr uint16_t kGuard = 0xA5A5;
constexpr size_t kGuardElems = 4096;

float f32(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}
uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float bf2f(uint16_t b) { return f32((uint32_t)b << 16); }
uint16_t round_bf16(float x, int mode) { return (uint16_t)ag_bf16_round(bits(x), mode); }
bool bf_nan(uint16_t b) { return (b & 0x7FFF) > 0x7F80; }
bool bf_inf(uint16_t b) { return (b & 0x7FFF) == 0x7F80; }
// Ordered distance in bf16 steps (+0 and -0 coincide).
int32_t ulp_diff(uint16_t a, uint16_t b) {
  auto ord = [](uint16_t x) { return (x & 0x8000) ? -(int32_t)(x & 0x7FFF) : (int32_t)x; };
  return ord(a) - ord(b);
}

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (uint32_t)(s >> 11);
  }
  float uni(float lo, float hi) { return lo + (hi - lo) * (float)(next() & 0xFFFFFF) / 16777216.f; }
};

struct Shape {
  const char *label;
  int B, H, Sq, Skv;
  float scale;         // softmax scale
  float q_amp, k_amp;  // inputs uniform in [-amp, amp]
  bool nan_inputs;     // a NaN in one q row and one v row
};

// Canonical host tensors: [B][H][S][D] (the layout only changes the device copy).
struct Inputs {
  Shape sh;
  std::vector<uint16_t> q, k, v;
};

struct Reference {
  std::vector<uint16_t> out;  // [B][H][Sq][D]
  std::vector<float> lse;     // [B][H][Sq]
  std::vector<double> exact;  // [B][H][Sq][D]
};

Inputs make_inputs(const Shape &sh, uint64_t seed) {
  Inputs in;
  in.sh = sh;
  Rng r(seed);
  const size_t nq = (size_t)sh.B * sh.H * sh.Sq * D, nk = (size_t)sh.B * sh.H * sh.Skv * D;
  in.q.resize(nq);
  in.k.resize(nk);
  in.v.resize(nk);
  for (auto &x : in.q) x = round_bf16(r.uni(-sh.q_amp, sh.q_amp), 0);
  for (auto &x : in.k) x = round_bf16(r.uni(-sh.k_amp, sh.k_amp), 0);
  for (auto &x : in.v) x = round_bf16(r.uni(-1.f, 1.f), 0);
  if (sh.nan_inputs) {
    in.q[((size_t)0 * sh.H * sh.Sq + (sh.Sq / 2)) * D + 5] = 0x7FC0;  // b0 h0 row Sq/2
    if (sh.Skv > 3) in.v[((size_t)0 * sh.H * sh.Skv + 1 * sh.Skv + 3) * D + 17] = 0x7FC0;  // h1
  }
  return in;
}

// NUMERICS.md steps 1-7 in fp32 (and exact attention in fp64) for one (b, h, row).
// step: keys per online-softmax step, the kernel's kv_tile (P is rounded against the running
// max at those boundaries, so the reference must use the same step to be held to 1 ULP).
void reference_row(const Inputs &in, int mode, int step, float scale_log2, int b, int h, int i,
                   uint16_t *out, float *lse, double *exact) {
  const Shape &sh = in.sh;
  const uint16_t *q = &in.q[(((size_t)b * sh.H + h) * sh.Sq + i) * D];
  const uint16_t *kb = &in.k[((size_t)b * sh.H + h) * sh.Skv * D];
  const uint16_t *vb = &in.v[((size_t)b * sh.H + h) * sh.Skv * D];
  float qf[D];
  for (int d = 0; d < D; ++d) qf[d] = bf2f(q[d]);
  float acc[D] = {0};
  float m = -INFINITY, l = 0.f;
  std::vector<float> t(step);
  for (int j0 = 0; j0 < sh.Skv; j0 += step) {
    const int n = std::min(step, sh.Skv - j0);
    float mt = -INFINITY;
    for (int j = 0; j < n; ++j) {
      const uint16_t *kr = kb + (size_t)(j0 + j) * D;
      float s = 0.f;
      for (int d = 0; d < D; ++d) s += qf[d] * bf2f(kr[d]);
      t[j] = s * scale_log2;
      mt = std::fmax(mt, t[j]);
    }
    const float mn = std::fmax(m, mt);
    if (mn != m && j0 > 0) {
      const float alpha = std::exp2(m - mn);
      for (int d = 0; d < D; ++d) acc[d] *= alpha;
      l *= alpha;
    }
    m = mn;
    for (int j = 0; j < n; ++j) {
      const float p = std::exp2(t[j] - m);
      l += p;
      const float pr = bf2f(round_bf16(p, mode));
      const uint16_t *vr = vb + (size_t)(j0 + j) * D;
      for (int d = 0; d < D; ++d) acc[d] += pr * bf2f(vr[d]);
    }
  }
  const float inv = l == 0.f ? 0.f : 1.f / l;
  for (int d = 0; d < D; ++d) out[d] = round_bf16(acc[d] * inv, mode);
  *lse = m * 0.693147180559945309f + std::log(l);
  // fp64 exact attention.
  std::vector<double> s(sh.Skv);
  double mx = -INFINITY;
  for (int j = 0; j < sh.Skv; ++j) {
    double x = 0;
    for (int d = 0; d < D; ++d) x += (double)qf[d] * bf2f(kb[(size_t)j * D + d]);
    s[j] = x * (double)in.sh.scale;
    mx = std::max(mx, s[j]);
  }
  double den = 0;
  std::vector<double> ex(D, 0.0);
  for (int j = 0; j < sh.Skv; ++j) {
    const double p = std::exp(s[j] - mx);
    den += p;
    for (int d = 0; d < D; ++d) ex[d] += p * bf2f(vb[(size_t)j * D + d]);
  }
  for (int d = 0; d < D; ++d) exact[d] = den > 0 ? ex[d] / den : 0.0;
}

Reference make_reference(const Inputs &in, int mode, int step) {
  const Shape &sh = in.sh;
  Reference r;
  r.out.resize((size_t)sh.B * sh.H * sh.Sq * D);
  r.lse.resize((size_t)sh.B * sh.H * sh.Sq);
  r.exact.resize(r.out.size());
  const float sl2 = sh.scale * 1.44269504088896340736f;
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h)
      for (int i = 0; i < sh.Sq; ++i) {
        const size_t row = ((size_t)b * sh.H + h) * sh.Sq + i;
        reference_row(in, mode, step, sl2, b, h, i, &r.out[row * D], &r.lse[row],
                      &r.exact[row * D]);
      }
  return r;
}

// Element offset of (b, h, s, d) of a dense tensor in the variant's layout.
size_t offset(bool bshd, int B, int H, int S, int b, int h, int s, int d) {
  (void)B;
  return bshd ? (((size_t)b * S + s) * H + h) * D + d : (((size_t)b * H + h) * S + s) * D + d;
}

std::vector<uint16_t> to_layout(const std::vector<uint16_t> &canon, bool bshd, int B, int H,
                                int S) {
  std::vector<uint16_t> out(canon.size());
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int s = 0; s < S; ++s)
        std::memcpy(&out[offset(bshd, B, H, S, b, h, s, 0)],
                    &canon[(((size_t)b * H + h) * S + s) * D], D * 2);
  return out;
}

struct Kernel {
  std::string path, name;
  int threads = 0, block_m = 0, smem = 0;
  bool bshd = true;
  int mode = 0;
  int kv = 0;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
};

bool parse_kernel(const char *arg, Kernel &k) {
  std::string s(arg);
  size_t c1 = s.find(':');
  if (c1 == std::string::npos) return false;
  k.path = s.substr(0, c1);
  if (std::sscanf(s.c_str() + c1 + 1, "%d:%d:%d", &k.threads, &k.block_m, &k.smem) != 3)
    return false;
  size_t slash = k.path.find_last_of('/');
  std::string base = slash == std::string::npos ? k.path : k.path.substr(slash + 1);
  k.name = base.substr(0, base.rfind('.'));
  k.bshd = k.name.find("_bshd_") != std::string::npos;
  k.mode = k.name.find("_rtna_") != std::string::npos  ? 1
           : k.name.find("_rtz_") != std::string::npos ? 2
                                                       : 0;
  size_t kvp = k.name.find("_kv");
  k.kv = kvp == std::string::npos ? 0 : std::atoi(k.name.c_str() + kvp + 3);
  return true;
}

// Launches and waits with a watchdog: a kernel that does not finish in `limit_s` is a hang.
void launch_and_wait(const Kernel &k, attngen_kargs &a, cudaStream_t st, double limit_s) {
  void *params[] = {&a};
  CU(cuLaunchKernel(k.fn, (unsigned)a.num_q_blocks, (unsigned)a.H, (unsigned)a.B,
                    (unsigned)k.threads, 1, 1, (unsigned)k.smem, (CUstream)st, params, nullptr));
  cudaEvent_t ev;
  CK(cudaEventCreate(&ev));
  CK(cudaEventRecord(ev, st));
  const double t0 = (double)clock() / CLOCKS_PER_SEC;
  while (true) {
    cudaError_t q = cudaEventQuery(ev);
    if (q == cudaSuccess) break;
    if (q != cudaErrorNotReady) CK(q);
    if ((double)clock() / CLOCKS_PER_SEC - t0 > limit_s) {
      std::printf("HANG: %s did not finish within %.0f s (B=%d H=%d Sq=%d Skv=%d)\n",
                  k.name.c_str(), limit_s, a.B, a.H, a.Sq, a.Skv);
      std::fflush(stdout);
      std::_Exit(3);
    }
  }
  CK(cudaEventDestroy(ev));
}

struct DevBuf {
  void *p = nullptr;
  size_t bytes = 0;
  explicit DevBuf(size_t n) : bytes(n) { CK(cudaMalloc(&p, n ? n : 16)); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf &) = delete;
  DevBuf &operator=(const DevBuf &) = delete;
};

// One correctness case; returns true when every check passed.
bool run_case(const Kernel &k, const Inputs &in, const Reference &ref, cudaStream_t st) {
  const Shape &sh = in.sh;
  const size_t nq = (size_t)sh.B * sh.H * sh.Sq * D, nk = (size_t)sh.B * sh.H * sh.Skv * D;
  const size_t nl = (size_t)sh.B * sh.H * sh.Sq;
  std::vector<uint16_t> q = to_layout(in.q, k.bshd, sh.B, sh.H, sh.Sq);
  std::vector<uint16_t> kk = to_layout(in.k, k.bshd, sh.B, sh.H, sh.Skv);
  std::vector<uint16_t> v = to_layout(in.v, k.bshd, sh.B, sh.H, sh.Skv);
  DevBuf dq(nq * 2), dk(nk * 2), dv(nk * 2);
  DevBuf dout((nq + 2 * kGuardElems) * 2), dlse((nl + 2 * kGuardElems) * 4);
  CK(cudaMemcpy(dq.p, q.data(), nq * 2, cudaMemcpyHostToDevice));
  if (nk) {
    CK(cudaMemcpy(dk.p, kk.data(), nk * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dv.p, v.data(), nk * 2, cudaMemcpyHostToDevice));
  }
  std::vector<uint16_t> init(nq + 2 * kGuardElems, kPoison);
  std::fill(init.begin(), init.begin() + kGuardElems, kGuard);
  std::fill(init.end() - kGuardElems, init.end(), kGuard);
  std::vector<uint32_t> linit(nl + 2 * kGuardElems, 0x7FC00001u);
  std::fill(linit.begin(), linit.begin() + kGuardElems, 0x5A5A5A5Au);
  std::fill(linit.end() - kGuardElems, linit.end(), 0x5A5A5A5Au);

  std::vector<uint16_t> out[2];
  std::vector<uint32_t> lse_bits;
  for (int run = 0; run < 2; ++run) {
    CK(cudaMemcpy(dout.p, init.data(), init.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dlse.p, linit.data(), linit.size() * 4, cudaMemcpyHostToDevice));
    attngen_kargs a;
    std::memset(&a, 0, sizeof a);
    a.q = dq.p;
    a.k = dk.p;
    a.v = dv.p;
    a.o = (uint16_t *)dout.p + kGuardElems;
    a.lse = (float *)dlse.p + kGuardElems;
    a.B = sh.B;
    a.H = sh.H;
    a.Sq = sh.Sq;
    a.Skv = sh.Skv;
    a.scale_log2 = sh.scale * 1.44269504088896340736f;
    a.num_q_blocks = (sh.Sq + k.block_m - 1) / k.block_m;
    a.split_first = a.num_q_blocks * sh.H * sh.B;
    a.num_splits = 1;
    launch_and_wait(k, a, st, 20.0);
    out[run].resize(init.size());
    CK(cudaMemcpy(out[run].data(), dout.p, init.size() * 2, cudaMemcpyDeviceToHost));
    if (run == 0) {
      lse_bits.resize(linit.size());
      CK(cudaMemcpy(lse_bits.data(), dlse.p, linit.size() * 4, cudaMemcpyDeviceToHost));
    }
  }

  long ulp0 = 0, ulp1 = 0, ulp_over = 0, near_zero = 0, nonfinite_mismatch = 0, bad_nan = 0;
  long unwritten = 0, guard_bad = 0, lse_bad = 0, lse_guard_bad = 0;
  int worst = 0;
  size_t worst_at = 0;
  double l2_num = 0, l2_den = 0, max_v = 0;
  for (uint16_t x : in.v)
    if (!bf_nan(x) && !bf_inf(x)) max_v = std::max(max_v, (double)std::fabs(bf2f(x)));
  const double nz_thresh = std::ldexp(max_v, -10);
  for (size_t g = 0; g < kGuardElems; ++g) {
    guard_bad += out[0][g] != kGuard;
    guard_bad += out[0][kGuardElems + nq + g] != kGuard;
    lse_guard_bad += lse_bits[g] != 0x5A5A5A5Au;
    lse_guard_bad += lse_bits[kGuardElems + nl + g] != 0x5A5A5A5Au;
  }
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h)
      for (int s = 0; s < sh.Sq; ++s) {
        const size_t crow = ((size_t)b * sh.H + h) * sh.Sq + s;
        for (int d = 0; d < D; ++d) {
          const uint16_t o = out[0][kGuardElems + offset(k.bshd, sh.B, sh.H, sh.Sq, b, h, s, d)];
          const uint16_t r = ref.out[crow * D + d];
          if (o == kPoison) {
            ++unwritten;
            continue;
          }
          if (bf_nan(o) && o != 0x7FFF) ++bad_nan;
          if (bf_nan(o) || bf_nan(r) || bf_inf(o) || bf_inf(r)) {
            const bool same = (bf_nan(o) && bf_nan(r)) || (bf_inf(o) && o == r);
            if (!same) ++nonfinite_mismatch;
            continue;
          }
          const int du = std::abs(ulp_diff(o, r));
          if (du == 0) {
            ++ulp0;
          } else if (du == 1) {
            ++ulp1;
          } else if (std::fabs(bf2f(r)) < nz_thresh) {
            ++near_zero;
          } else {
            ++ulp_over;
          }
          if (du > worst) {
            worst = du;
            worst_at = crow * D + d;
          }
          const double e = ref.exact[crow * D + d];
          l2_num += (bf2f(o) - e) * (bf2f(o) - e);
          l2_den += e * e;
        }
        const float lg = f32(lse_bits[kGuardElems + crow]);
        const float lr = ref.lse[crow];
        const bool lse_ok = (std::isnan(lg) && std::isnan(lr)) || (std::isinf(lg) && lg == lr) ||
                            (std::isfinite(lg) && std::isfinite(lr) &&
                             std::fabs(lg - lr) <= 1e-4f + 2e-5f * std::fabs(lr));
        if (!lse_ok) {
          if (lse_bad < 3)
            std::printf("    lse mismatch b=%d h=%d s=%d: got %.9g ref %.9g\n", b, h, s, lg, lr);
          ++lse_bad;
        }
      }
  const bool deterministic = out[0] == out[1];
  const double rel_l2 = l2_den > 0 ? std::sqrt(l2_num / l2_den) : 0.0;
  const bool pass = ulp_over == 0 && nonfinite_mismatch == 0 && bad_nan == 0 && unwritten == 0 &&
                    guard_bad == 0 && lse_bad == 0 && lse_guard_bad == 0 && deterministic &&
                    rel_l2 <= 1e-2;
  std::printf("  %-4s %-22s B=%d H=%d Sq=%-5d Skv=%-5d ulp0=%ld ulp1=%ld >1=%ld nearzero=%ld "
              "worst=%d nonfinite_mismatch=%ld badnan=%ld unwritten=%ld guard=%ld lse_bad=%ld "
              "relL2=%.2e det=%s\n",
              pass ? "PASS" : "FAIL", sh.label, sh.B, sh.H, sh.Sq, sh.Skv, ulp0, ulp1, ulp_over,
              near_zero, worst, nonfinite_mismatch, bad_nan, unwritten, guard_bad + lse_guard_bad,
              lse_bad, rel_l2, deterministic ? "yes" : "NO");
  if (!pass && worst > 1) {
    const size_t crow = worst_at / D;
    const int d = (int)(worst_at % D);
    const int s = (int)(crow % sh.Sq), h = (int)((crow / sh.Sq) % sh.H),
              b = (int)(crow / sh.Sq / sh.H);
    const uint16_t o = out[0][kGuardElems + offset(k.bshd, sh.B, sh.H, sh.Sq, b, h, s, d)];
    std::printf("    worst at b=%d h=%d s=%d d=%d: got 0x%04x (%g) ref 0x%04x (%g) exact %g\n", b,
                h, s, d, o, bf2f(o), ref.out[worst_at], bf2f(ref.out[worst_at]),
                ref.exact[worst_at]);
  }
  return pass;
}

// TFLOP/s on one big shape (bshd): median of 20 timed launches after 3 warm-ups; a few rows
// of (b=0, h=0) and (b=B-1, h=H-1) are checked against the CPU reference.
bool run_perf(const Kernel &k, int B, int H, int S, cudaStream_t st) {
  const size_t n = (size_t)B * H * S * D;
  Shape sh{"perf", B, H, S, S, 0.08838834764831845f, 1.f, 1.f, false};
  std::vector<uint16_t> hq(n), hk(n), hv(n);
  Rng r(1234 + B * 7 + H);
  for (auto &x : hq) x = round_bf16(r.uni(-1.f, 1.f), 0);
  for (auto &x : hk) x = round_bf16(r.uni(-1.f, 1.f), 0);
  for (auto &x : hv) x = round_bf16(r.uni(-1.f, 1.f), 0);
  DevBuf dq(n * 2), dk(n * 2), dv(n * 2), dout(n * 2);
  CK(cudaMemcpy(dq.p, hq.data(), n * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dk.p, hk.data(), n * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv.p, hv.data(), n * 2, cudaMemcpyHostToDevice));
  attngen_kargs a;
  std::memset(&a, 0, sizeof a);
  a.q = dq.p;
  a.k = dk.p;
  a.v = dv.p;
  a.o = dout.p;
  a.B = B;
  a.H = H;
  a.Sq = S;
  a.Skv = S;
  a.scale_log2 = sh.scale * 1.44269504088896340736f;
  a.num_q_blocks = (S + k.block_m - 1) / k.block_m;
  a.split_first = a.num_q_blocks * H * B;
  a.num_splits = 1;
  for (int i = 0; i < 3; ++i) launch_and_wait(k, a, st, 20.0);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ms;
  void *params[] = {&a};
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(e0, st));
    CU(cuLaunchKernel(k.fn, (unsigned)a.num_q_blocks, (unsigned)H, (unsigned)B,
                      (unsigned)k.threads, 1, 1, (unsigned)k.smem, (CUstream)st, params,
                      nullptr));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float t;
    CK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  const double flops = 4.0 * B * H * (double)S * S * D;
  // Spot check: rows 0, 1, S/2, S-1 of two heads (canonical inputs = device layout here).
  std::vector<uint16_t> hout(n);
  CK(cudaMemcpy(hout.data(), dout.p, n * 2, cudaMemcpyDeviceToHost));
  Inputs in;
  in.sh = sh;
  const int rows[4] = {0, 1, S / 2, S - 1};
  const int heads[2][2] = {{0, 0}, {B - 1, H - 1}};
  int worst = 0;
  for (auto &bh : heads) {
    const int b = bh[0], h = bh[1];
    // Gather this head's K, V (and the rows of Q) into a 1x1 canonical problem.
    in.sh.B = 1;
    in.sh.H = 1;
    in.k.resize((size_t)S * D);
    in.v.resize((size_t)S * D);
    in.q.resize((size_t)S * D);
    for (int s = 0; s < S; ++s) {
      std::memcpy(&in.k[(size_t)s * D], &hk[offset(true, B, H, S, b, h, s, 0)], D * 2);
      std::memcpy(&in.v[(size_t)s * D], &hv[offset(true, B, H, S, b, h, s, 0)], D * 2);
    }
    for (int ri : rows) {
      std::memcpy(&in.q[(size_t)ri * D], &hq[offset(true, B, H, S, b, h, ri, 0)], D * 2);
      uint16_t ro[D];
      float rl;
      double ex[D];
      reference_row(in, k.mode, k.kv, a.scale_log2, 0, 0, ri, ro, &rl, ex);
      for (int d = 0; d < D; ++d)
        worst = std::max(worst,
                         std::abs(ulp_diff(hout[offset(true, B, H, S, b, h, ri, d)], ro[d])));
    }
  }
  std::printf("  PERF %s B=%d H=%d S=%d: median %.3f ms (min %.3f, max %.3f) = %.1f TFLOP/s; "
              "spot-check worst ulp %d %s\n",
              k.name.c_str(), B, H, S, med, ms.front(), ms.back(), flops / med * 1e-9, worst,
              worst <= 1 ? "ok" : "FAIL");
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return worst <= 1;
}

}  // namespace

int main(int argc, char **argv) {
  bool perf = true;
  std::vector<Kernel> kernels;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-perf") == 0) {
      perf = false;
      continue;
    }
    Kernel k;
    if (!parse_kernel(argv[i], k)) {
      std::printf("usage: wgmma_selftest [--no-perf] path.cubin:threads:block_m:smem_bytes...\n");
      return 2;
    }
    kernels.push_back(k);
  }
  if (kernels.empty()) {
    std::printf("usage: wgmma_selftest [--no-perf] path.cubin:threads:block_m:smem_bytes...\n");
    return 2;
  }
  CK(cudaSetDevice(0));
  CK(cudaFree(0));  // creates the primary context that the driver API calls below use
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, cc %d.%d, smem opt-in %zu bytes/block\n", prop.name,
              prop.multiProcessorCount, prop.major, prop.minor, prop.sharedMemPerBlockOptin);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

  const Shape shapes[] = {
      {"basic", 1, 2, 128, 128, 0.08838834764831845f, 1.f, 1.f, false},
      {"ragged", 2, 3, 200, 333, 0.08838834764831845f, 1.f, 1.f, false},
      {"cross-257", 1, 2, 77, 257, 0.08838834764831845f, 1.f, 1.f, false},
      {"cross-512", 1, 2, 1000, 512, 0.08838834764831845f, 1.f, 1.f, false},
      {"large-scores|t|~100", 1, 2, 300, 1100, 1.0f, 4.f, 1.f, false},
      {"sq1", 2, 2, 1, 5, 0.08838834764831845f, 1.f, 1.f, false},
      {"skv0", 1, 2, 70, 0, 0.08838834764831845f, 1.f, 1.f, false},
      {"skv-lt-tile", 1, 1, 130, 17, 0.08838834764831845f, 1.f, 1.f, false},
      {"nan-inputs", 1, 2, 64, 200, 0.08838834764831845f, 1.f, 1.f, true},
      // Diagnostics: one key (O = v_0: V path only) and q = 0 (all p = 1: O = mean of V,
      // independent of the S layout and of the order of P in its fragments).
      {"diag-skv1", 1, 1, 64, 1, 0.08838834764831845f, 1.f, 1.f, false},
      {"diag-q-zero", 1, 2, 128, 300, 0.08838834764831845f, 0.f, 1.f, false},
  };
  const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  std::vector<Inputs> inputs;
  for (int i = 0; i < nshapes; ++i) inputs.push_back(make_inputs(shapes[i], 100 + i));
  std::map<std::pair<int, int>, Reference> refs;  // (shape, mode * 1000 + kv_tile)

  int failed = 0, total = 0;
  for (auto &k : kernels) {
    CU(cuModuleLoad(&k.mod, k.path.c_str()));
    CU(cuModuleGetFunction(&k.fn, k.mod, k.name.c_str()));
    CU(cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k.smem));
    int regs = 0;
    CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k.fn));
    std::printf("%s: threads=%d block_m=%d smem=%d regs=%d\n", k.name.c_str(), k.threads,
                k.block_m, k.smem, regs);
    for (int i = 0; i < nshapes; ++i) {
      auto key = std::make_pair(i, k.mode * 1000 + k.kv);
      if (!refs.count(key)) refs[key] = make_reference(inputs[i], k.mode, k.kv);
      ++total;
      if (!run_case(k, inputs[i], refs[key], st)) ++failed;
    }
    std::fflush(stdout);
  }
  if (perf) {
    for (auto &k : kernels) {
      if (!k.bshd || k.mode != 0) continue;  // timing: bshd, rtne (modes differ little)
      ++total;
      if (!run_perf(k, 1, 16, 8192, st)) ++failed;
      ++total;
      if (!run_perf(k, 2, 24, 8192, st)) ++failed;
      std::fflush(stdout);
    }
  }
  std::printf("%d passed, %d failed\n", total - failed, failed);
  return failed ? 1 : 0;
}
