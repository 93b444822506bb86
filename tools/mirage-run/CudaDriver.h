//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// mirage-run must build where no CUDA is installed (the CPU machine that
// writes the bundle, the lit tests) and run where only the driver is (a GPU
// machine need not have the toolkit's headers). So it includes no cuda.h:
// the few types and constants it needs are declared here with the driver
// ABI's sizes and values, and the entry points are looked up with dlsym in
// libcuda.so.1. Where the ABI has versioned names (`_v2`) those are the ones
// used, as cuda.h's macros would have chosen them.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_CUDADRIVER_H
#define MIRAGE_RUN_CUDADRIVER_H

#include <cstddef>
#include <string>

namespace mirage_run {

/// Exit statuses of mirage-run (README.md lists them for scripts).
enum ExitCode {
  kExitOk = 0,
  kExitCheckFailed = 1, // an output differs from its expected result
  kExitBadInput = 2,    // bad command line, manifest, PTX or expected file
  kExitNoDriver = 3,    // no libcuda.so.1, cuInit failed or no device
  kExitCudaError = 4,   // any other driver call failed
  kExitOutOfMemory = 5, // a host allocation failed
};

namespace cu {
// Declared as in cuda.h; enums are ints in the C ABI.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;
struct CUstream_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUevent = CUevent_st *;
using CUstream = CUstream_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

// cuLaunchKernelEx's configuration (CUDA 12): the attribute value is a
// 64-byte union aligned for the pointers some of its members hold.
union CUlaunchAttributeValue {
  char pad[64];
  int programmaticStreamSerializationAllowed;
  void *alignment;
};
struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  CUlaunchAttributeValue value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
} // namespace cu

/// The driver entry points mirage-run calls, bound by load().
struct Driver {
  using R = cu::CUresult;
  R (*cuInit)(unsigned) = nullptr;
  R (*cuDeviceGetCount)(int *) = nullptr;
  R (*cuDeviceGet)(cu::CUdevice *, int) = nullptr;
  R (*cuDeviceGetName)(char *, int, cu::CUdevice) = nullptr;
  R (*cuDeviceGetAttribute)(int *, int, cu::CUdevice) = nullptr;
  R (*cuCtxCreate)(cu::CUcontext *, unsigned, cu::CUdevice) = nullptr;
  R (*cuCtxDestroy)(cu::CUcontext) = nullptr;
  R (*cuCtxSynchronize)() = nullptr;
  R (*cuModuleLoadDataEx)(cu::CUmodule *, const void *, unsigned, int *,
                          void **) = nullptr;
  R (*cuModuleGetFunction)(cu::CUfunction *, cu::CUmodule, const char *) = nullptr;
  R (*cuFuncSetAttribute)(cu::CUfunction, int, int) = nullptr;
  R (*cuLaunchKernel)(cu::CUfunction, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, unsigned, cu::CUstream, void **,
                      void **) = nullptr;
  /// Optional (CUDA 12 drivers): launches with attributes, here
  /// programmatic dependent launch. Null where the driver lacks it.
  R (*cuLaunchKernelEx)(const cu::CUlaunchConfig *, cu::CUfunction, void **,
                        void **) = nullptr;
  R (*cuMemAlloc)(cu::CUdeviceptr *, size_t) = nullptr;
  R (*cuMemFree)(cu::CUdeviceptr) = nullptr;
  R (*cuMemcpyHtoD)(cu::CUdeviceptr, const void *, size_t) = nullptr;
  R (*cuMemcpyDtoH)(void *, cu::CUdeviceptr, size_t) = nullptr;
  R (*cuMemcpyDtoD)(cu::CUdeviceptr, cu::CUdeviceptr, size_t) = nullptr;
  R (*cuMemsetD8)(cu::CUdeviceptr, unsigned char, size_t) = nullptr;
  R (*cuEventCreate)(cu::CUevent *, unsigned) = nullptr;
  R (*cuEventDestroy)(cu::CUevent) = nullptr;
  R (*cuEventRecord)(cu::CUevent, cu::CUstream) = nullptr;
  R (*cuEventSynchronize)(cu::CUevent) = nullptr;
  R (*cuEventElapsedTime)(float *, cu::CUevent, cu::CUevent) = nullptr;
  R (*cuGetErrorString)(cu::CUresult, const char **) = nullptr;
  R (*cuGetErrorName)(cu::CUresult, const char **) = nullptr; // optional

  /// Opens libcuda.so.1 and binds every entry point. On failure returns
  /// false with a one-line reason in `err`; the caller exits kExitNoDriver.
  bool load(std::string &err);

  /// "CUDA_ERROR_NAME (code): description" for a driver result.
  std::string describe(cu::CUresult r) const;

  /// When `r` is not CUDA_SUCCESS: prints "mirage-run: CALL[ (SUBJECT)]
  /// failed: ..." and exits with kExitCudaError. A failed call usually
  /// leaves the context unusable (a kernel fault poisons it), so there is
  /// nothing sensible to continue with; the driver frees the process's
  /// resources at exit.
  void check(cu::CUresult r, const char *call,
             const std::string &subject = std::string()) const;
};

} // namespace mirage_run

#endif // MIRAGE_RUN_CUDADRIVER_H
