//===- Runner.h - Running and timing kernel graphs on the GPU ---*- C++ -*-===//
//
// Everything that touches the device: the context, one GraphRun per
// manifest (module, buffers, launches), the timing loop and the copy
// bandwidth it is compared with. Every driver call goes through
// Driver::check, which reports the call and exits on failure.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_RUNNER_H
#define MIRAGE_RUN_RUNNER_H

#include "CudaDriver.h"
#include "Manifest.h"

#include <functional>
#include <string>
#include <vector>

namespace mirage_run {

struct DeviceInfo {
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int l2Bytes = 0;
  cu::CUcontext context = nullptr; // current on this thread once opened
};

/// cuInit, device 0 and a context on it. Returns kExitOk, or kExitNoDriver
/// with `err` set when the driver has no usable device.
int openDevice(const Driver &d, DeviceInfo &info, std::string &err);

/// The device side of one manifest: its module, kernels and buffers.
class GraphRun {
public:
  GraphRun(const Driver &d, const Manifest &m) : d(d), m(m) {}
  ~GraphRun();
  GraphRun(const GraphRun &) = delete;
  GraphRun &operator=(const GraphRun &) = delete;

  /// JIT-compiles the PTX and looks up every kernel (printing the JIT's
  /// error log when that fails).
  void load();
  /// Allocates every buffer and zeroes temps and outputs. Inputs are filled
  /// with SeededValues under `seed`, or, with `inputsFrom`, are that run's
  /// input buffers (matched by input_index), so two graphs see the same data.
  void allocate(uint64_t seed, const GraphRun *inputsFrom = nullptr);
  /// Launches the kernels in order on the default stream; does not wait.
  void enqueue();
  /// Launches kernel `i`; `dependent`: as a programmatic dependent of the
  /// stream's previous work if the manifest says it waits on the previous
  /// kernel (enqueue), else plainly (--per-kernel times a kernel alone,
  /// after an L2 flush, on what the previous runs left in the buffers).
  void enqueueKernel(size_t i, bool dependent);
  /// Waits for the device and names this graph if a kernel failed.
  void synchronize();
  /// Output `outputIndex` copied back and decoded.
  std::vector<double> readOutput(size_t outputIndex) const;

  const Manifest &manifest() const { return m; }

private:
  const Driver &d;
  const Manifest &m;
  cu::CUmodule module = nullptr;
  std::vector<cu::CUfunction> functions;
  std::vector<cu::CUdeviceptr> ptrs;   // one per buffer
  std::vector<bool> owned;             // false for inputs borrowed from another run
  // cuLaunchKernel's parameter array for each kernel: pointers to the
  // device addresses in `argValues`, built once so launching allocates nothing.
  std::vector<std::vector<cu::CUdeviceptr>> argValues;
  std::vector<std::vector<void *>> argPtrs;
};

struct Timing {
  std::vector<double> us; // one per timed run, sorted
  double median() const;
  double min() const { return us.empty() ? 0 : us.front(); }
};

/// Times `enqueue` (the whole kernel sequence): `warmup` untimed runs, then
/// `iters` runs each between two events. With `flushL2`, a memset of a
/// buffer several times the L2 size precedes every run, outside its events,
/// so that inputs come from DRAM as they would in a model; it also keeps the
/// GPU busy while the host enqueues the next run, so launch latency stays out
/// of the measurement.
Timing timeRuns(const Driver &d, const DeviceInfo &info,
                const std::function<void()> &enqueue, int warmup, int iters,
                bool flushL2);

/// Device-to-device copy bandwidth in GB/s (1e9 bytes/s), counting read and
/// write: median of 10 timed cuMemcpyDtoD of a 1 GiB buffer (halved on
/// out-of-memory down to 64 MiB). `bytesCopied` is the buffer size used.
double measureCopyBandwidth(const Driver &d, uint64_t &bytesCopied);

} // namespace mirage_run

#endif // MIRAGE_RUN_RUNNER_H
