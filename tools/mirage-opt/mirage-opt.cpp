//===- mirage-opt.cpp - The Mirage optimizer driver -----------------------===//
#include "Mirage/InitAllDialects.h"
#include "Mirage/InitAllPasses.h"
#include "Mirage/Support/UpstreamParserGuard.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

/// Refuses text that would crash MLIR's own parser (UpstreamParserGuard.h)
/// with an error at the clause, instead of a segmentation fault.
static bool refuseParserHazard(const llvm::MemoryBuffer &buffer,
                               llvm::StringRef name) {
  auto hazard = mirage::findUpstreamParserHazard(buffer.getBuffer());
  if (!hazard)
    return false;
  llvm::WithColor::error(llvm::errs(), "mirage-opt")
      << name << ":" << hazard->line << ":" << hazard->column << ": `"
      << hazard->keyword
      << " =` must be followed by a list of integers such as [0, 1]; "
         "MLIR 22's linalg parser crashes on anything else, so the input "
         "was not parsed\n";
  return true;
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module bodies to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mirage::registerAllMirageDialects(registry);
  mlir::registerAllPasses();
  mirage::registerAllMiragePasses();

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Mirage multi-level tensor superoptimizer driver\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes reads no input: upstream's driver does it.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  // Read the input once (stdin cannot be read twice), check it, then hand
  // the same buffer to the driver.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (refuseParserHazard(*input, input->getBufferIdentifier()))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
