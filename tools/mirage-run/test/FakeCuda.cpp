//===- FakeCuda.cpp - A host-only stand-in for libcuda.so.1 ---------------===//
//
// Built as `libcuda.so.1` in a directory of its own, and put in front of the
// real driver with LD_LIBRARY_PATH by the lit tests in
// test/Tools/mirage-run/, so that mirage-run's whole run path (input fill,
// launches, expected and reference checks, timing, --json, driver error
// reporting) is tested on machines without a GPU. It is not a GPU model:
// device memory is host memory, and it "runs" only the two kernels of
// test/Tools/mirage-run/Inputs/tiny.ptx, by name.
//
// Environment knobs for the tests:
//   FAKE_CUDA_FAIL=cuXxx    that entry point returns CUDA_ERROR_INVALID_VALUE
//   FAKE_CUDA_DEVICES=0     no devices
//   FAKE_CUDA_CORRUPT=1     tiny_add writes one wrong element
//   FAKE_CUDA_JIT_ERROR=1   cuModuleLoadDataEx fails with a JIT log
//
//===----------------------------------------------------------------------===//

#include "../CudaDriver.h"
#include "../DType.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <string>

using namespace mirage_run;

namespace {
using CUresult = int;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2,
                   kNotInitialized = 3, kInvalidPtx = 218, kNotFound = 500;
// Large enough for the L2 flush buffer (64 MiB), small enough that the 1 GiB
// copy-bandwidth buffers are refused and mirage-run halves them to 64 MiB.
constexpr size_t kMaxAlloc = size_t(64) << 20;

bool initialized = false;
std::map<uintptr_t, size_t> allocations;

struct Module { std::string ptx; };
struct Function { std::string name; };
struct Event { double ms = 0; };
// Like a driver, the fake owns loaded modules and their functions for the
// life of the process (mirage-run never unloads them; the real driver frees
// them with the context at exit), so a leak check sees no lost objects.
std::deque<Module> modules;
std::deque<Function> functions;

/// True when the tests asked entry point `name` to fail.
bool injected(const char *name) {
  const char *f = std::getenv("FAKE_CUDA_FAIL");
  return f && std::strcmp(f, name) == 0;
}

double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

/// The allocation holding [p, p+n), or false.
bool valid(uintptr_t p, size_t n) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin())
    return false;
  --it;
  return p >= it->first && p + n <= it->first + it->second;
}
} // namespace

#define ENTRY(name, ...)                                                       \
  extern "C" __attribute__((visibility("default"))) CUresult name(__VA_ARGS__)
#define PROLOGUE(name)                                                         \
  if (injected(#name))                                                         \
    return kInvalidValue;                                                      \
  if (!initialized)                                                            \
    return kNotInitialized;

ENTRY(cuInit, unsigned) {
  if (injected("cuInit"))
    return kInvalidValue;
  initialized = true;
  return kSuccess;
}
ENTRY(cuDeviceGetCount, int *n) {
  PROLOGUE(cuDeviceGetCount)
  const char *d = std::getenv("FAKE_CUDA_DEVICES");
  *n = d ? std::atoi(d) : 1;
  return kSuccess;
}
ENTRY(cuDeviceGet, cu::CUdevice *dev, int ordinal) {
  PROLOGUE(cuDeviceGet)
  *dev = ordinal;
  return kSuccess;
}
ENTRY(cuDeviceGetName, char *name, int len, int) {
  PROLOGUE(cuDeviceGetName)
  std::strncpy(name, "Fake CUDA device", size_t(len));
  return kSuccess;
}
ENTRY(cuDeviceGetAttribute, int *v, int attr, int) {
  PROLOGUE(cuDeviceGetAttribute)
  switch (attr) {
  case 16: *v = 132; break;      // multiprocessors
  case 38: *v = 8 << 20; break;  // L2 bytes
  case 75: *v = 9; break;        // compute capability 9.0
  case 76: *v = 0; break;
  default: return kInvalidValue;
  }
  return kSuccess;
}
ENTRY(cuCtxCreate_v2, cu::CUcontext *ctx, unsigned, cu::CUdevice) {
  PROLOGUE(cuCtxCreate_v2)
  static int context;
  *ctx = reinterpret_cast<cu::CUcontext>(&context);
  return kSuccess;
}
ENTRY(cuCtxDestroy_v2, cu::CUcontext) {
  PROLOGUE(cuCtxDestroy_v2)
  return kSuccess;
}
ENTRY(cuCtxSynchronize) {
  PROLOGUE(cuCtxSynchronize)
  return kSuccess;
}
ENTRY(cuModuleLoadDataEx, cu::CUmodule *mod, const void *image, unsigned n, int *opts,
      void **values) {
  PROLOGUE(cuModuleLoadDataEx)
  if (std::getenv("FAKE_CUDA_JIT_ERROR")) {
    for (unsigned i = 0; i < n; ++i)
      if (opts[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
        std::strcpy(static_cast<char *>(values[i]), "ptxas fatal: fake JIT error");
    return kInvalidPtx;
  }
  modules.push_back(Module{static_cast<const char *>(image)});
  *mod = reinterpret_cast<cu::CUmodule>(&modules.back());
  return kSuccess;
}
ENTRY(cuModuleGetFunction, cu::CUfunction *f, cu::CUmodule mod,
      const char *name) {
  PROLOGUE(cuModuleGetFunction)
  if (reinterpret_cast<Module *>(mod)->ptx.find(std::string(".entry ") + name) ==
      std::string::npos)
    return kNotFound;
  functions.push_back(Function{name});
  *f = reinterpret_cast<cu::CUfunction>(&functions.back());
  return kSuccess;
}
ENTRY(cuFuncSetAttribute, cu::CUfunction, int attr, int value) {
  PROLOGUE(cuFuncSetAttribute)
  return attr == 8 && value <= 227 * 1024 ? kSuccess : kInvalidValue;
}
// Programmatic dependent launch: the fake runs kernels one after another
// anyway, so it checks the configuration, says on stderr what it was asked
// for when FAKE_CUDA_LOG_LAUNCHES is set, and launches as cuLaunchKernel.
// FAKE_CUDA_FAIL=cuLaunchKernelEx refuses it (mirage-run falls back).
extern "C" CUresult cuLaunchKernel(cu::CUfunction, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, unsigned,
                                   cu::CUstream, void **, void **);
ENTRY(cuLaunchKernelEx, const cu::CUlaunchConfig *config, cu::CUfunction f,
      void **params, void **extra) {
  PROLOGUE(cuLaunchKernelEx)
  if (!config || (config->numAttrs && !config->attrs))
    return kInvalidValue;
  bool programmatic = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cu::CUlaunchAttribute &a = config->attrs[i];
    if (a.id != cu::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
      return kInvalidValue;
    programmatic = a.value.programmaticStreamSerializationAllowed != 0;
  }
  if (std::getenv("FAKE_CUDA_LOG_LAUNCHES"))
    std::fprintf(stderr, "fake: cuLaunchKernelEx %s programmatic %d\n",
                 reinterpret_cast<Function *>(f)->name.c_str(), programmatic);
  return cuLaunchKernel(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                        config->blockDimX, config->blockDimY, config->blockDimZ,
                        config->sharedMemBytes, config->hStream, params, extra);
}
ENTRY(cuLaunchKernel, cu::CUfunction f, unsigned gx, unsigned gy, unsigned gz,
      unsigned bx, unsigned by, unsigned bz, unsigned smem, cu::CUstream stream,
      void **params, void **extra) {
  PROLOGUE(cuLaunchKernel)
  const std::string &name = reinterpret_cast<Function *>(f)->name;
  if (std::getenv("FAKE_CUDA_LOG_LAUNCHES"))
    std::fprintf(stderr, "fake: cuLaunchKernel %s\n", name.c_str());
  const size_t n = size_t(gx) * gy * gz * bx * by * bz;
  auto arg = [&](int i) {
    return reinterpret_cast<unsigned char *>(
        uintptr_t(*static_cast<unsigned long long *>(params[i])));
  };
  if (name == "tiny_add") {
    unsigned char *a = arg(0), *b = arg(1), *o = arg(2);
    for (size_t i = 0; i < n; ++i) {
      double v = decodeElement(a + 2 * i, DType::F16) + decodeElement(b + 2 * i, DType::F16);
      if (i == 7 && std::getenv("FAKE_CUDA_CORRUPT"))
        v += 0.5;
      encodeElement(v, DType::F16, o + 2 * i);
    }
    return kSuccess;
  }
  if (name == "tiny_copy") {
    std::memcpy(arg(1), arg(0), 2 * n);
    return kSuccess;
  }
  return kNotFound;
}
ENTRY(cuMemAlloc_v2, cu::CUdeviceptr *p, size_t n) {
  PROLOGUE(cuMemAlloc_v2)
  if (n > kMaxAlloc)
    return kOutOfMemory;
  void *mem = std::malloc(n);
  if (!mem)
    return kOutOfMemory;
  allocations[uintptr_t(mem)] = n;
  *p = uintptr_t(mem);
  return kSuccess;
}
ENTRY(cuMemFree_v2, unsigned long long p) {
  PROLOGUE(cuMemFree_v2)
  if (!allocations.erase(uintptr_t(p)))
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(uintptr_t(p)));
  return kSuccess;
}
ENTRY(cuMemcpyHtoD_v2, unsigned long long dst, const void *src, size_t n) {
  PROLOGUE(cuMemcpyHtoD_v2)
  if (!valid(dst, n))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, n);
  return kSuccess;
}
ENTRY(cuMemcpyDtoH_v2, void *dst, unsigned long long src, size_t n) {
  PROLOGUE(cuMemcpyDtoH_v2)
  if (!valid(src, n))
    return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<void *>(uintptr_t(src)), n);
  return kSuccess;
}
ENTRY(cuMemcpyDtoD_v2, unsigned long long dst, unsigned long long src, size_t n) {
  PROLOGUE(cuMemcpyDtoD_v2)
  if (!valid(dst, n) || !valid(src, n))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)),
              reinterpret_cast<void *>(uintptr_t(src)), n);
  return kSuccess;
}
ENTRY(cuMemsetD8_v2, unsigned long long p, unsigned char v, size_t n) {
  PROLOGUE(cuMemsetD8_v2)
  if (!valid(p, n))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(uintptr_t(p)), v, n);
  return kSuccess;
}
ENTRY(cuEventCreate, cu::CUevent *e, unsigned) {
  PROLOGUE(cuEventCreate)
  *e = reinterpret_cast<cu::CUevent>(new Event);
  return kSuccess;
}
ENTRY(cuEventDestroy_v2, cu::CUevent e) {
  PROLOGUE(cuEventDestroy_v2)
  delete reinterpret_cast<Event *>(e);
  return kSuccess;
}
ENTRY(cuEventRecord, cu::CUevent e, cu::CUstream) {
  PROLOGUE(cuEventRecord)
  reinterpret_cast<Event *>(e)->ms = nowMs();
  return kSuccess;
}
ENTRY(cuEventSynchronize, cu::CUevent) {
  PROLOGUE(cuEventSynchronize)
  return kSuccess;
}
ENTRY(cuEventElapsedTime, float *ms, cu::CUevent start, cu::CUevent stop) {
  PROLOGUE(cuEventElapsedTime)
  // Never zero, so bandwidths stay finite however fast the host is.
  double d = reinterpret_cast<Event *>(stop)->ms -
             reinterpret_cast<Event *>(start)->ms;
  *ms = float(d > 1e-4 ? d : 1e-4);
  return kSuccess;
}
ENTRY(cuGetErrorString, CUresult r, const char **s) {
  switch (r) {
  case kInvalidValue: *s = "invalid argument"; return kSuccess;
  case kOutOfMemory: *s = "out of memory"; return kSuccess;
  case kNotInitialized: *s = "initialization error"; return kSuccess;
  case kInvalidPtx: *s = "a PTX JIT compilation failed"; return kSuccess;
  case kNotFound: *s = "named symbol not found"; return kSuccess;
  }
  return kInvalidValue;
}
ENTRY(cuGetErrorName, CUresult r, const char **s) {
  switch (r) {
  case kInvalidValue: *s = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
  case kOutOfMemory: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return kSuccess;
  case kNotInitialized: *s = "CUDA_ERROR_NOT_INITIALIZED"; return kSuccess;
  case kInvalidPtx: *s = "CUDA_ERROR_INVALID_PTX"; return kSuccess;
  case kNotFound: *s = "CUDA_ERROR_NOT_FOUND"; return kSuccess;
  }
  return kInvalidValue;
}
