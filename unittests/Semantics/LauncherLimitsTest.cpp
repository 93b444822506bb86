//===- LauncherLimitsTest.cpp - mirage-run's limits agree with Target.h ---===//
//
// mirage-run builds without LLVM on the GPU machine, so it keeps its own
// table of launch limits (tools/mirage-run/ChipLimits.cpp). The launch plans
// the code generator makes must be judged by the same limits there: this
// test ties the two tables together.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/Target.h"

#include "ChipLimits.h"

#include <gtest/gtest.h>

using namespace mirage;

TEST(LauncherLimits, AgreeWithTheTargetRecord) {
  for (const char *name : {"h100", "a100"}) {
    TargetInfo t = *lookupTarget(name);
    const mirage_run::ChipLimits *c = mirage_run::findChipLimits(t.chip.str());
    ASSERT_NE(c, nullptr) << t.chip.str();
    EXPECT_EQ(c->maxSharedPerBlock, t.smemBytesPerBlock) << name;
    EXPECT_EQ(c->sharedPerSM, t.smemBytesPerSM) << name;
    EXPECT_EQ(c->maxStaticSharedPerBlock, t.maxStaticSmemBytes) << name;
    EXPECT_EQ(c->sharedReservedPerBlock, t.smemReservePerBlock) << name;
    EXPECT_EQ(c->maxThreadsPerBlock, t.maxThreadsPerBlock) << name;
    EXPECT_EQ(c->maxThreadsPerSM, t.maxThreadsPerSM) << name;
    EXPECT_EQ(c->maxBlocksPerSM, t.maxBlocksPerSM) << name;
    EXPECT_EQ(c->registersPerSM, t.registersPerSM) << name;
    EXPECT_EQ(c->maxRegistersPerThread, t.maxRegistersPerThread) << name;
    EXPECT_EQ(c->warpSize, t.warpSize) << name;
  }
}
