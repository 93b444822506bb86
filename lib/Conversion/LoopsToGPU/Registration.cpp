//===- Registration.cpp - Register the loops-to-GPU passes ----------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

void mirage::registerLoopsToGPU() {
  registerMirageLoopsToGPUPasses();
  registerLoopsToGPUPipeline();
}
