//===- DriverAbiCheck.cpp - CudaDriver.h's declarations against cuda.h ----===//
//
// mirage-run declares the few driver types it needs itself (CudaDriver.h)
// so that it builds without the toolkit. Where cuda.h is at hand this file
// is compiled into the fake driver and checks, at compile time, that those
// declarations have cuda.h's sizes, offsets and values; a mistake would
// otherwise only show as a refused or misread launch on a GPU machine.
//
//===----------------------------------------------------------------------===//
#include "../CudaDriver.h"

#include <cstddef>
#include <cuda.h>

namespace cu = mirage_run::cu;

static_assert(cu::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION ==
                  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
              "attribute id");
static_assert(sizeof(cu::CUlaunchAttributeValue) ==
                  sizeof(CUlaunchAttributeValue),
              "attribute value size");
static_assert(sizeof(cu::CUlaunchAttribute) == sizeof(CUlaunchAttribute),
              "attribute size");
static_assert(offsetof(cu::CUlaunchAttribute, value) ==
                  offsetof(CUlaunchAttribute, value),
              "attribute value offset");
static_assert(sizeof(cu::CUlaunchConfig) == sizeof(CUlaunchConfig),
              "launch config size");
static_assert(offsetof(cu::CUlaunchConfig, sharedMemBytes) ==
                  offsetof(CUlaunchConfig, sharedMemBytes),
              "sharedMemBytes offset");
static_assert(offsetof(cu::CUlaunchConfig, hStream) ==
                  offsetof(CUlaunchConfig, hStream),
              "hStream offset");
static_assert(offsetof(cu::CUlaunchConfig, attrs) ==
                  offsetof(CUlaunchConfig, attrs),
              "attrs offset");
static_assert(offsetof(cu::CUlaunchConfig, numAttrs) ==
                  offsetof(CUlaunchConfig, numAttrs),
              "numAttrs offset");
