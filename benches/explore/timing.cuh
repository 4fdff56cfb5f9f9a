// What the explorations share: error checks, and timing as `bankwise bench` times (a hold on
// the stream, then runs back to back with an event between each; the median of `runs`, in
// microseconds, after `warm` untimed ones).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); exit(1); } } while (0)

__global__ void spin(uint64_t ns) { uint64_t t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0)); for (;;) { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); if (t - t0 > ns) break; } }

static cudaStream_t st;

template <class F> double timeit(F f, int runs = 96, int warm = 30) {
  for (int i = 0; i < warm; i++) f(i);
  CK(cudaStreamSynchronize(st));
  std::vector<cudaEvent_t> ev(17);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  std::vector<float> t;
  int i = 0;
  while ((int)t.size() < runs) {
    spin<<<1, 1, 0, st>>>(2000000);
    CK(cudaEventRecord(ev[0], st));
    for (int k = 0; k < 16; k++) { f(i++); CK(cudaEventRecord(ev[k + 1], st)); }
    CK(cudaEventSynchronize(ev[16]));
    for (int k = 0; k < 16; k++) { float ms; CK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1])); t.push_back(ms); }
  }
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2] * 1e3;
}
