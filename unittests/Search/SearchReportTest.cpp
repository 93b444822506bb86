//===- SearchReportTest.cpp - JSON of the per-graph search report ---------===//
#include "Mirage/Search/SearchReport.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {
SearchReport sample() {
  SearchReport r;
  r.graph = "rmsnorm_matmul_ref";
  r.target = "h100";
  r.cacheKey = "0123456789abcdef0123456789abcdef";
  r.cache = CacheStatus::Miss;
  r.statesExplored = 123456789012ULL;
  r.statesPruned = 98765;
  r.candidatesVerified = 18;
  r.seconds = 12.5;
  r.timedOut = true;
  r.inputCostUs = 20.25;
  r.bestCostUs = 13.5;
  r.kernelsInInput = 2;
  r.kernelsInWinner = 1;
  r.verificationLog2Bound = -64.75;
  r.verificationTests = 3;
  r.verificationVacuous = false;
  return r;
}
} // namespace

TEST(SearchReport, RoundTrip) {
  SearchReport r = sample();
  for (bool pretty : {false, true}) {
    std::string json = reportToJSON(r, pretty);
    llvm::Expected<SearchReport> back = parseSearchReport(json);
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(*back, r) << json;
  }
  r.cache = CacheStatus::Hit;
  r.cacheError = "result cache '/x': not an SQLite database";
  llvm::Expected<SearchReport> back = parseSearchReport(reportToJSON(r));
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(*back, r);
}

TEST(SearchReport, Fields) {
  SearchReport r = sample();
  llvm::json::Value v = toJSON(r);
  const llvm::json::Object *o = v.getAsObject();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->getInteger("schema"), kSearchReportSchema);
  EXPECT_EQ(o->getInteger("states_explored"), 123456789012LL);
  EXPECT_EQ(o->getInteger("states_pruned"), 98765);
  EXPECT_EQ(o->getInteger("candidates_verified"), 18);
  EXPECT_EQ(o->getInteger("kernels_in_winner"), 1);
  EXPECT_EQ(o->getNumber("best_cost_us"), 13.5);
  EXPECT_EQ(o->getNumber("input_cost_us"), 20.25);
  EXPECT_DOUBLE_EQ(*o->getNumber("estimated_speedup"), 1.5);
  EXPECT_EQ(o->getBoolean("timed_out"), true);
  ASSERT_TRUE(o->getObject("cache"));
  EXPECT_EQ(o->getObject("cache")->getString("status"), "miss");
  ASSERT_TRUE(o->getObject("verification"));
  EXPECT_EQ(o->getObject("verification")->getNumber("log2_bound"), -64.75);
  EXPECT_TRUE(r.improved());
}

TEST(SearchReport, SpeedupUnknownIsOne) {
  SearchReport r;
  EXPECT_EQ(r.estimatedSpeedup(), 1);
  EXPECT_FALSE(r.improved());
}

TEST(SearchReport, ListRoundTrip) {
  SearchReport a = sample(), b = sample();
  b.graph = "gqa_ref";
  b.cache = CacheStatus::Disabled;
  std::string json = reportsToJSON({a, b});
  auto back = parseSearchReports(json);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0], a);
  EXPECT_EQ((*back)[1], b);
}

/// A repeat and a graph skipped for the module budget round-trip, and the
/// totals count each graph once in the right column.
TEST(SearchReport, ModuleTotals) {
  SearchReport a = sample(), b = sample(), c = sample();
  a.searchSeconds = 2;
  b.graph = "block1";
  b.repeatOf = "rmsnorm_matmul_ref";
  b.statesExplored = 0;
  c.graph = "block2";
  c.moduleBudgetSpent = true;
  c.bestCostUs = c.inputCostUs;
  c.kernelsInWinner = c.kernelsInInput;
  auto back = parseSearchReports(reportsToJSON({a, b, c}));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[1], b);
  EXPECT_EQ((*back)[2], c);
  ReportTotals t = totalsOf({a, b, c});
  EXPECT_EQ(t.graphs, 3u);
  EXPECT_EQ(t.searched, 1u);
  EXPECT_EQ(t.repeats, 1u);
  EXPECT_EQ(t.budgetSkipped, 1u);
  EXPECT_EQ(t.improved, 2u);
  EXPECT_EQ(t.kernelsInInput, 6);
  EXPECT_EQ(t.kernelsInWinner, 4);
  EXPECT_DOUBLE_EQ(t.inputCostUs, 3 * 20.25);
  EXPECT_DOUBLE_EQ(t.bestCostUs, 2 * 13.5 + 20.25);
  EXPECT_DOUBLE_EQ(t.searchSeconds, 2);
}

TEST(SearchReport, RejectsBadInput) {
  auto notJson = parseSearchReport("{not json");
  EXPECT_FALSE(static_cast<bool>(notJson));
  llvm::consumeError(notJson.takeError());
  auto wrongSchema = parseSearchReport(R"({"schema": 99})");
  EXPECT_FALSE(static_cast<bool>(wrongSchema));
  llvm::consumeError(wrongSchema.takeError());
  auto badCount = parseSearchReport(R"({"schema": 1, "states_explored": -3})");
  EXPECT_FALSE(static_cast<bool>(badCount));
  llvm::consumeError(badCount.takeError());
  auto badStatus = parseSearchReport(R"({"schema": 1, "cache": {"status": "maybe"}})");
  EXPECT_FALSE(static_cast<bool>(badStatus));
  llvm::consumeError(badStatus.takeError());
  auto list = parseSearchReports(R"({"schema": 1})");
  EXPECT_FALSE(static_cast<bool>(list));
  llvm::consumeError(list.takeError());
}
