// A transpose for rows that do not start on 16 bytes, realigned in registers, in CUDA C++ beside
// bankwise's shipped kernels (loaded from the prebuilt cubin), cuBLAS `geam` and the driver's
// copy, timed as `bankwise bench` times (a hold, then runs back to back with an event between
// each, median of 96). It answers cheaply, before a Rust kernel changes, whether realigning the
// misaligned row windows with shuffles and byte permutes (so that the shared tile takes whole
// 16-byte vectors, as the aligned kernel's does) beats staging elements one by one.
// Figures: docs/decisions.md, "a realigned transpose for odd shapes". Run from the repository root
// on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/odd benches/explore/transpose_odd.cu -lcublas -lcuda && /tmp/odd
//
// realigned<T, TALL, WIDE>: tiles of TALL input rows x WIDE input columns, 256 threads, one tile
// per block, tiles taken down each column of tiles. Load: each tile row's window of aligned
// 16-byte vectors (WIDE / V, plus one where the row is misaligned, loaded by the row's last
// lane), the next lane's vector by a shuffle, the V elements of the tile's columns picked by
// selects and byte permutes, one STS.128 into the aligned kernel's swizzled tile. Store: each
// output row's aligned 16-byte chunks whole; its two partial chunks (shared with the tiles above
// and below) element by element, one element per lane in rounds of their own. The versions
// measured before this one (64-bit indices, one lane looping over a row's end chunks) and their
// figures: docs/decisions.md. `./odd ncu` launches each kernel once, for Nsight Compute.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include "timing.cuh"
#include <cuda.h>
#include <cublas_v2.h>
#define CU(x) do { CUresult err_ = (x); if (err_ != CUDA_SUCCESS) { printf("%s:%d CUresult %d\n", __FILE__, __LINE__, (int)err_); exit(1); } } while (0)


template <typename T>
__device__ __forceinline__ uint4 load_vec(const T* src, int64_t first, int64_t total) {
  constexpr int V = 16 / sizeof(T);
  if (first + V <= total) return *reinterpret_cast<const uint4*>(src + first);
  union { uint4 u; T e[V]; } x; x.u = make_uint4(0, 0, 0, 0);
  for (int i = 0; i < V; i++) if (first + i < total) x.e[i] = src[first + i];
  return x.u;
}

// Elements m .. m + V of the 2V elements of a then b (m < V), for 1-, 2- or 4-byte elements.
template <typename T>
__device__ __forceinline__ uint4 realign(uint4 a, uint4 b, int m) {
  uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  int s = m * (int)sizeof(T), ws = s >> 2;
  uint32_t x[8];
#pragma unroll
  for (int i = 0; i < 7; i++) x[i] = (ws & 1) ? w[i + 1] : w[i];
  x[7] = w[7];
  uint32_t y[5];
#pragma unroll
  for (int i = 0; i < 5; i++) y[i] = (ws & 2) ? x[i + 2] : x[i];
  if (sizeof(T) == 4) return make_uint4(y[0], y[1], y[2], y[3]);
  // Byte shift within words: selector picks bytes (s & 3) .. (s & 3) + 3 of the pair.
  uint32_t sel = (0x3210u + 0x1111u * (uint32_t)(s & 3)) & 0x7777u;
  return make_uint4(__byte_perm(y[0], y[1], sel), __byte_perm(y[1], y[2], sel), __byte_perm(y[2], y[3], sel), __byte_perm(y[3], y[4], sel));
}

template <typename T, int TALL, int WIDE, typename I>
__global__ void __launch_bounds__(256) realigned(T* __restrict__ dst, const T* __restrict__ src, int64_t rows64, int64_t cols64) {
  constexpr int V = 16 / sizeof(T);
  constexpr int PER_L = WIDE / V;            // vectors per tile row
  constexpr int RPK = 256 / PER_L;           // tile rows per load round
  constexpr int N = TALL / RPK;              // load rounds (= store rounds)
  constexpr int PER_S = TALL / V;            // chunks per output row
  constexpr int GROUPS = PER_S / 8;
  static_assert(PER_L >= 8 && PER_L <= 32 && PER_S >= 8 && N * 256 == WIDE * PER_S, "shape");
  extern __shared__ uint4 tile[];            // TALL rows x PER_L vectors, swizzled
  const I rows = (I)rows64, cols = (I)cols64;
  const int t = threadIdx.x;
  const I r0 = (I)blockIdx.x * TALL, c0 = (I)blockIdx.y * WIDE;
  const I total = rows * cols;
  const int tr = t / PER_L, tv = t % PER_L;
  const I width = cols - c0 < (I)WIDE ? cols - c0 : (I)WIDE;
  const bool interior = r0 + TALL <= rows && c0 + WIDE <= cols && ((uint64_t)r0 + TALL) * cols + V <= (uint64_t)total;
  uint4 a[N], e[N];
  int mis[N];
  I at = (r0 + tr) * cols + c0;
#pragma unroll
  for (int k = 0; k < N; k++, at += (I)RPK * cols) {
    I r = r0 + tr + k * RPK;
    int m = (int)(at & (V - 1));
    mis[k] = m;
    I base = at - m;
    a[k] = make_uint4(0, 0, 0, 0); e[k] = make_uint4(0, 0, 0, 0);
    if (interior) {
      a[k] = *reinterpret_cast<const uint4*>(src + base + tv * V);
      if (tv == PER_L - 1 && m != 0) e[k] = *reinterpret_cast<const uint4*>(src + base + PER_L * V);
    } else {
      if (r < rows && base + tv * V < at + width) a[k] = load_vec(src, (int64_t)(base + tv * V), (int64_t)total);
      if (r < rows && tv == PER_L - 1 && m != 0 && base + PER_L * V < at + width) e[k] = load_vec(src, (int64_t)(base + PER_L * V), (int64_t)total);
    }
  }
#pragma unroll
  for (int k = 0; k < N; k++) {
    uint4 b;
    b.x = __shfl_down_sync(~0u, a[k].x, 1, PER_L); b.y = __shfl_down_sync(~0u, a[k].y, 1, PER_L);
    b.z = __shfl_down_sync(~0u, a[k].z, 1, PER_L); b.w = __shfl_down_sync(~0u, a[k].w, 1, PER_L);
    if (tv == PER_L - 1) b = e[k];
    int r = tr + k * RPK;
    tile[r * PER_L + (tv ^ ((r / V) & 7))] = realign<T>(a[k], b, mis[k]);
  }
  __syncthreads();
  const T* el = reinterpret_cast<const T*>(tile);
#pragma unroll
  for (int k = 0; k < N; k++) {
    int idx = k * 256 + t;
    int u_low = idx & 7, q = idx >> 3, j_low = q & 3, q2 = q >> 2;
    int jj = q2 / GROUPS, qc = (q2 % GROUPS) * 8 + u_low;
    // Four output rows per warp whose elements lie in distinct words of a tile vector.
    constexpr int SUB = V / 4;
    int j = (jj / SUB) * V + j_low * SUB + jj % SUB;
    I out_row = c0 + j;
    I o = out_row * rows + r0;
    int m = (int)(o & (V - 1));
    I chunk0 = o - m;
    bool ok_row = out_row < cols;
    // Elements i < m of chunk qc sit in tile rows of vector group qc - 1, the rest in group qc.
    int col = j % V, vj = j / V;
    int lo = ((vj ^ ((qc - 1) & 7)) * V + col), hi = ((vj ^ (qc & 7)) * V + col);
    int top = (qc * V - m) * WIDE;
    if (qc > 0 || m == 0) {
      union { uint4 u; T e[V]; } g;
#pragma unroll
      for (int i = 0; i < V; i++) g.e[i] = el[top + i * WIDE + (i < m ? lo : hi)];
      I first = chunk0 + qc * V;
      if (ok_row && (interior || r0 + qc * V - m + V <= rows)) {
        *reinterpret_cast<uint4*>(dst + first) = g.u;
      } else if (ok_row) {
        for (int i = 0; i < V; i++) { int rr = qc * V + i - m; if (rr >= 0 && r0 + rr < rows) dst[first + i] = g.e[i]; }
      }
    }
  }
  // The partial chunks at both ends of each output row (shared with the tiles above and below),
  // element by element in rounds of their own: every lane one element, no lane alone in a loop.
  for (int p = t; p < WIDE * V; p += 256) {
    int j = p / V, i = p % V;
    I out_row = c0 + j;
    I o = out_row * rows + r0;
    int m = (int)(o & (V - 1));
    if (m == 0 || out_row >= cols) continue;
    int rr = i >= m ? i - m : TALL + i - m;
    I at = o - m + (i >= m ? i : PER_S * V + i);
    if (r0 + rr < rows) dst[at] = el[rr * WIDE + (((j / V) ^ ((rr / V) & 7)) * V) + j % V];
  }
}


template <typename T, int TALL, int WIDE>
void launch(T* d, const T* s, int64_t rows, int64_t cols) {
  constexpr int V = 16 / sizeof(T);
  dim3 grid((unsigned)((rows + TALL - 1) / TALL), (unsigned)((cols + WIDE - 1) / WIDE));
  size_t smem = (size_t)TALL * WIDE * sizeof(T);
  (void)V;
  if ((uint64_t)rows * cols < (1ull << 31)) realigned<T, TALL, WIDE, uint32_t><<<grid, 256, smem, st>>>(d, s, rows, cols);
  else realigned<T, TALL, WIDE, uint64_t><<<grid, 256, smem, st>>>(d, s, rows, cols);
}

static CUmodule mod;
static CUfunction f_unaligned, f_swz16, f_u32, f_u16, f_unaligned16;
// bankwise's kernels: (dst, src, rows, cols, batch).
void bw(CUfunction f, dim3 grid, dim3 block, unsigned smem, void* d, const void* s, uint64_t rows, uint64_t cols) {
  uint64_t batch = 1;
  void* args[] = {&d, (void*)&s, &rows, &cols, &batch};
  CU(cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, st, args, nullptr));
}

template <typename T>
bool check(const T* d, const T* s, int64_t rows, int64_t cols, void (*run)(T*, const T*, int64_t, int64_t)) {
  size_t n = rows * cols;
  std::vector<T> h(n), o(n);
  for (size_t i = 0; i < n; i++) h[i] = (T)(i * 2654435761u >> 7);
  CK(cudaMemcpy((void*)s, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemset((void*)d, 0xA5, n * sizeof(T)));
  run((T*)d, s, rows, cols);
  CK(cudaStreamSynchronize(st));
  CK(cudaMemcpy(o.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++)
      if (o[c * rows + r] != h[r * cols + c]) { printf("  MISMATCH %ldx%ld (%ld,%ld)\n", (long)rows, (long)cols, (long)r, (long)c); return false; }
  return true;
}

int main(int argc, char** argv) {
  CK(cudaSetDevice(0));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  CK(cudaStreamCreate(&st));
  CU(cuModuleLoad(&mod, "host/bankwise/prebuilt/bankwise-builtin.sm_90.cubin"));
  CU(cuModuleGetFunction(&f_unaligned, mod, "transpose_unaligned_u32"));
  CU(cuModuleGetFunction(&f_swz16, mod, "transpose_swizzled_u16"));
  CU(cuModuleGetFunction(&f_u32, mod, "transpose_u32"));
  CU(cuModuleGetFunction(&f_u16, mod, "transpose_u16"));
  // The shipped unaligned kernels, if the cubin has the realigned ones (tiles of 128 x 64).
  bool realigned_cubin = cuModuleGetFunction(&f_unaligned16, mod, "transpose_unaligned_u16") == CUDA_SUCCESS;
  int ushared32 = realigned_cubin ? 128 * 64 * 4 : 67 * 65 * 4, utall = realigned_cubin ? 128 : 64;
  printf("shipped unaligned kernels: %s\n", realigned_cubin ? "realigned (u16 and u32)" : "staged element by element (u32)");
  CU(cuFuncSetAttribute(f_u16, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 32768));
  cublasHandle_t cb; cublasCreate(&cb); cublasSetStream(cb, st);
  const size_t BYTES = 1ull << 30;
  char *a, *b; CK(cudaMalloc(&a, BYTES)); CK(cudaMalloc(&b, BYTES));
  { std::vector<uint32_t> h(BYTES / 4); for (size_t i = 0; i < h.size(); i++) h[i] = (uint32_t)(i * 2654435761u); CK(cudaMemcpy(a, h.data(), BYTES, cudaMemcpyHostToDevice)); }

  // Correctness, every output element against the input.
  int64_t shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {7, 5}, {129, 67}, {65, 63}, {200, 300}, {4095, 4097}, {8191, 8193}, {8192, 8192}, {3, 100003}, {100003, 3}, {1031, 1009}};
  bool all = true;
  for (auto& sh : shapes) {
    if (argc > 1) break;  // Nsight Compute's run: one launch of each, below.
    all &= check<uint32_t>((uint32_t*)b, (uint32_t*)a, sh[0], sh[1], [](uint32_t* d, const uint32_t* s, int64_t r, int64_t c) { launch<uint32_t, 64, 64>(d, s, r, c); });
    all &= check<uint16_t>((uint16_t*)b, (uint16_t*)a, sh[0], sh[1], [](uint16_t* d, const uint16_t* s, int64_t r, int64_t c) { launch<uint16_t, 128, 128>(d, s, r, c); });
    all &= check<uint16_t>((uint16_t*)b, (uint16_t*)a, sh[0], sh[1], [](uint16_t* d, const uint16_t* s, int64_t r, int64_t c) { launch<uint16_t, 64, 128>(d, s, r, c); });
    all &= check<uint8_t>((uint8_t*)b, (uint8_t*)a, sh[0], sh[1], [](uint8_t* d, const uint8_t* s, int64_t r, int64_t c) { launch<uint8_t, 128, 128>(d, s, r, c); });
  }
  if (argc == 1) printf("correctness: %s\n", all ? "all shapes right" : "FAILED");
  { std::vector<uint32_t> h(BYTES / 4); for (size_t i = 0; i < h.size(); i++) h[i] = (uint32_t)(i * 2654435761u); CK(cudaMemcpy(a, h.data(), BYTES, cudaMemcpyHostToDevice)); }

  printf("%-34s %12s %12s %12s %12s\n", "% of the driver copy", "8191x8193", "8192x8192", "16383x16385", "4095x4097");
  int64_t sizes[4][2] = {{8191, 8193}, {8192, 8192}, {16383, 16385}, {4095, 4097}};
  if (getenv("ODD_ONLY")) sizes[1][0] = 8191, sizes[1][1] = 8193;
  auto row = [&](const char* name, int bytes, auto run) {
    printf("%-34s", name);
    for (auto& sz : sizes) {
      int64_t r = sz[0], c = sz[1];
      size_t n = r * c * bytes;
      // Inputs of 1 GiB / n sets rotated, output one buffer.
      size_t sets = std::max<size_t>(1, BYTES / 2 / n);
      auto in = [&](int i) { return a + (i % sets) * ((n + 255) / 256 * 256); };
      double us = timeit([&](int i) { run(b, in(i), r, c); });
      double cp = timeit([&](int i) { CK(cudaMemcpyAsync(b, in(i), n, cudaMemcpyDeviceToDevice, st)); });
      printf(" %12.1f", 100 * cp / us);
    }
    printf("\n");
  };
  auto f32bw = [&](char* d, char* s, int64_t r, int64_t c) {
    if (r % 4 == 0 && c % 4 == 0) bw(f_u32, dim3((r + 63) / 64, (c + 63) / 64), dim3(256), 16384, d, s, r, c);
    else bw(f_unaligned, dim3((r + utall - 1) / utall, (c + 63) / 64), dim3(256), ushared32, d, s, r, c);
  };
  auto u16bw = [&](char* d, char* s, int64_t r, int64_t c) {
    if (r % 8 == 0 && c % 8 == 0) bw(f_u16, dim3((r + 127) / 128, (c + 127) / 128), dim3(256), 32768, d, s, r, c);
    else if (realigned_cubin) bw(f_unaligned16, dim3((r + 127) / 128, (c + 63) / 64), dim3(256), 128 * 64 * 2, d, s, r, c);
    else bw(f_swz16, dim3((r + 31) / 32, (c + 31) / 32), dim3(32, 8), 2048, d, s, r, c);
  };
  float one = 1, zero = 0;
  if (argc > 1) {  // One launch of each at 8191 x 8193, for Nsight Compute.
    f32bw(b, a, 8191, 8193); launch<uint32_t, 128, 64>((uint32_t*)b, (uint32_t*)a, 8191, 8193);
    u16bw(b, a, 8191, 8193); launch<uint16_t, 128, 64>((uint16_t*)b, (uint16_t*)a, 8191, 8193);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  row("f32 bankwise (shipped)", 4, f32bw);
  row("f32 realigned 64x64", 4, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint32_t, 64, 64>((uint32_t*)d, (uint32_t*)s, r, c); });
  row("f32 realigned 128x64", 4, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint32_t, 128, 64>((uint32_t*)d, (uint32_t*)s, r, c); });
  row("f32 realigned 64x128", 4, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint32_t, 64, 128>((uint32_t*)d, (uint32_t*)s, r, c); });
  row("f32 cuBLAS geam", 4, [&](char* d, char* s, int64_t r, int64_t c) {
    cublasSgeam(cb, CUBLAS_OP_T, CUBLAS_OP_N, (int)r, (int)c, &one, (float*)s, (int)c, &zero, (float*)d, (int)r, (float*)d, (int)r); });
  row("f32 bankwise (shipped) again", 4, f32bw);
  row("u16 bankwise (shipped)", 2, u16bw);
  row("u16 realigned 128x128", 2, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint16_t, 128, 128>((uint16_t*)d, (uint16_t*)s, r, c); });
  row("u16 realigned 64x128", 2, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint16_t, 64, 128>((uint16_t*)d, (uint16_t*)s, r, c); });
  row("u16 realigned 128x64", 2, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint16_t, 128, 64>((uint16_t*)d, (uint16_t*)s, r, c); });
  row("u8 realigned 128x128", 1, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint8_t, 128, 128>((uint8_t*)d, (uint8_t*)s, r, c); });
  row("u8 realigned 256x128", 1, [&](char* d, char* s, int64_t r, int64_t c) { launch<uint8_t, 256, 128>((uint8_t*)d, (uint8_t*)s, r, c); });
  CK(cudaDeviceSynchronize());
  return 0;
}
