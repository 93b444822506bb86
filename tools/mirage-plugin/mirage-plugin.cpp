//===- mirage-plugin.cpp - Mirage as a plugin of the stock mlir-opt -------===//
//
// A loadable module for an mlir-opt built from the same LLVM/MLIR 22 (the
// Debian /usr/lib/llvm-22/bin/mlir-opt, which links libMLIR.so):
//
//   mlir-opt --load-dialect-plugin=MiragePlugin.so \
//            --load-pass-plugin=MiragePlugin.so x.mlir --mirage-compare
//
// The dialect entry point registers mirage_kernel, mirage_block and
// mirage_thread; the pass entry point registers every Mirage pass and
// pipeline. The module links libMLIR.so and libLLVM.so like the tool that
// loads it, so both share one copy of the dialect, pass and option registries
// and of every TypeID.
//
//===----------------------------------------------------------------------===//

#include "Mirage/InitAllDialects.h"
#include "Mirage/InitAllPasses.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

/// Dialects: called by `--load-dialect-plugin`.
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Mirage", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            mirage::registerAllMirageDialects(*registry);
          }};
}

/// Passes and pipelines: called by `--load-pass-plugin`.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MiragePasses", LLVM_VERSION_STRING,
          []() { mirage::registerAllMiragePasses(); }};
}
