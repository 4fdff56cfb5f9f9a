// Variants of the copy and of the one-launch reduction, in CUDA C++ beside the driver's copy
// and CUB, timed as `bankwise bench` times (a hold, then runs back to back with an event between
// each, median of 96, inputs rotated over 1 GiB). It answers two questions cheaply before a
// Rust kernel changes: which copy keeps memory busiest, and how much of a small reduction is the
// launch and its last-block tail. Figures: docs/benchmarks.md, "The one-vector copy and the
// reduction's floor". Run on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o copy_reduce copy_reduce.cu && ./copy_reduce
// red<UNROLL, FENCE, THREADS>: 16-byte vectors per thread per step; FENCE 0: partial, membar.gl,
// atomicAdd ticket, membar.gl in the last block (bankwise's `reduce`); 1: one atom.acq_rel.gpu;
// 2: partials only, no ticket and no last block (not a whole reduction: its floor).
// cpy<UNROLL, CS>: grid-stride copy, UNROLL vectors per thread per step (CS: .cs hints);
// cp1<LD, ST, T>: one vector per thread per step. "per_sm P": at most P blocks per SM; 100000 or 0:
// a grid covering the range.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include "timing.cuh"
#include <cub/cub.cuh>

__global__ void empty_k() {}

// FENCE: 0 membar.gl + atomicAdd, 1 atom.acq_rel.gpu without a separate fence, 2 no tail (partials only)
template <int UNROLL, int FENCE, int THREADS>
__global__ void __launch_bounds__(THREADS) red(float* dst, float* partials, unsigned* counter, const float4* v, uint64_t nv) {
  __shared__ float slots[THREADS / 32];
  __shared__ unsigned flag;
  float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  uint64_t per_block = (uint64_t)THREADS * UNROLL, stride = (uint64_t)gridDim.x * per_block;
  uint64_t first = blockIdx.x * per_block + threadIdx.x;
  for (; first + (UNROLL - 1) * THREADS < nv; first += stride) {
    float4 h[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++) h[k] = v[first + k * THREADS];
#pragma unroll
    for (int k = 0; k < UNROLL; k++) { a0 += h[k].x; a1 += h[k].y; a2 += h[k].z; a3 += h[k].w; }
  }
#pragma unroll
  for (int k = 0; k < UNROLL; k++) if (first + k * THREADS < nv) { float4 x = v[first + k * THREADS]; a0 += x.x; a1 += x.y; a2 += x.z; a3 += x.w; }
  float s = (a0 + a1) + (a2 + a3);
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < THREADS / 32 ? slots[threadIdx.x] : 0.f;
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
    unsigned t;
    if (FENCE == 0) { __threadfence(); t = atomicAdd(counter, 1); if (t == gridDim.x - 1) __threadfence(); }
    else if (FENCE == 1) { asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(t) : "l"(counter) : "memory"); }
    else t = 0;
    flag = (FENCE != 2) && t == gridDim.x - 1;
  }
  __syncthreads();
  if (!flag) return;
  float r = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += THREADS) r += ((volatile float*)partials)[i];
  for (int o = 16; o; o >>= 1) r += __shfl_xor_sync(~0u, r, o);
  __syncthreads();
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = r;
  __syncthreads();
  if (threadIdx.x == 0) { float q = 0; for (int w = 0; w < THREADS / 32; w++) q += slots[w]; *dst = q; *(volatile unsigned*)counter = 0; }
}

template <int UNROLL, int CS>
__global__ void __launch_bounds__(256) cpy(float4* d, const float4* s, uint64_t nv) {
  uint64_t per_block = 256ull * UNROLL, stride = (uint64_t)gridDim.x * per_block;
  for (uint64_t first = blockIdx.x * per_block + threadIdx.x; first < nv; first += stride) {
    if (first + (UNROLL - 1) * 256 < nv) {
      float4 h[UNROLL];
#pragma unroll
      for (int k = 0; k < UNROLL; k++) h[k] = CS ? __ldcs(&s[first + k * 256]) : s[first + k * 256];
#pragma unroll
      for (int k = 0; k < UNROLL; k++) { if (CS) __stcs(&d[first + k * 256], h[k]); else d[first + k * 256] = h[k]; }
    } else {
      for (int k = 0; k < UNROLL; k++) if (first + k * 256 < nv) d[first + k * 256] = s[first + k * 256];
    }
  }
}

// LD: 0 plain, 1 .cs, 2 .nc L1::no_allocate; ST: 0 plain, 1 .cs
template <int LD, int ST, int T>
__global__ void __launch_bounds__(T) cp1(float4* d, const float4* s, uint64_t nv) {
  for (uint64_t i = blockIdx.x * (uint64_t)T + threadIdx.x; i < nv; i += (uint64_t)gridDim.x * T) {
    float4 x;
    if (LD == 0) x = s[i]; else if (LD == 1) x = __ldcs(&s[i]);
    else asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w) : "l"(&s[i]));
    if (ST == 0) d[i] = x; else __stcs(&d[i], x);
  }
}

static int sms;

int main() {
  CK(cudaSetDevice(0));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0)); sms = p.multiProcessorCount;
  printf("device %s, %d SMs, L2 %d MB\n", p.name, sms, p.l2CacheSize >> 20);
  CK(cudaStreamCreate(&st));
  const size_t POOL = 1ull << 30;  // 1 GiB of input, rotated
  float *pool, *out, *partials, *dst; unsigned* counter;
  CK(cudaMalloc(&pool, POOL)); CK(cudaMalloc(&out, POOL)); CK(cudaMalloc(&partials, 1 << 20)); CK(cudaMalloc(&counter, 4)); CK(cudaMalloc(&dst, 4));
  CK(cudaMemset(counter, 0, 4));
  { std::vector<float> h(POOL / 4); for (size_t i = 0; i < h.size(); i++) h[i] = (float)((i * 2654435761u) % 1000) / 1000.f; CK(cudaMemcpy(pool, h.data(), POOL, cudaMemcpyHostToDevice)); }
  void* cubtmp = nullptr; size_t cubbytes = 0;
  cub::DeviceReduce::Sum(cubtmp, cubbytes, pool, dst, 1 << 28, st); CK(cudaMalloc(&cubtmp, cubbytes));
  printf("%-34s %10s %10s %10s %10s\n", "reduce f32 (us)", "2^20", "2^22", "2^24", "2^26");
  int lg[4] = {20, 22, 24, 26};
  auto row = [&](const char* name, auto launch) {
    printf("%-34s", name);
    for (int j = 0; j < 4; j++) {
      size_t n = 1ull << lg[j]; size_t sets = POOL / 4 / n;
      double us = timeit([&](int i) { launch(pool + (i % sets) * n, n); });
      printf(" %10.2f", us);
    }
    printf("\n");
  };
  row("empty kernel", [&](float*, size_t) { empty_k<<<1, 32, 0, st>>>(); });
  row("cub DeviceReduce::Sum", [&](float* s, size_t n) { cub::DeviceReduce::Sum(cubtmp, cubbytes, s, dst, (int)n, st); });
  row("driver copy (same bytes)", [&](float* s, size_t n) { CK(cudaMemcpyAsync(out, s, n * 4, cudaMemcpyDeviceToDevice, st)); });
#define RED(U, F, PER, T) row("red U" #U " F" #F " per_sm " #PER " T" #T, [&](float* s, size_t n) { \
    uint64_t nv = n / 4; uint64_t want = (nv + (uint64_t)T * U - 1) / ((uint64_t)T * U); uint64_t mx = (uint64_t)sms * PER; \
    unsigned g = (unsigned)std::min(want, mx); red<U, F, T><<<g, T, 0, st>>>(dst, partials, counter, (const float4*)s, nv); })
  RED(4, 0, 6, 256); RED(4, 1, 6, 256); RED(4, 2, 6, 256); RED(4, 0, 16, 256); RED(4, 0, 32, 256); RED(4, 0, 64, 256); RED(4, 0, 100000, 256);
  RED(2, 0, 32, 256); RED(2, 0, 100000, 256); RED(1, 0, 100000, 256); RED(4, 1, 32, 256); RED(4, 2, 32, 256); RED(4, 2, 100000, 256);
  printf("\n%-34s %10s %10s %10s %10s\n", "copy (us; % of driver)", "2^24 f32", "2^26", "2^28", "");
  int cl[3] = {24, 26, 28}; // 64 MB, 256 MB, 1 GB
  std::vector<double> drv(3);
  for (int j = 0; j < 3; j++) { size_t n = 1ull << cl[j]; size_t sets = POOL / 4 / n;
    drv[j] = timeit([&](int i) { CK(cudaMemcpyAsync(out + (i % sets) * 0, pool + (i % sets) * n, n * 4, cudaMemcpyDeviceToDevice, st)); }); }
  printf("%-34s %10.2f %10.2f %10.2f\n", "driver copy", drv[0], drv[1], drv[2]);
  auto crow = [&](const char* name, auto launch) {
    printf("%-34s", name);
    for (int j = 0; j < 3; j++) { size_t n = 1ull << cl[j]; size_t sets = POOL / 4 / n;
      double us = timeit([&](int i) { launch(out, pool + (i % sets) * n, n); });
      double d = timeit([&](int i) { CK(cudaMemcpyAsync(out, pool + (i % sets) * n, n * 4, cudaMemcpyDeviceToDevice, st)); });
      printf(" %6.1f(%5.1f)", us, 100 * d / us); }
    printf("\n");
  };
#define CPY(U, CS, PER) crow("cpy U" #U " cs" #CS " per_sm " #PER, [&](float* d, float* s, size_t n) { uint64_t nv = n / 4; \
    uint64_t want = (nv + 256ull * U - 1) / (256ull * U); unsigned g = (unsigned)std::min<uint64_t>(want, (uint64_t)sms * PER); cpy<U, CS><<<g, 256, 0, st>>>((float4*)d, (const float4*)s, nv); })
#define CP1(LD, ST, T, PER) crow("cp1 ld" #LD " st" #ST " T" #T " per_sm " #PER, [&](float* d, float* s, size_t n) { uint64_t nv = n / 4; \
    uint64_t want = (nv + T - 1) / T; unsigned g = (unsigned)std::min<uint64_t>(want, PER == 0 ? want : (uint64_t)sms * PER); cp1<LD, ST, T><<<g, T, 0, st>>>((float4*)d, (const float4*)s, nv); })
  CP1(0, 0, 256, 0); CP1(1, 1, 256, 0); CP1(2, 1, 256, 0); CP1(0, 1, 256, 0); CP1(1, 0, 256, 0);
  CP1(0, 0, 512, 0); CP1(0, 0, 1024, 0); CP1(0, 0, 128, 0);
  CPY(4, 0, 64); CPY(1, 0, 64); CPY(4, 0, 128); CPY(4, 0, 256); CPY(4, 0, 100000); CPY(2, 0, 100000); CPY(1, 0, 100000); CPY(8, 0, 100000); 
  CK(cudaDeviceSynchronize());
  return 0;
}
