//===- SearchReport.h - Machine-readable per-graph search report -*- C++ -*-===//
//
// One record per superoptimized kernel graph, written as JSON (the search's
// report path option) and stored beside the winner in the result cache.
// Costs are the cost model's estimates in microseconds.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_SEARCHREPORT_H
#define MIRAGE_SEARCH_SEARCHREPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mirage {

enum class CacheStatus : uint8_t { Disabled, Miss, Hit };
llvm::StringRef cacheStatusName(CacheStatus s); // "disabled", "miss", "hit"

/// Version of the report's JSON layout (the "schema" member).
constexpr int64_t kSearchReportSchema = 1;

struct SearchReport {
  std::string graph;        // the kernel graph's name (may be empty)
  std::string target;       // cost-model target
  std::string cacheKey;     // canonical hash key (32 hex digits)
  CacheStatus cache = CacheStatus::Disabled;
  std::string cacheError;   // a rejected cache file, if any
  // Search statistics.
  uint64_t statesExplored = 0;
  uint64_t statesPruned = 0;
  uint64_t candidatesVerified = 0;
  double seconds = 0;       // wall time of this graph: import, search (or
                            // cache lookup) and final verification
  double searchSeconds = 0; // of which the search (bounded by time-budget)
  bool timedOut = false;    // the budget ran out; best so far returned
  // Costs (µs) and structure.
  double inputCostUs = 0;  // the reference, priced as it will run
  double bestCostUs = 0;
  /// The reference priced as idealised library kernels (CostModel.md), the
  /// conservative baseline (PricingAsEmitted.md); infinite when a kernel
  /// does not fit the target; 0 in reports written before it existed.
  double libraryCostUs = 0;
  int64_t kernelsInInput = 0;
  int64_t kernelsInWinner = 0;
  // Verification of the winner: log2 of the false-acceptance bound (≤ 0),
  // the number of tests, and whether the bound was vacuous.
  double verificationLog2Bound = 0;
  uint64_t verificationTests = 0;
  bool verificationVacuous = false;
  double verificationSeconds = 0; // the full-shape check of the winner
  /// The module's earlier graph with the same cache key, whose answer this
  /// graph reused without a search (empty: searched or cached on its own).
  std::string repeatOf;
  /// The module's search budget was spent before this graph: left
  /// unchanged without a search.
  bool moduleBudgetSpent = false;
  /// Whether a better graph than the input was found.
  bool improved() const { return bestCostUs < inputCostUs; }
  /// inputCostUs / bestCostUs (1 when unknown).
  double estimatedSpeedup() const;

  bool operator==(const SearchReport &o) const;
};

llvm::json::Value toJSON(const SearchReport &r);
bool fromJSON(const llvm::json::Value &v, SearchReport &r,
              llvm::json::Path path);

/// `r` as JSON text (pretty-printed with two-space indent if `pretty`).
std::string reportToJSON(const SearchReport &r, bool pretty = false);
/// Parses reportToJSON's output.
llvm::Expected<SearchReport> parseSearchReport(llvm::StringRef json);

/// The file a report path option writes: {"schema": 1, "graphs": [...]}.
/// Sums over a module's reports (the pass's closing remark and the
/// "totals" object of reportsToJSON).
struct ReportTotals {
  uint64_t graphs = 0, searched = 0, cacheHits = 0, repeats = 0,
           improved = 0, timedOut = 0, budgetSkipped = 0;
  int64_t kernelsInInput = 0, kernelsInWinner = 0;
  double inputCostUs = 0, bestCostUs = 0;
  double seconds = 0, searchSeconds = 0, verificationSeconds = 0;
};
ReportTotals totalsOf(llvm::ArrayRef<SearchReport> reports);

/// {"schema", "graphs": [...], "totals": {...}}.
std::string reportsToJSON(llvm::ArrayRef<SearchReport> reports,
                          bool pretty = true);
llvm::Expected<std::vector<SearchReport>> parseSearchReports(
    llvm::StringRef json);

} // namespace mirage

#endif // MIRAGE_SEARCH_SEARCHREPORT_H
