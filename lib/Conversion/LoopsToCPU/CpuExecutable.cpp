//===- CpuExecutable.cpp - JIT the lowered kernels ------------------------===//
#include "Mirage/Conversion/LoopsToCPU.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mirage;

CpuExecutable::~CpuExecutable() = default;

std::unique_ptr<CpuExecutable>
CpuExecutable::compile(ModuleOp kernels, std::string &error) {
  MLIRContext *ctx = kernels.getContext();
  PassManager pm(ctx, ModuleOp::getOperationName());
  buildLoopsToLLVMPipeline(pm);
  std::string diag;
  {
    // Keep the lowering's diagnostics for the error message.
    llvm::raw_string_ostream os(diag);
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      os << d.str() << "\n";
      return success();
    });
    if (failed(pm.run(kernels))) {
      error = "lowering to LLVM for the host failed: " + diag;
      return nullptr;
    }
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);

  ExecutionEngineOptions options;
  // `transformer` is a function_ref: the function must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  options.transformer = optimize;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  auto engine = ExecutionEngine::create(kernels, options);
  if (!engine) {
    error = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable());
  exe->engine = std::move(*engine);
  return exe;
}

bool CpuExecutable::run(StringRef name, ArrayRef<void *> buffers,
                        std::string &error) {
  // invokePacked takes the address of each argument; each argument is a
  // bare pointer (use-bare-ptr-memref-call-conv).
  SmallVector<void *> ptrs(buffers.begin(), buffers.end());
  SmallVector<void *> args;
  for (void *&p : ptrs)
    args.push_back(&p);
  if (llvm::Error e = engine->invokePacked(name, args)) {
    error = "running '" + name.str() + "' failed: " + llvm::toString(std::move(e));
    return false;
  }
  return true;
}
