// fastdiv.h: n / d for 0 <= n < 2^31 and 1 <= d < 2^31 by a multiply-high and a shift, the
// divisor's pair (m, s) made once on the host. One copy serves the sm90 wgmma template (via
// `//$ include "common/fastdiv.h"`: the job decode's divisions by num_q_blocks, H, H * B and
// H / H_kv, one IMAD.HI and a shift each instead of an inlined 32-bit division) and the runtime
// (runtime/src/api.c fills kargs.div_m / div_s; tests/test_split_plan.c test_fastdiv checks
// the quotients).
//
// Plain C/C++, no includes. Define AG_FDIV_FN before including to change the qualifiers of the
// quotient (CUDA: __device__ __forceinline__; the default is `static inline`, host C/C++), and
// AG_FDIV_DEVICE_ONLY to leave the host's ag_fdiv_make out.
//
// s = ceil(log2 d), m = ceil(2^(31 + s) / d) (< 2^32 as d > 2^(s - 1); d = 1: s = 0, m = 2^31);
// n / d = floor(2n m / 2^(32 + s)): with m = 2^(31 + s) / d + e, 0 <= e < 1, the error term
// n e / 2^(31 + s) < 2^-s <= 1 / d, and the fraction of n / d is at most (d - 1) / d.
#ifndef AG_FASTDIV_H
#define AG_FASTDIV_H

#ifndef AG_FDIV_FN
#define AG_FDIV_FN static inline
#endif

#ifndef AG_FDIV_DEVICE_ONLY
// The pair (m, s) of divisor d (1 <= d < 2^31; the host's side).
static inline void ag_fdiv_make(unsigned int d, unsigned int *m, unsigned int *s) {
  unsigned int l = 0;
  while (l < 31u && (1u << l) < d) ++l;
  *s = l;
  *m = (unsigned int)(((1ull << (31u + l)) + d - 1u) / d);
}
#endif

// n / d for 0 <= n < 2^31, with (m, s) from ag_fdiv_make(d).
AG_FDIV_FN unsigned int ag_fdiv(unsigned int n, unsigned int m, unsigned int s) {
  return (unsigned int)(((unsigned long long)(n + n) * m) >> 32) >> s;
}

#endif // AG_FASTDIV_H
