#include <cuda_runtime.h>
#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <atomic>
static std::atomic<long> g_count[64]; static std::atomic<long> g_ns[64];
static const char* g_names[64];
static bool g_on() { static int on = -1; if (on < 0) on = 0; return true; }
extern "C" void shim_reset() { for (int i = 0; i < 64; ++i) { g_count[i] = 0; g_ns[i] = 0; } }
extern "C" void shim_dump(long calls) { for (int i = 0; i < 64; ++i) if (g_names[i] && g_count[i]) std::printf("   %-28s %8.2f per call  %8.2f us per call\n", g_names[i], double(g_count[i]) / calls, g_ns[i] / 1e3 / calls); }
extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t a) {
  using F = cudaError_t (*)(cudaStream_t a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaStreamSynchronize"); g_names[0] = "cudaStreamSynchronize";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[0] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[0]++;
  return r; }
extern "C" cudaError_t cudaDeviceSynchronize(void) {
  using F = cudaError_t (*)();
  static F real = (F)dlsym(RTLD_NEXT, "cudaDeviceSynchronize"); g_names[1] = "cudaDeviceSynchronize";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real();
  g_ns[1] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[1]++;
  return r; }
extern "C" cudaError_t cudaEventRecord(cudaEvent_t a, cudaStream_t b) {
  using F = cudaError_t (*)(cudaEvent_t a, cudaStream_t b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaEventRecord"); g_names[2] = "cudaEventRecord";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[2] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[2]++;
  return r; }
extern "C" cudaError_t cudaEventRecordWithFlags(cudaEvent_t a, cudaStream_t b, unsigned int c) {
  using F = cudaError_t (*)(cudaEvent_t a, cudaStream_t b, unsigned int c);
  static F real = (F)dlsym(RTLD_NEXT, "cudaEventRecordWithFlags"); g_names[3] = "cudaEventRecordWithFlags";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c);
  g_ns[3] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[3]++;
  return r; }
extern "C" cudaError_t cudaEventSynchronize(cudaEvent_t a) {
  using F = cudaError_t (*)(cudaEvent_t a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaEventSynchronize"); g_names[4] = "cudaEventSynchronize";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[4] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[4]++;
  return r; }
extern "C" cudaError_t cudaEventQuery(cudaEvent_t a) {
  using F = cudaError_t (*)(cudaEvent_t a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaEventQuery"); g_names[5] = "cudaEventQuery";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[5] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[5]++;
  return r; }
extern "C" cudaError_t cudaStreamWaitEvent(cudaStream_t a, cudaEvent_t b, unsigned int c) {
  using F = cudaError_t (*)(cudaStream_t a, cudaEvent_t b, unsigned int c);
  static F real = (F)dlsym(RTLD_NEXT, "cudaStreamWaitEvent"); g_names[6] = "cudaStreamWaitEvent";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c);
  g_ns[6] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[6]++;
  return r; }
extern "C" cudaError_t cudaMemcpyAsync(void* a, const void* b, size_t c, cudaMemcpyKind d, cudaStream_t e) {
  using F = cudaError_t (*)(void* a, const void* b, size_t c, cudaMemcpyKind d, cudaStream_t e);
  static F real = (F)dlsym(RTLD_NEXT, "cudaMemcpyAsync"); g_names[7] = "cudaMemcpyAsync";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c,d,e);
  g_ns[7] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[7]++;
  return r; }
extern "C" cudaError_t cudaMemcpy(void* a, const void* b, size_t c, cudaMemcpyKind d) {
  using F = cudaError_t (*)(void* a, const void* b, size_t c, cudaMemcpyKind d);
  static F real = (F)dlsym(RTLD_NEXT, "cudaMemcpy"); g_names[8] = "cudaMemcpy";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c,d);
  g_ns[8] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[8]++;
  return r; }
extern "C" cudaError_t cudaMemsetAsync(void* a, int b, size_t c, cudaStream_t d) {
  using F = cudaError_t (*)(void* a, int b, size_t c, cudaStream_t d);
  static F real = (F)dlsym(RTLD_NEXT, "cudaMemsetAsync"); g_names[9] = "cudaMemsetAsync";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c,d);
  g_ns[9] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[9]++;
  return r; }
extern "C" cudaError_t cudaMallocAsync(void** a, size_t b, cudaStream_t c) {
  using F = cudaError_t (*)(void** a, size_t b, cudaStream_t c);
  static F real = (F)dlsym(RTLD_NEXT, "cudaMallocAsync"); g_names[10] = "cudaMallocAsync";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c);
  g_ns[10] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[10]++;
  return r; }
extern "C" cudaError_t cudaMallocFromPoolAsync(void** a, size_t b, cudaMemPool_t p, cudaStream_t c) {
  using F = cudaError_t (*)(void** a, size_t b, cudaMemPool_t p, cudaStream_t c);
  static F real = (F)dlsym(RTLD_NEXT, "cudaMallocFromPoolAsync"); g_names[11] = "cudaMallocFromPoolAsync";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,p,c);
  g_ns[11] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[11]++;
  return r; }
extern "C" cudaError_t cudaFreeAsync(void* a, cudaStream_t b) {
  using F = cudaError_t (*)(void* a, cudaStream_t b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaFreeAsync"); g_names[12] = "cudaFreeAsync";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[12] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[12]++;
  return r; }
extern "C" cudaError_t cudaLaunchKernel(const void* a, dim3 b, dim3 c, void** d, size_t e, cudaStream_t f) {
  using F = cudaError_t (*)(const void* a, dim3 b, dim3 c, void** d, size_t e, cudaStream_t f);
  static F real = (F)dlsym(RTLD_NEXT, "cudaLaunchKernel"); g_names[13] = "cudaLaunchKernel";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c,d,e,f);
  g_ns[13] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[13]++;
  return r; }
extern "C" cudaError_t cudaSetDevice(int a) {
  using F = cudaError_t (*)(int a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaSetDevice"); g_names[14] = "cudaSetDevice";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[14] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[14]++;
  return r; }
extern "C" cudaError_t cudaGetDevice(int* a) {
  using F = cudaError_t (*)(int* a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaGetDevice"); g_names[15] = "cudaGetDevice";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[15] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[15]++;
  return r; }
extern "C" cudaError_t cudaEventCreateWithFlags(cudaEvent_t* a, unsigned int b) {
  using F = cudaError_t (*)(cudaEvent_t* a, unsigned int b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaEventCreateWithFlags"); g_names[16] = "cudaEventCreateWithFlags";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[16] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[16]++;
  return r; }
extern "C" cudaError_t cudaEventCreate(cudaEvent_t* a) {
  using F = cudaError_t (*)(cudaEvent_t* a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaEventCreate"); g_names[17] = "cudaEventCreate";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[17] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[17]++;
  return r; }
extern "C" cudaError_t cudaEventDestroy(cudaEvent_t a) {
  using F = cudaError_t (*)(cudaEvent_t a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaEventDestroy"); g_names[18] = "cudaEventDestroy";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[18] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[18]++;
  return r; }
extern "C" cudaError_t cudaStreamQuery(cudaStream_t a) {
  using F = cudaError_t (*)(cudaStream_t a);
  static F real = (F)dlsym(RTLD_NEXT, "cudaStreamQuery"); g_names[19] = "cudaStreamQuery";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a);
  g_ns[19] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[19]++;
  return r; }
extern "C" cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* b) {
  using F = cudaError_t (*)(cudaPointerAttributes* a, const void* b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaPointerGetAttributes"); g_names[20] = "cudaPointerGetAttributes";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[20] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[20]++;
  return r; }
extern "C" cudaError_t cudaGetLastError(void) {
  using F = cudaError_t (*)();
  static F real = (F)dlsym(RTLD_NEXT, "cudaGetLastError"); g_names[21] = "cudaGetLastError";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real();
  g_ns[21] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[21]++;
  return r; }
extern "C" cudaError_t cudaPeekAtLastError(void) {
  using F = cudaError_t (*)();
  static F real = (F)dlsym(RTLD_NEXT, "cudaPeekAtLastError"); g_names[22] = "cudaPeekAtLastError";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real();
  g_ns[22] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[22]++;
  return r; }
extern "C" cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* b) {
  using F = cudaError_t (*)(cudaFuncAttributes* a, const void* b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaFuncGetAttributes"); g_names[23] = "cudaFuncGetAttributes";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[23] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[23]++;
  return r; }
extern "C" cudaError_t cudaDeviceGetAttribute(int* a, cudaDeviceAttr b, int c) {
  using F = cudaError_t (*)(int* a, cudaDeviceAttr b, int c);
  static F real = (F)dlsym(RTLD_NEXT, "cudaDeviceGetAttribute"); g_names[24] = "cudaDeviceGetAttribute";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c);
  g_ns[24] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[24]++;
  return r; }
extern "C" cudaError_t cudaStreamGetFlags(cudaStream_t a, unsigned int* b) {
  using F = cudaError_t (*)(cudaStream_t a, unsigned int* b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaStreamGetFlags"); g_names[25] = "cudaStreamGetFlags";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[25] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[25]++;
  return r; }
extern "C" cudaError_t cudaStreamGetDevice(cudaStream_t a, int* b) {
  using F = cudaError_t (*)(cudaStream_t a, int* b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaStreamGetDevice"); g_names[26] = "cudaStreamGetDevice";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[26] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[26]++;
  return r; }
extern "C" cudaError_t cudaHostRegister(void* a, size_t b, unsigned int c) {
  using F = cudaError_t (*)(void* a, size_t b, unsigned int c);
  static F real = (F)dlsym(RTLD_NEXT, "cudaHostRegister"); g_names[27] = "cudaHostRegister";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b,c);
  g_ns[27] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[27]++;
  return r; }
extern "C" cudaError_t cudaMallocHost(void** a, size_t b) {
  using F = cudaError_t (*)(void** a, size_t b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaMallocHost"); g_names[28] = "cudaMallocHost";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[28] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[28]++;
  return r; }
extern "C" cudaError_t cudaStreamCreateWithFlags(cudaStream_t* a, unsigned int b) {
  using F = cudaError_t (*)(cudaStream_t* a, unsigned int b);
  static F real = (F)dlsym(RTLD_NEXT, "cudaStreamCreateWithFlags"); g_names[29] = "cudaStreamCreateWithFlags";
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t r = real(a,b);
  g_ns[29] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(); g_count[29]++;
  return r; }
