//===- KernelToLoops.h - Kernel graphs to target-neutral loops --*- C++ -*-===//
//
// The first level of the code generator (docs/Rationale/Lowering.md): a
// kernel graph becomes one function per kernel (an scf.forall over the grid,
// phases over threads and warps, workgroup tiles) plus a host function that
// runs them in order. Both the CPU and the GPU paths start from this IR. The
// launch plan says, without IR, which buffers exist and which kernel takes
// which: the manifest for mirage-run and the CPU runner both read it.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_CONVERSION_KERNELTOLOOPS_H
#define MIRAGE_CONVERSION_KERNELTOLOOPS_H

#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"
#include "Mirage/Semantics/KernelExpansion.h"
#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/TailCombine.h"
#include "Mirage/Semantics/UGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace mirage {

/// Attributes of the copies of a pipelined tile in the loop IR (a
/// vector.transfer_write or memref.store into workgroup memory): the
/// pipeline's stages S, and the group the copy belongs to (0 .. S-2 before
/// the for-loop, S-1 in it). The GPU path makes each group one cp.async
/// commit group and waits with wait_group S-1 in the loop; the CPU path
/// ignores them (docs/Rationale/LaunchPlan.md, "Pipelines").
using kernel::kPrefetchStagesAttr;
using kernel::kPrefetchGroupAttr;
using kernel::kPrefetchWaitAttr;

/// Attribute of a loop-level kernel function: the blocks per SM its launch
/// plan promises (KernelPlan::minBlocksPerSM), which the GPU path passes to
/// ptxas as `.minnctapersm`, fixing each thread's register budget.
using kernel::kMinBlocksPerSMAttr;

/// Attributes of a loop-level kernel function that the graph-to-PTX step
/// sets from the graph's kernel order on a target with grid dependency
/// control: start with `griddepcontrol.wait` (every kernel but the first),
/// then let the next grid launch (every kernel but the last). Lowering.md,
/// "Programmatic dependent launch".
using kernel::kWaitsOnPreviousAttr;
using kernel::kLaunchesDependentsAttr;

/// A device buffer of a lowered graph.
struct LaunchBuffer {
  enum class Role : uint8_t { Input, Output, Temp };
  std::string name;
  Role role = Role::Temp;
  /// Position among the graph's inputs or outputs (-1 for temporaries).
  int32_t position = -1;
  Shape shape;
  ElemType type = ElemType::F32;
  /// A tail combine's counters (TailCombine.md): `i32`, one per group,
  /// zero before the first launch (each launch leaves them zero); `type`
  /// is unused.
  bool counters = false;
};

/// One kernel launch: function name, grid, threads, buffer indices, and the
/// launch plan (KernelPlan.h) the kernel was emitted by.
struct KernelLaunch {
  std::string name;
  GridDims grid{1, 1, 1};
  int64_t threads = kPlanThreadsPerBlock;
  llvm::SmallVector<int32_t, 4> args;
  KernelPlan plan;
  /// The kernel's block graph (for the cost model's estimate of the plan).
  UGraph block{Level::Block};
  /// The kernel the last block of each group runs after this one's body
  /// (TailCombine.md), its block graph and plan; `plan.sharedBytes` is
  /// then the two kernels' together.
  std::optional<TailCombine> tail;
  UGraph tailBlock{Level::Block};
  KernelPlan tailPlan;
  /// Per input of the tail's kernel: the output of this one it reads, or
  /// -1 (then it is one of `args`, after this kernel's outputs).
  llvm::SmallVector<int32_t> tailInputFromProducer;
};

struct LaunchPlan {
  std::string graph;
  std::string reference;
  std::vector<LaunchBuffer> buffers;
  std::vector<KernelLaunch> kernels;
};

struct LoopLoweringOptions {
  /// Block matmuls on f16/bf16 as warp-level native vector.contract.
  bool tensorCores = true;
  /// A kernel that qualifies runs in its predecessor's launch, by the last
  /// block of each group (TailCombine.md).
  bool tailCombine = true;
  /// The target the plans are made for (Target.h); empty: the graph's.
  std::string target;
  KernelExpansionOptions expansion;
};

/// The nested `builtin.module @mirage_kernels` of `top`, created on demand.
mlir::ModuleOp getOrCreateKernelModule(mlir::ModuleOp top);

/// Lowers kernel graph `g` (pre-defined ops are expanded first) into
/// `into`: functions `<name>_k<i>` and the host function `<name>`. On
/// failure nothing is added and `error` names the op and the reason.
std::optional<LaunchPlan> lowerGraphToLoops(const UGraph &g,
                                            llvm::StringRef name,
                                            mlir::ModuleOp into,
                                            mlir::Location loc,
                                            const LoopLoweringOptions &options,
                                            std::string &error);

/// The relative tolerance of lowered code (CPU or GPU) against the float64
/// evaluator for outputs of type `t`: every stored tile rounds once to its
/// storage type and sums are f32 (docs/Rationale/Lowering.md, "Tolerances").
double loweredCodeTolerance(ElemType t);

/// A valid symbol name for a graph: its name, or `graph<i>`, with characters
/// other than [A-Za-z0-9_] replaced by '_'.
std::string graphSymbolName(llvm::StringRef name, unsigned ordinal);

/// "1 kernel", "3 kernels": the size of a plan, for remarks.
std::string describeKernels(const LaunchPlan &plan);

/// Calls `fn(graph, name)` for every kernel graph under `root` in walk order,
/// with the graph's symbol name (graphSymbolName), made unique under `root`
/// ignoring case: a graph whose name is already a valid symbol keeps it, the
/// others get the first free `<name>_<n>`. Fails if any call did, after
/// calling all of them (each reports its own errors).
mlir::LogicalResult forEachKernelGraph(
    mlir::Operation *root,
    llvm::function_ref<mlir::LogicalResult(mlir::Operation *graph,
                                           llvm::StringRef name)>
        fn);

} // namespace mirage

#endif // MIRAGE_CONVERSION_KERNELTOLOOPS_H
