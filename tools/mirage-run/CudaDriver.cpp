//===- CudaDriver.cpp - Binding the CUDA driver with dlopen ---------------===//

#include "CudaDriver.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace mirage_run {

namespace {
/// Binds `fn` to symbol `name`; false with `err` set when it is missing.
template <typename Fn>
bool bind(void *lib, Fn &fn, const char *name, std::string &err) {
  dlerror();
  void *sym = dlsym(lib, name);
  if (!sym) {
    const char *why = dlerror();
    err = std::string("the CUDA driver lacks ") + name + (why ? std::string(": ") + why : "");
    return false;
  }
  fn = reinterpret_cast<Fn>(sym);
  return true;
}
} // namespace

bool Driver::load(std::string &err) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace; we
  // only ever reach them through the pointers below.
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    err = std::string("no CUDA driver (") + (why ? why : "dlopen libcuda.so.1 failed") + ")";
    return false;
  }
  // The library stays loaded for the life of the process, on purpose.
  bool ok = bind(lib, cuInit, "cuInit", err) &&
            bind(lib, cuDeviceGetCount, "cuDeviceGetCount", err) &&
            bind(lib, cuDeviceGet, "cuDeviceGet", err) &&
            bind(lib, cuDeviceGetName, "cuDeviceGetName", err) &&
            bind(lib, cuDeviceGetAttribute, "cuDeviceGetAttribute", err) &&
            bind(lib, cuCtxCreate, "cuCtxCreate_v2", err) &&
            bind(lib, cuCtxDestroy, "cuCtxDestroy_v2", err) &&
            bind(lib, cuCtxSynchronize, "cuCtxSynchronize", err) &&
            bind(lib, cuModuleLoadDataEx, "cuModuleLoadDataEx", err) &&
            bind(lib, cuModuleGetFunction, "cuModuleGetFunction", err) &&
            bind(lib, cuFuncSetAttribute, "cuFuncSetAttribute", err) &&
            bind(lib, cuLaunchKernel, "cuLaunchKernel", err) &&
            bind(lib, cuMemAlloc, "cuMemAlloc_v2", err) &&
            bind(lib, cuMemFree, "cuMemFree_v2", err) &&
            bind(lib, cuMemcpyHtoD, "cuMemcpyHtoD_v2", err) &&
            bind(lib, cuMemcpyDtoH, "cuMemcpyDtoH_v2", err) &&
            bind(lib, cuMemcpyDtoD, "cuMemcpyDtoD_v2", err) &&
            bind(lib, cuMemsetD8, "cuMemsetD8_v2", err) &&
            bind(lib, cuEventCreate, "cuEventCreate", err) &&
            bind(lib, cuEventDestroy, "cuEventDestroy_v2", err) &&
            bind(lib, cuEventRecord, "cuEventRecord", err) &&
            bind(lib, cuEventSynchronize, "cuEventSynchronize", err) &&
            bind(lib, cuEventElapsedTime, "cuEventElapsedTime", err) &&
            bind(lib, cuGetErrorString, "cuGetErrorString", err);
  if (!ok)
    return false;
  std::string ignored; // only used for nicer messages
  bind(lib, cuGetErrorName, "cuGetErrorName", ignored);
  // Without it, kernels that wait on their predecessor are launched plainly
  // (the wait is then a no-op and the stream orders them as usual).
  bind(lib, cuLaunchKernelEx, "cuLaunchKernelEx", ignored);
  return true;
}

std::string Driver::describe(cu::CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &name) != cu::CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(r, &text) != cu::CUDA_SUCCESS)
    text = nullptr;
  std::string s = name ? name : "CUDA error";
  s += " (" + std::to_string(r) + ")";
  s += ": ";
  s += text ? text : "unknown error";
  return s;
}

void Driver::check(cu::CUresult r, const char *call,
                   const std::string &subject) const {
  if (r == cu::CUDA_SUCCESS)
    return;
  std::fprintf(stderr, "mirage-run: %s%s%s%s failed: %s\n", call,
               subject.empty() ? "" : " (", subject.c_str(),
               subject.empty() ? "" : ")", describe(r).c_str());
  std::exit(kExitCudaError);
}

} // namespace mirage_run
