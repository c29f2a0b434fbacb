// cluster_probe: how many 2-block clusters of an attngen-sized block (384 threads, ~225 KB of
// shared memory, so one block per SM) an sm90 GPU runs at once, asked two ways: the occupancy
// API (cudaOccupancyMaxActiveClusters) and a launch of `grid` blocks that each spin for a fixed
// time and record when they started (blocks that were not resident start a spin later).
// Build: nvcc -arch=sm_90a -O2 -o cluster_probe bench/cluster_probe.cu
// Run:   ./cluster_probe [grid] [smem_bytes]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
    spin2(unsigned long long *rec, unsigned long long ns) {
  extern __shared__ unsigned char smem[];
  if (threadIdx.x == 0) {
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    unsigned long long t0 = gtime();
    smem[0] = (unsigned char)smid;
    while (gtime() - t0 < ns) {}
    rec[3 * blockIdx.x] = t0;
    rec[3 * blockIdx.x + 1] = gtime();
    rec[3 * blockIdx.x + 2] = smid;
  }
}

extern "C" __global__ void __launch_bounds__(384, 1) spin1(unsigned long long *rec, unsigned long long ns) {
  extern __shared__ unsigned char smem[];
  if (threadIdx.x == 0) {
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    unsigned long long t0 = gtime();
    smem[0] = (unsigned char)smid;
    while (gtime() - t0 < ns) {}
    rec[3 * blockIdx.x] = t0;
    rec[3 * blockIdx.x + 1] = gtime();
    rec[3 * blockIdx.x + 2] = smid;
  }
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

static int run(const char *what, const void *fn, int cluster, int grid, int smem) {
  unsigned long long *rec;
  const unsigned long long ns = 2000000ull;  // 2 ms per block
  CK(cudaMalloc(&rec, 3 * sizeof(unsigned long long) * grid));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(384);
  cfg.dynamicSmemBytes = smem;
  if (cluster > 1) {
    int n = -1;
    CK(cudaOccupancyMaxActiveClusters(&n, fn, &cfg));
    printf("%s: cudaOccupancyMaxActiveClusters = %d clusters of %d (%d blocks)\n", what, n,
           cluster, n * cluster);
  }
  void *args[] = {&rec, (void *)&ns};
  CK(cudaLaunchKernelExC(&cfg, fn, args));
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> h(3 * grid);
  CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
  unsigned long long t_first = ~0ull;
  for (int i = 0; i < grid; i++) t_first = std::min(t_first, h[3 * i]);
  int late = 0, sms = 0;
  std::vector<int> seen(1024, 0);
  for (int i = 0; i < grid; i++) {
    if (h[3 * i] - t_first > ns / 2) late++;
    if (!seen[h[3 * i + 2]]++) sms++;
  }
  printf("%s: grid %d, %d distinct SMs, %d blocks started > 1 ms after the first (not resident "
         "with the first wave)\n", what, grid, sms, late);
  if (cluster > 1 && late) {
    printf("  late blocks (block: smid):");
    for (int i = 0; i < grid; i++)
      if (h[3 * i] - t_first > ns / 2) printf(" %d:%llu", i, h[3 * i + 2]);
    printf("\n");
  }
  CK(cudaFree(rec));
  return 0;
}

int main(int argc, char **argv) {
  int dev = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  int grid = argc > 1 ? atoi(argv[1]) : sms;
  int smem = argc > 2 ? atoi(argv[2]) : 230504;
  printf("SMs %d, grid %d, dynamic shared memory %d bytes\n", sms, grid, smem);
  CK(cudaFuncSetAttribute((const void *)spin2, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute((const void *)spin1, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  if (run("1-block", (const void *)spin1, 1, grid, smem)) return 1;
  if (run("2-block clusters", (const void *)spin2, 2, grid, smem)) return 1;
  return 0;
}
