//===- Runner.cpp - Running and timing kernel graphs on the GPU -----------===//

#include "Runner.h"

// In the source tree the header is under include/; in a GPU bundle
// (bench/gpu/make_bundle.sh) it sits next to this file.
#if __has_include("SeededValues.h")
#include "SeededValues.h"
#else
#include "Mirage/Support/SeededValues.h"
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace mirage_run {

int openDevice(const Driver &d, DeviceInfo &info, std::string &err) {
  cu::CUresult r = d.cuInit(0);
  if (r != cu::CUDA_SUCCESS) {
    err = "no CUDA device (cuInit failed: " + d.describe(r) + ")";
    return kExitNoDriver;
  }
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != cu::CUDA_SUCCESS || count == 0) {
    err = r != cu::CUDA_SUCCESS
              ? "no CUDA device (cuDeviceGetCount failed: " + d.describe(r) + ")"
              : std::string("no CUDA device (the driver reports none)");
    return kExitNoDriver;
  }
  // Device 0; CUDA_VISIBLE_DEVICES picks another one.
  cu::CUdevice dev;
  d.check(d.cuDeviceGet(&dev, 0), "cuDeviceGet");
  char name[256] = {0};
  d.check(d.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
  info.name = name;
  d.check(d.cuDeviceGetAttribute(&info.ccMajor,
                                 cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
          "cuDeviceGetAttribute");
  d.check(d.cuDeviceGetAttribute(&info.ccMinor,
                                 cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
          "cuDeviceGetAttribute");
  d.check(d.cuDeviceGetAttribute(&info.smCount,
                                 cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
          "cuDeviceGetAttribute");
  d.check(d.cuDeviceGetAttribute(&info.l2Bytes, cu::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev),
          "cuDeviceGetAttribute");
  d.check(d.cuCtxCreate(&info.context, 0, dev), "cuCtxCreate_v2");
  return kExitOk;
}

GraphRun::~GraphRun() {
  // Frees in a destructor cannot report anything useful; a failure here
  // means the context is already broken and exit will reclaim everything.
  for (size_t i = 0; i < ptrs.size(); ++i)
    if (owned[i] && ptrs[i])
      d.cuMemFree(ptrs[i]);
}

void GraphRun::load() {
  // Ask the JIT for its error log so that a PTX the codegen got wrong says
  // where, rather than only CUDA_ERROR_INVALID_PTX.
  std::vector<char> log(16384, 0);
  int options[] = {cu::CU_JIT_ERROR_LOG_BUFFER, cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(), reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
  cu::CUresult r = d.cuModuleLoadDataEx(&module, m.ptxText.c_str(), 2, options, values);
  if (r != cu::CUDA_SUCCESS && log[0])
    std::fprintf(stderr, "mirage-run: JIT log for %s:\n%s\n", m.ptxPath.c_str(),
                 log.data());
  d.check(r, "cuModuleLoadDataEx", m.ptxPath);

  for (const Kernel &k : m.kernels) {
    cu::CUfunction f;
    d.check(d.cuModuleGetFunction(&f, module, k.name.c_str()), "cuModuleGetFunction",
            k.name);
    // Beyond 48 KiB of shared memory in all (static + dynamic) a kernel
    // must opt in to its dynamic part.
    if (uint64_t(k.dynamicSharedBytes) + k.staticSharedBytes.value_or(0) >
        48 * 1024)
      d.check(d.cuFuncSetAttribute(f, cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   int(k.dynamicSharedBytes)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", k.name);
    functions.push_back(f);
  }
}

void GraphRun::allocate(uint64_t seed, const GraphRun *inputsFrom) {
  ptrs.assign(m.buffers.size(), 0);
  owned.assign(m.buffers.size(), true);
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    const Buffer &b = m.buffers[i];
    if (b.role == Role::Input && inputsFrom) {
      ptrs[i] = inputsFrom->ptrs[inputsFrom->m.inputs[b.ioIndex]];
      owned[i] = false;
      continue;
    }
    d.check(d.cuMemAlloc(&ptrs[i], b.bytes), "cuMemAlloc_v2", m.graph + " buffer " + b.name);
    if (b.role != Role::Input) {
      d.check(d.cuMemsetD8(ptrs[i], 0, b.bytes), "cuMemsetD8_v2", b.name);
      continue;
    }
    // Input `input_index` gets the values the host evaluator drew for
    // tensor number input_index, element by element in row-major order.
    std::vector<unsigned char> host(b.bytes);
    const size_t size = dtypeSize(b.dtype);
    for (uint64_t e = 0; e < b.elements; ++e)
      encodeElement(mirage::seededValue(seed, uint64_t(b.ioIndex), e), b.dtype,
                    host.data() + e * size);
    d.check(d.cuMemcpyHtoD(ptrs[i], host.data(), b.bytes), "cuMemcpyHtoD_v2", b.name);
  }

  argValues.clear();
  argPtrs.clear();
  for (const Kernel &k : m.kernels) {
    argValues.emplace_back();
    for (size_t a : k.args)
      argValues.back().push_back(ptrs[a]);
  }
  // Only now, with argValues no longer growing, take element addresses.
  for (auto &vals : argValues) {
    argPtrs.emplace_back();
    for (auto &v : vals)
      argPtrs.back().push_back(&v);
  }
}

/// Set once a driver refused a programmatic dependent launch.
static bool dependentLaunchRefused = false;

void GraphRun::enqueue() {
  for (size_t i = 0; i < m.kernels.size(); ++i)
    enqueueKernel(i, /*dependent=*/true);
}

void GraphRun::enqueueKernel(size_t i, bool dependent) {
  const Kernel &k = m.kernels[i];
  void **params = argPtrs[i].empty() ? nullptr : argPtrs[i].data();
  // A kernel that starts with griddepcontrol.wait may overlap its launch
  // with the kernel before it (programmatic dependent launch,
  // docs/Rationale/Lowering.md).
  if (dependent && k.waitsOnPrevious && d.cuLaunchKernelEx &&
      !dependentLaunchRefused) {
    cu::CUlaunchAttribute attr{};
    attr.id = cu::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    cu::CUlaunchConfig config{};
    config.gridDimX = k.grid[0];
    config.gridDimY = k.grid[1];
    config.gridDimZ = k.grid[2];
    config.blockDimX = k.block[0];
    config.blockDimY = k.block[1];
    config.blockDimZ = k.block[2];
    config.sharedMemBytes = k.dynamicSharedBytes;
    config.hStream = nullptr;
    config.attrs = &attr;
    config.numAttrs = 1;
    cu::CUresult r =
        d.cuLaunchKernelEx(&config, functions[i], params, nullptr);
    if (r == cu::CUDA_SUCCESS)
      return;
    // A driver or stream that refuses the attribute gets plain launches
    // from here on: the waits are then no-ops and the results the same.
    std::fprintf(stderr,
                 "mirage-run: note: cuLaunchKernelEx (%s) refused the "
                 "programmatic dependent launch (%s); kernels are launched "
                 "plainly\n",
                 k.name.c_str(), d.describe(r).c_str());
    dependentLaunchRefused = true;
  }
  cu::CUresult r = d.cuLaunchKernel(
      functions[i], k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1],
      k.block[2], k.dynamicSharedBytes, /*stream=*/nullptr, params,
      /*extra=*/nullptr);
  d.check(r, "cuLaunchKernel", k.name);
}

void GraphRun::synchronize() {
  d.check(d.cuCtxSynchronize(), "cuCtxSynchronize", "after the kernels of " + m.graph);
}

std::vector<double> GraphRun::readOutput(size_t outputIndex) const {
  const Buffer &b = m.buffers[m.outputs[outputIndex]];
  std::vector<unsigned char> host(b.bytes);
  d.check(d.cuMemcpyDtoH(host.data(), ptrs[m.outputs[outputIndex]], b.bytes),
          "cuMemcpyDtoH_v2", b.name);
  std::vector<double> out(b.elements);
  const size_t size = dtypeSize(b.dtype);
  for (uint64_t e = 0; e < b.elements; ++e)
    out[e] = decodeElement(host.data() + e * size, b.dtype);
  return out;
}

double Timing::median() const {
  if (us.empty())
    return 0;
  size_t n = us.size();
  return n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
}

namespace {
/// Device memory freed on scope exit (the error paths exit the process).
struct DeviceBuffer {
  const Driver &d;
  cu::CUdeviceptr ptr = 0;
  explicit DeviceBuffer(const Driver &d) : d(d) {}
  ~DeviceBuffer() {
    if (ptr)
      d.cuMemFree(ptr);
  }
};

/// A pair of events per timed run, all recorded back to back and read after
/// one final synchronisation, so the host never stalls the queue.
struct EventPairs {
  const Driver &d;
  std::vector<cu::CUevent> start, stop;
  EventPairs(const Driver &d, int n) : d(d), start(n), stop(n) {
    for (int i = 0; i < n; ++i) {
      d.check(d.cuEventCreate(&start[i], 0), "cuEventCreate");
      d.check(d.cuEventCreate(&stop[i], 0), "cuEventCreate");
    }
  }
  ~EventPairs() {
    for (size_t i = 0; i < start.size(); ++i) {
      d.cuEventDestroy(start[i]);
      d.cuEventDestroy(stop[i]);
    }
  }
  /// Elapsed microseconds of every pair, sorted.
  std::vector<double> sortedMicros() {
    d.check(d.cuEventSynchronize(stop.back()), "cuEventSynchronize");
    std::vector<double> us;
    for (size_t i = 0; i < start.size(); ++i) {
      float ms = 0;
      d.check(d.cuEventElapsedTime(&ms, start[i], stop[i]), "cuEventElapsedTime");
      us.push_back(double(ms) * 1000.0);
    }
    std::sort(us.begin(), us.end());
    return us;
  }
};
} // namespace

Timing timeRuns(const Driver &d, const DeviceInfo &info,
                const std::function<void()> &enqueue, int warmup, int iters,
                bool flushL2) {
  DeviceBuffer flush(d);
  // Four times the L2, at least 64 MiB: whatever the previous run left in
  // L2 is evicted by the time the next one starts.
  size_t flushBytes = std::max<size_t>(size_t(4) * size_t(info.l2Bytes), size_t(64) << 20);
  if (flushL2)
    d.check(d.cuMemAlloc(&flush.ptr, flushBytes), "cuMemAlloc_v2", "L2 flush buffer");
  auto flushCache = [&](int i) {
    if (flushL2)
      d.check(d.cuMemsetD8(flush.ptr, (unsigned char)i, flushBytes), "cuMemsetD8_v2",
              "L2 flush");
  };
  for (int i = 0; i < warmup; ++i) {
    flushCache(i);
    enqueue();
  }
  d.check(d.cuCtxSynchronize(), "cuCtxSynchronize", "after the warm-up runs");

  EventPairs events(d, iters);
  for (int i = 0; i < iters; ++i) {
    flushCache(i);
    d.check(d.cuEventRecord(events.start[i], nullptr), "cuEventRecord");
    enqueue();
    d.check(d.cuEventRecord(events.stop[i], nullptr), "cuEventRecord");
  }
  Timing t;
  t.us = events.sortedMicros();
  return t;
}

double measureCopyBandwidth(const Driver &d, uint64_t &bytesCopied) {
  DeviceBuffer src(d), dst(d);
  size_t bytes = size_t(1) << 30;
  while (true) {
    cu::CUresult r = d.cuMemAlloc(&src.ptr, bytes);
    if (r == cu::CUDA_SUCCESS) {
      r = d.cuMemAlloc(&dst.ptr, bytes);
      if (r != cu::CUDA_SUCCESS) {
        d.cuMemFree(src.ptr);
        src.ptr = 0;
      }
    }
    if (r == cu::CUDA_SUCCESS)
      break;
    if (r != cu::CUDA_ERROR_OUT_OF_MEMORY || bytes <= (size_t(64) << 20))
      d.check(r, "cuMemAlloc_v2", "copy bandwidth buffers");
    bytes /= 2;
  }
  bytesCopied = bytes;
  d.check(d.cuMemsetD8(src.ptr, 1, bytes), "cuMemsetD8_v2", "copy bandwidth source");
  // One untimed copy first: the first touch of fresh memory is slower.
  d.check(d.cuMemcpyDtoD(dst.ptr, src.ptr, bytes), "cuMemcpyDtoD_v2");
  const int n = 10;
  EventPairs events(d, n);
  for (int i = 0; i < n; ++i) {
    d.check(d.cuEventRecord(events.start[i], nullptr), "cuEventRecord");
    d.check(d.cuMemcpyDtoD(dst.ptr, src.ptr, bytes), "cuMemcpyDtoD_v2");
    d.check(d.cuEventRecord(events.stop[i], nullptr), "cuEventRecord");
  }
  std::vector<double> us = events.sortedMicros();
  double median = 0.5 * (us[n / 2 - 1] + us[n / 2]);
  // Each copy reads and writes `bytes`.
  return 2.0 * double(bytes) / (median * 1e-6) / 1e9;
}

} // namespace mirage_run
