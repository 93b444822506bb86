//===- UGraph.h - The compact in-memory μGraph ------------------*- C++ -*-===//
//
// The search, the evaluators and the verifiers work on this structure, not on
// MLIR operations: it is cheap to copy, extend and undo. MLIR is the
// interchange format (Mirage/UGraph/UGraphMLIR.h converts both ways).
//
// One struct serves all three levels. A kernel-level graph's ops are
// pre-defined kernels or Custom ops whose `body` is a block-level graph in
// `bodies`; a block graph's ThreadGraph ops have thread-level bodies, whose
// values are scalars (shape []). Ops are kept in topological order. Every
// builder applies the shared shape rules, so a UGraph is valid by
// construction or the builder reports why not.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_UGRAPH_H
#define MIRAGE_SEMANTICS_UGRAPH_H

#include "Mirage/Semantics/ShapeRules.h"

#include <optional>
#include <string>
#include <vector>

namespace mirage {

enum class ElemType : uint8_t { F16, BF16, F32, F64 };
llvm::StringRef elemTypeName(ElemType t);
int64_t elemTypeBytes(ElemType t);

enum class Level : uint8_t { Kernel, Block, Thread };

enum class OpKind : uint8_t {
  // Kernel and block level (thread level: Unary and Binary only).
  Matmul,
  Unary,
  Binary,
  Reduce,
  RmsNorm,
  Concat,
  // Kernel level only.
  Custom,
  // Block level only.
  InputIterator,
  Accum,
  OutputSaver,
  ThreadGraph,
  /// prev, cur = running_max x dim d (OnlineSoftmax.md): in-loop, the max
  /// of dim d over this and every earlier iteration, and its previous value.
  RunningMax,
};
llvm::StringRef opKindName(OpKind k);

struct UOp {
  OpKind kind = OpKind::Unary;
  /// UnaryKind, BinaryKind, ReduceKind or AccumKind, by `kind`.
  int32_t sub = 0;
  /// Value ids. RmsNorm: x [, weight]; Accum: x [, rescale].
  llvm::SmallVector<int32_t, 4> operands;
  llvm::SmallVector<int32_t, 2> results;
  int64_t dim = 0;     // Reduce, Concat, RunningMax
  int64_t size = 1;    // Reduce: target size; Accum: size (0 = none given)
  double scalar = 0;   // Unary: the scalar of mul/add_scalar; RmsNorm and
                       // Accum rms_last: eps
  AxisMap map{-1, -1, -1}; // InputIterator: imap; OutputSaver: omap
  int64_t fmap = -1;   // InputIterator
  int32_t body = -1;   // Custom, ThreadGraph: index into UGraph::bodies

  UnaryKind unaryKind() const { return static_cast<UnaryKind>(sub); }
  BinaryKind binaryKind() const { return static_cast<BinaryKind>(sub); }
  ReduceKind reduceKind() const { return static_cast<ReduceKind>(sub); }
  AccumKind accumKind() const { return static_cast<AccumKind>(sub); }
};

/// Where a value lives. Kernel-level values and block-graph inputs are
/// Device tensors; iterators produce InLoop tiles, accumulators AfterLoop
/// tiles, savers Saved device tensors; thread-graph values are Scalar.
enum class Phase : uint8_t { Device, InLoop, AfterLoop, Saved, Scalar };
llvm::StringRef phaseDescription(Phase p);

struct UValue {
  Shape shape;
  ElemType type = ElemType::F32;
  Phase phase = Phase::Device;
  int32_t def = -1; // defining op index; -1 for a graph input
  /// An in-loop value that is the same in every iteration: the tile of an
  /// fmap -1 iterator, or the result of a stateless operator all of whose
  /// operands are such values. After-loop operators may read it
  /// (docs/Rationale/AfterLoopInvariants.md); the schedule runs it once,
  /// before the loop (BlockSchedule::beforeLoop). Set by the builders.
  bool loopInvariant = false;
  /// A graph input stored with its last two dims swapped in device memory
  /// (OperandLayouts.md): `shape` is the logical shape every rule and
  /// evaluator uses; only where bytes lie differs. Kernel-graph inputs get
  /// it from the IR; UGraph::addCustom gives it to the body's inputs.
  bool transposed = false;
};

/// Bytes of a tensor value as declared (elements times the element type).
double bytesOf(const UValue &v);

/// `shape` with its last two dims swapped (unchanged below rank 2).
Shape swapLastTwo(llvm::ArrayRef<int64_t> shape);

struct UGraph;
/// The phase of an operator's results over `operands` of block graph `g`,
/// the builders' rule: operands of one phase give that phase; after-loop
/// operands with in-loop ones that are all loop-invariant give AfterLoop
/// (AfterLoopInvariants.md); nothing for any other mix, or for an operand
/// read from device memory or a saved output.
std::optional<Phase> combinedPhase(const UGraph &g,
                                   llvm::ArrayRef<int32_t> operands);

struct UGraph {
  Level level = Level::Kernel;
  std::vector<UValue> values;
  std::vector<UOp> ops;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  /// Block level: the launch configuration of the enclosing Custom op.
  GridDims grid{1, 1, 1};
  int64_t forloopRange = 1;
  std::string target;
  /// Nested graphs referenced by UOp::body.
  std::vector<UGraph> bodies;
  /// Optional names (reports, reference links).
  std::string name;
  std::string reference;

  explicit UGraph(Level level = Level::Kernel) : level(level) {}

  // Builders. Each returns the new value id, or -1 with `error` set.
  /// An input of `shape`; `transposed`: stored with its last two dims
  /// swapped (UValue::transposed).
  int32_t addInput(Shape shape, ElemType type, bool transposed = false);
  /// An input like `v`: its shape, element type and stored layout.
  int32_t addInputLike(const UValue &v);
  int32_t addMatmul(int32_t a, int32_t b);
  int32_t addUnary(UnaryKind kind, int32_t x, double scalar = 0);
  int32_t addBinary(BinaryKind kind, int32_t a, int32_t b);
  int32_t addReduce(ReduceKind kind, int32_t x, int64_t dim, int64_t size = 1);
  int32_t addRmsNorm(int32_t x, int32_t weight /* -1: none */, double eps = 0);
  int32_t addConcat(int32_t a, int32_t b, int64_t dim);
  // Block level.
  int32_t addInputIterator(int32_t deviceInput, AxisMap imap, int64_t fmap);
  /// `eps` (rms_last only; 0 otherwise): sqrt(sum(x²)/count + eps).
  int32_t addAccum(AccumKind kind, int32_t x, int32_t rescale /* -1 */,
                   int64_t size /* 0: none */, double eps = 0);
  int32_t addOutputSaver(int32_t tile, AxisMap omap);
  /// `prev, cur = running_max x dim d` over an in-loop tile: two results of
  /// x's shape with dim d reduced to 1. Returns prev's id (cur is prev + 1).
  int32_t addRunningMax(int32_t x, int64_t dim);
  /// Adds a thread graph over `operands`; `body` is a thread-level graph whose
  /// inputs correspond to the operands. Returns the first result id.
  int32_t addThreadGraph(llvm::ArrayRef<int32_t> operands, UGraph body);
  // Kernel level.
  /// Adds a graph-defined kernel over `operands` with the block graph `body`
  /// (its inputs are the device tensors, its outputs the saver results).
  /// Returns the first result id.
  int32_t addCustom(llvm::ArrayRef<int32_t> operands, UGraph body);

  /// Adds an op of the same kind and attributes as `op` (typically from
  /// another graph) over `operands`, through the builder of its kind;
  /// `body` is the nested graph of a Custom or ThreadGraph op. Replaying a
  /// graph's ops this way re-derives every shape at new input shapes or a new
  /// launch configuration.
  int32_t addLike(const UOp &op, llvm::ArrayRef<int32_t> operands,
                  UGraph body = UGraph());

  void markOutput(int32_t v) { outputs.push_back(v); }

  const UValue &value(int32_t id) const { return values[id]; }
  /// Why the last add* failed (empty when explainFailures is off).
  std::string error;
  /// A search that tries every operand combination and discards the
  /// failures turns this off: an add* that fails returns -1 without
  /// building its message.
  bool explainFailures = true;

private:
  int32_t addOp(UOp op, llvm::ArrayRef<Shape> resultShapes, ElemType type);
  int32_t fail(std::string msg);
};

/// Checks what the builders cannot check op by op: the grid, and that every
/// saver result is an output exactly once and nothing else is (block level);
/// the outputs' existence (all levels). Returns an empty string when valid.
std::string verifyUGraphOutputs(const UGraph &g);

/// Shared-memory bytes of a block graph's tiles (iterator tiles, operator
/// results, accumulators; thread-graph temporaries live in registers).
int64_t sharedMemoryBytes(const UGraph &block);

/// Whether value `v` of `g` lies in memory with its last two dims swapped
/// (OperandLayouts.md): a transposed input, or an input iterator's tile of
/// one (stored as the tensor is, so that its copy moves stored rows).
bool storedTransposed(const UGraph &g, int32_t v);

/// The shape of `v` of `g` as it lies in memory.
Shape storedShape(const UGraph &g, int32_t v);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_UGRAPH_H
