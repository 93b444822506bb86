//===- InitAllPasses.h - Register the Mirage passes -------------*- C++ -*-===//
#ifndef MIRAGE_INITALLPASSES_H
#define MIRAGE_INITALLPASSES_H

#include "Mirage/Analysis/Passes.h"
#include "Mirage/Conversion/CodegenPasses.h"
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Conversion/Passes.h"
#include "Mirage/Pipelines/Pipelines.h"
#include "Mirage/Transforms/Passes.h"

namespace mirage {
inline void registerAllMiragePasses() {
  registerMiragePasses();
  registerMirageConversionPasses();
  registerLoopsToGPU();
  registerMirageCodegenPasses();
  registerMirageAnalysisPasses();
  registerMiragePipelines();
}
} // namespace mirage

#endif // MIRAGE_INITALLPASSES_H
