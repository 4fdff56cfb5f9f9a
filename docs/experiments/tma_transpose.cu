// Experiment (2026-11-22, H100): does a Hopper TMA-fed transpose beat the tuned `transpose`?
// Not part of the library; kept as the record behind docs/decisions.md ("A Hopper TMA
// transpose"). CUDA C++, because the sweep had to be quick: a Rust version needs an sm_90 PTX
// module beside the sm_70 one and tensor maps from the driver.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o tma tma_transpose.cu -lcuda
//   ./tma        # every variant at 8192² and 16384² f32, twice, checked bit for bit
//   ./tma h      # how the copy reference depends on what runs before it
//
// Variants: tiles of R rows × 32W f32 columns loaded by `cp.async.bulk.tensor` (128-byte
// swizzle) into S shared stages on an mbarrier; each thread gathers a 4×4 micro-tile with four
// conflict-free LDS.128 and writes four STG.128 (or, "tmastore", stages the output tile in
// shared memory and stores it with a bulk tensor copy). "persistent": one block per resident
// slot, looping over tiles with S loads in flight; "one-tile": one block per tile.
//
// Caution when reading its output: each kernel run is timed from an idle stream (its time
// includes the launch latency, ~4.4 µs) while the copy queued right behind it is not; compare
// the kernels' GB/s with each other and with `bankwise bench` figures taken the same way, not
// the "%" column with the library's.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t err_ = (x);                                                               \
        if (err_ != cudaSuccess) {                                                          \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));               \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

__device__ __forceinline__ uint32_t saddr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

// Tile: R rows x 32W columns, loaded as W boxes of R rows x 32 f32 (128 B rows, 128B swizzle).
// Thread: a 4x4 micro-tile, 4 LDS.128 + 4 STG.128.
template <int R, int W, int S, bool COL, bool STORE_TMA>
__global__ void __launch_bounds__(2 * R * W) tma_transpose(const __grid_constant__ CUtensorMap in_map,
                                                            const __grid_constant__ CUtensorMap out_map, float* out,
                                                            int rows, int cols) {
    extern __shared__ unsigned char smem_raw[];
    __shared__ uint64_t bar[S];
    uintptr_t base = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023);
    float* tiles = reinterpret_cast<float*>(base);
    float* otile = tiles + S * R * 32 * W;  // STORE_TMA: 32W rows x R cols, as R/32 boxes of 32W x 32
    const int t = threadIdx.x;
    const int tiles_down = rows / R, tiles_across = cols / (32 * W);
    const long ntiles = (long)tiles_down * tiles_across;
    auto coords = [&](long i, int& r0, int& c0) {
        if (COL) {
            r0 = (int)(i % tiles_down) * R;
            c0 = (int)(i / tiles_down) * 32 * W;
        } else {
            r0 = (int)(i / tiles_across) * R;
            c0 = (int)(i % tiles_across) * 32 * W;
        }
    };
    if (t == 0) {
        for (int s = 0; s < S; s++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&bar[s])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    auto issue = [&](long i, int s) {
        int r0, c0;
        coords(i, r0, c0);
        uint32_t b = saddr(&bar[s]);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(R * 128 * W) : "memory");
        for (int w = 0; w < W; w++)
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                "[%4];" ::"r"(saddr(tiles + (s * W + w) * R * 32)),
                "l"(&in_map), "r"(c0 + 32 * w), "r"(r0), "r"(b)
                : "memory");
    };
    const long first = blockIdx.x;
    if (t == 0)
        for (int s = 0; s < S; s++) {
            long i = first + (long)s * gridDim.x;
            if (i < ntiles) issue(i, s);
        }
    const int w = t >> 5, l = t & 31;
    const int g = 8 * (w / (2 * W)) + (l >> 2);
    const int j = 4 * (w % (2 * W)) + (l & 3);
    const int box = j >> 3, jj = j & 7;
    int k = 0;
    uint32_t phase = 0;
    for (long i = first; i < ntiles; i += gridDim.x) {
        uint32_t b = saddr(&bar[k]);
        uint32_t done = 0;
        do {
            asm volatile(
                "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                : "=r"(done)
                : "r"(b), "r"(phase)
                : "memory");
        } while (!done);
        int r0, c0;
        coords(i, r0, c0);
        const float4* tile = reinterpret_cast<const float4*>(tiles + (k * W + box) * R * 32);
        float4 v[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            int row = 4 * g + q;
            v[q] = tile[row * 8 + (jj ^ (row & 7))];
        }
        float4 o[4] = {make_float4(v[0].x, v[1].x, v[2].x, v[3].x), make_float4(v[0].y, v[1].y, v[2].y, v[3].y),
                       make_float4(v[0].z, v[1].z, v[2].z, v[3].z), make_float4(v[0].w, v[1].w, v[2].w, v[3].w)};
        if (!STORE_TMA) {
#pragma unroll
            for (int m = 0; m < 4; m++)
                *reinterpret_cast<float4*>(out + (long)(c0 + 4 * j + m) * rows + r0 + 4 * g) = o[m];
            __syncthreads();
        } else {
            // Output tile: 32W rows (input columns) x R columns, R/32 boxes of 32W rows x 32 cols (128 B rows, swizzled).
            // Wait until the previous store has finished reading otile.
            if (t == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            __syncthreads();
            int ob = g >> 3;  // output box: columns 32*ob .. (4g within box: chunk g & 7)
            float4* ot = reinterpret_cast<float4*>(otile + ob * 32 * W * 32);
#pragma unroll
            for (int m = 0; m < 4; m++) {
                int orow = 4 * j + m;
                ot[orow * 8 + ((g & 7) ^ (orow & 7))] = o[m];
            }
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            __syncthreads();
            if (t == 0) {
                for (int q = 0; q < R / 32; q++)
                    asm volatile(
                        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&out_map),
                        "r"(r0 + 32 * q), "r"(c0), "r"(saddr(otile + q * 32 * W * 32))
                        : "memory");
                asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            }
        }
        if (t == 0 && i + (long)S * gridDim.x < ntiles) issue(i + (long)S * gridDim.x, k);
        if (++k == S) {
            k = 0;
            phase ^= 1;
        }
    }
    if (STORE_TMA && t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

typedef CUresult (*EncodeFn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                             const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static EncodeFn encode;

static CUtensorMap make_map(float* p, int rows, int cols, int box_rows) {
    CUtensorMap m;
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)cols * 4};
    cuuint32_t box[2] = {32, (cuuint32_t)box_rows};
    cuuint32_t es[2] = {1, 1};
    CUresult r = encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, p, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        printf("encode failed %d\n", (int)r);
        exit(1);
    }
    return m;
}

struct Result {
    const char* name;
    int rows, cols;
    double gbs, copy_gbs, pct;
    bool ok;
};
static std::vector<Result> results;

static int sms;

template <int R, int W, int S, bool COL, bool ST>
static void run(const char* name, int rows, int cols, bool persistent, bool check) {
    size_t n = (size_t)rows * cols, bytes = n * 4;
    float *in, *out, *cp;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMalloc(&cp, bytes));
    std::vector<float> h(n), o(n);
    std::mt19937 rng(rows * 31 + cols);
    for (auto& x : h) x = (float)(rng() % 1000003) * 0.5f - 7.0f;
    CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
    CUtensorMap im = make_map(in, rows, cols, R), om = make_map(out, cols, rows, 32 * W);
    auto k = tma_transpose<R, W, S, COL, ST>;
    int smem = S * R * 128 * W + (ST ? 32 * W * R * 4 : 0) + 1024;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 2 * R * W, smem));
    long ntiles = (long)(rows / R) * (cols / (32 * W));
    int grid = persistent ? (int)std::min<long>(ntiles, (long)sms * per_sm) : (int)ntiles;
    CK(cudaMemset(out, 0xff, bytes));
    k<<<grid, 2 * R * W, smem>>>(im, om, out, rows, cols);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(o.data(), out, bytes, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t r = 0; check && r < (size_t)rows && ok; r++)
        for (size_t c = 0; c < (size_t)cols; c++)
            if (memcmp(&o[c * rows + r], &h[r * cols + c], 4)) {
                ok = false;
                printf("%s mismatch at %zu,%zu\n", name, r, c);
                break;
            }
    cudaEvent_t e[4];
    for (auto& x : e) CK(cudaEventCreate(&x));
    std::vector<float> tk, tc;
    for (int it = 0; it < 60; it++) {
        CK(cudaEventRecord(e[0]));
        k<<<grid, 2 * R * W, smem>>>(im, om, out, rows, cols);
        CK(cudaEventRecord(e[1]));
        CK(cudaMemcpyAsync(cp, in, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e[2]));
        CK(cudaEventSynchronize(e[2]));
        float a, b;
        CK(cudaEventElapsedTime(&a, e[0], e[1]));
        CK(cudaEventElapsedTime(&b, e[1], e[2]));
        if (it >= 10) {
            tk.push_back(a);
            tc.push_back(b);
        }
    }
    CK(cudaGetLastError());
    std::sort(tk.begin(), tk.end());
    std::sort(tc.begin(), tc.end());
    double mk = tk[tk.size() / 2], mc = tc[tc.size() / 2];
    double gbs = 2.0 * bytes / (mk * 1e6), cgbs = 2.0 * bytes / (mc * 1e6);
    printf("%-34s %5dx%-5d grid %6d (%d/SM) %7.1f GB/s copy %7.1f  %5.1f%% %s\n", name, rows, cols, grid, per_sm, gbs,
           cgbs, 100 * mc / mk, ok ? "ok" : "WRONG");
    results.push_back({name, rows, cols, gbs, cgbs, 100 * mc / mk, ok});
    for (auto& x : e) CK(cudaEventDestroy(x));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cp));
}

// Does the copy reference depend on where it writes? kernel(in->out) interleaved with copy(in->X).
static void harness(int n) {
    size_t bytes = (size_t)n * n * 4;
    float *a, *b, *c;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    std::vector<float> h((size_t)n * n);
    std::mt19937 rng(5);
    for (auto& x : h) x = (float)(rng() % 1000003) * 0.5f - 7.0f;
    CK(cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, h.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c, h.data(), bytes, cudaMemcpyHostToDevice));
    CUtensorMap im = make_map(a, n, n, 64), om = make_map(b, n, n, 64);
    auto k = tma_transpose<64, 2, 1, true, false>;
    int smem = 64 * 128 * 2 + 1024;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int grid = (n / 64) * (n / 64);
    cudaEvent_t e[3];
    for (auto& x : e) CK(cudaEventCreate(&x));
    // mode: 0 copy a->c alone, 1 copy a->b alone, 2 kernel a->b + copy a->c, 3 kernel a->b + copy a->b,
    // 4 kernel a->b + copy c->a? no: copy b->c (reads the kernel's output)
    const char* names[] = {"copy a->c alone", "copy a->b alone", "kernel a->b | copy a->c", "kernel a->b | copy a->b",
                           "kernel a->b | copy c->a"};
    for (int round = 0; round < 2; round++)
        for (int mode = 0; mode < 5; mode++) {
            std::vector<float> tk, tc;
            for (int it = 0; it < 60; it++) {
                CK(cudaEventRecord(e[0]));
                if (mode >= 2) k<<<grid, 256, smem>>>(im, om, b, n, n);
                CK(cudaEventRecord(e[1]));
                float* src = mode == 4 ? c : a;
                float* dst = (mode == 0 || mode == 2) ? c : (mode == 4 ? a : b);
                CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
                CK(cudaEventRecord(e[2]));
                CK(cudaEventSynchronize(e[2]));
                float x, y;
                CK(cudaEventElapsedTime(&x, e[0], e[1]));
                CK(cudaEventElapsedTime(&y, e[1], e[2]));
                if (it >= 10) {
                    tk.push_back(x);
                    tc.push_back(y);
                }
            }
            CK(cudaGetLastError());
            std::sort(tk.begin(), tk.end());
            std::sort(tc.begin(), tc.end());
            double mk = tk[25], mc = tc[25];
            printf("harness %5d %-26s kernel %7.1f GB/s copy %7.1f GB/s  ratio %5.1f%%\n", n, names[mode],
                   mode >= 2 ? 2.0 * bytes / (mk * 1e6) : 0.0, 2.0 * bytes / (mc * 1e6), mode >= 2 ? 100 * mc / mk : 0.0);
        }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
}

int main(int argc, char** argv) {
    CK(cudaFree(0));
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void**)&encode, cudaEnableDefault, &q));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (argc > 1) {
        harness(8192);
        harness(16384);
        return 0;
    }
    for (int round = 0; round < 2; round++) {
        for (int n : {8192, 16384}) {
            run<128, 1, 4, true, false>("R128 W1 S4 col persistent", n, n, true, round == 0);
            run<64, 1, 4, true, false>("R64 W1 S4 col persistent", n, n, true, round == 0);
            run<64, 2, 3, true, false>("R64 W2 S3 col persistent", n, n, true, round == 0);
            run<64, 2, 2, true, false>("R64 W2 S2 col persistent", n, n, true, round == 0);
            run<32, 2, 4, true, false>("R32 W2 S4 col persistent", n, n, true, round == 0);
            run<64, 2, 1, true, false>("R64 W2 S1 col one-tile", n, n, false, round == 0);
            run<128, 1, 1, true, false>("R128 W1 S1 col one-tile", n, n, false, round == 0);
            run<64, 2, 3, false, false>("R64 W2 S3 row persistent", n, n, true, round == 0);
            run<64, 2, 3, true, true>("R64 W2 S3 col persistent tmastore", n, n, true, round == 0);
            run<64, 1, 4, true, true>("R64 W1 S4 col persistent tmastore", n, n, true, round == 0);
            run<64, 2, 1, true, true>("R64 W2 S1 col one-tile tmastore", n, n, false, round == 0);
        }
    }
    printf("\n== summary ==\n");
    for (auto& r : results)
        printf("%-34s %5dx%-5d %7.1f %7.1f %5.1f%% %s\n", r.name, r.rows, r.cols, r.gbs, r.copy_gbs, r.pct,
               r.ok ? "ok" : "WRONG");
}
