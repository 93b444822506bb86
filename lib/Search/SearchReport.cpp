//===- SearchReport.cpp - Machine-readable per-graph search report --------===//
#include "Mirage/Search/SearchReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mirage;
using llvm::json::Object;
using llvm::json::Value;

llvm::StringRef mirage::cacheStatusName(CacheStatus s) {
  switch (s) {
  case CacheStatus::Disabled:
    return "disabled";
  case CacheStatus::Miss:
    return "miss";
  case CacheStatus::Hit:
    return "hit";
  }
  return "disabled";
}

double SearchReport::estimatedSpeedup() const {
  if (!(bestCostUs > 0) || !(inputCostUs > 0))
    return 1;
  return inputCostUs / bestCostUs;
}

bool SearchReport::operator==(const SearchReport &o) const {
  return graph == o.graph && target == o.target && cacheKey == o.cacheKey &&
         cache == o.cache && cacheError == o.cacheError &&
         statesExplored == o.statesExplored &&
         statesPruned == o.statesPruned &&
         candidatesVerified == o.candidatesVerified && seconds == o.seconds &&
         timedOut == o.timedOut && inputCostUs == o.inputCostUs &&
         bestCostUs == o.bestCostUs && libraryCostUs == o.libraryCostUs &&
         kernelsInInput == o.kernelsInInput &&
         kernelsInWinner == o.kernelsInWinner &&
         verificationLog2Bound == o.verificationLog2Bound &&
         verificationTests == o.verificationTests &&
         verificationVacuous == o.verificationVacuous &&
         searchSeconds == o.searchSeconds &&
         verificationSeconds == o.verificationSeconds &&
         repeatOf == o.repeatOf && moduleBudgetSpent == o.moduleBudgetSpent;
}

// JSON numbers are doubles in llvm::json unless integral; counters are
// written as int64 (exact up to 2^63).
static Value count(uint64_t v) { return static_cast<int64_t>(v); }
static Value number(double v) { return std::isfinite(v) ? Value(v) : Value(nullptr); }

Value mirage::toJSON(const SearchReport &r) {
  Object cache{{"status", cacheStatusName(r.cache)}, {"key", r.cacheKey}};
  if (!r.cacheError.empty())
    cache["error"] = r.cacheError;
  Object out{
      {"schema", kSearchReportSchema},
      {"graph", r.graph},
      {"target", r.target},
      {"cache", std::move(cache)},
      {"states_explored", count(r.statesExplored)},
      {"states_pruned", count(r.statesPruned)},
      {"candidates_verified", count(r.candidatesVerified)},
      {"seconds", number(r.seconds)},
      {"search_seconds", number(r.searchSeconds)},
      {"timed_out", r.timedOut},
      {"input_cost_us", number(r.inputCostUs)},
      {"best_cost_us", number(r.bestCostUs)},
      {"library_cost_us", number(r.libraryCostUs)},
      {"estimated_speedup", number(r.estimatedSpeedup())},
      {"kernels_in_input", r.kernelsInInput},
      {"kernels_in_winner", r.kernelsInWinner},
      {"verification",
       Object{{"log2_bound", number(r.verificationLog2Bound)},
              {"tests", count(r.verificationTests)},
              {"vacuous", r.verificationVacuous},
              {"seconds", number(r.verificationSeconds)}}},
  };
  if (!r.repeatOf.empty())
    out["repeat_of"] = r.repeatOf;
  if (r.moduleBudgetSpent)
    out["module_budget_spent"] = true;
  return out;
}

namespace {
bool getCount(const Object &o, llvm::StringRef key, uint64_t &out,
              llvm::json::Path path) {
  const Value *v = o.get(key);
  if (!v)
    return true; // optional: keeps the default
  std::optional<int64_t> i = v->getAsInteger();
  if (!i || *i < 0) {
    path.field(key).report("expected a non-negative integer");
    return false;
  }
  out = static_cast<uint64_t>(*i);
  return true;
}
bool getNumber(const Object &o, llvm::StringRef key, double &out,
               llvm::json::Path path) {
  const Value *v = o.get(key);
  if (!v || v->getAsNull())
    return true;
  std::optional<double> d = v->getAsNumber();
  if (!d) {
    path.field(key).report("expected a number");
    return false;
  }
  out = *d;
  return true;
}
} // namespace

bool mirage::fromJSON(const Value &v, SearchReport &r, llvm::json::Path path) {
  const Object *o = v.getAsObject();
  if (!o) {
    path.report("expected an object");
    return false;
  }
  if (std::optional<int64_t> schema = o->getInteger("schema");
      !schema || *schema != kSearchReportSchema) {
    path.field("schema").report("unsupported report schema");
    return false;
  }
  r = SearchReport();
  if (auto s = o->getString("graph"))
    r.graph = s->str();
  if (auto s = o->getString("target"))
    r.target = s->str();
  if (const Object *c = o->getObject("cache")) {
    if (auto s = c->getString("key"))
      r.cacheKey = s->str();
    if (auto s = c->getString("error"))
      r.cacheError = s->str();
    if (auto s = c->getString("status")) {
      if (*s == "hit")
        r.cache = CacheStatus::Hit;
      else if (*s == "miss")
        r.cache = CacheStatus::Miss;
      else if (*s == "disabled")
        r.cache = CacheStatus::Disabled;
      else {
        path.field("cache").field("status").report("unknown cache status");
        return false;
      }
    }
  }
  if (!getCount(*o, "states_explored", r.statesExplored, path) ||
      !getCount(*o, "states_pruned", r.statesPruned, path) ||
      !getCount(*o, "candidates_verified", r.candidatesVerified, path) ||
      !getNumber(*o, "seconds", r.seconds, path) ||
      !getNumber(*o, "search_seconds", r.searchSeconds, path) ||
      !getNumber(*o, "input_cost_us", r.inputCostUs, path) ||
      !getNumber(*o, "best_cost_us", r.bestCostUs, path) ||
      !getNumber(*o, "library_cost_us", r.libraryCostUs, path))
    return false;
  if (auto b = o->getBoolean("timed_out"))
    r.timedOut = *b;
  if (auto s = o->getString("repeat_of"))
    r.repeatOf = s->str();
  if (auto b = o->getBoolean("module_budget_spent"))
    r.moduleBudgetSpent = *b;
  uint64_t k = 0;
  if (!getCount(*o, "kernels_in_input", k, path))
    return false;
  r.kernelsInInput = static_cast<int64_t>(k);
  k = 0;
  if (!getCount(*o, "kernels_in_winner", k, path))
    return false;
  r.kernelsInWinner = static_cast<int64_t>(k);
  if (const Object *ver = o->getObject("verification")) {
    llvm::json::Path vp = path.field("verification");
    if (!getNumber(*ver, "log2_bound", r.verificationLog2Bound, vp) ||
        !getCount(*ver, "tests", r.verificationTests, vp) ||
        !getNumber(*ver, "seconds", r.verificationSeconds, vp))
      return false;
    if (auto b = ver->getBoolean("vacuous"))
      r.verificationVacuous = *b;
  }
  return true;
}

std::string mirage::reportToJSON(const SearchReport &r, bool pretty) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (pretty)
    os << llvm::formatv("{0:2}", toJSON(r));
  else
    os << toJSON(r);
  return s;
}

llvm::Expected<SearchReport> mirage::parseSearchReport(llvm::StringRef json) {
  llvm::Expected<Value> v = llvm::json::parse(json);
  if (!v)
    return v.takeError();
  SearchReport r;
  llvm::json::Path::Root root("report");
  if (!fromJSON(*v, r, root))
    return root.getError();
  return r;
}

ReportTotals mirage::totalsOf(llvm::ArrayRef<SearchReport> reports) {
  ReportTotals t;
  for (const SearchReport &r : reports) {
    ++t.graphs;
    bool repeat = !r.repeatOf.empty();
    t.repeats += repeat;
    t.cacheHits += r.cache == CacheStatus::Hit;
    t.budgetSkipped += r.moduleBudgetSpent;
    t.searched += !repeat && r.cache != CacheStatus::Hit && !r.moduleBudgetSpent;
    t.improved += r.improved();
    t.timedOut += r.timedOut;
    t.kernelsInInput += r.kernelsInInput;
    t.kernelsInWinner += r.kernelsInWinner;
    t.inputCostUs += r.inputCostUs;
    t.bestCostUs += r.bestCostUs;
    t.seconds += r.seconds;
    t.searchSeconds += r.searchSeconds;
    t.verificationSeconds += r.verificationSeconds;
  }
  return t;
}

std::string mirage::reportsToJSON(llvm::ArrayRef<SearchReport> reports,
                                  bool pretty) {
  llvm::json::Array graphs;
  for (const SearchReport &r : reports)
    graphs.push_back(toJSON(r));
  ReportTotals t = totalsOf(reports);
  Object totals{{"graphs", count(t.graphs)},
                {"searched", count(t.searched)},
                {"cache_hits", count(t.cacheHits)},
                {"repeats", count(t.repeats)},
                {"improved", count(t.improved)},
                {"timed_out", count(t.timedOut)},
                {"module_budget_skipped", count(t.budgetSkipped)},
                {"kernels_in_input", t.kernelsInInput},
                {"kernels_in_winner", t.kernelsInWinner},
                {"input_cost_us", number(t.inputCostUs)},
                {"best_cost_us", number(t.bestCostUs)},
                {"seconds", number(t.seconds)},
                {"search_seconds", number(t.searchSeconds)},
                {"verification_seconds", number(t.verificationSeconds)}};
  Value doc = Object{{"schema", kSearchReportSchema},
                     {"graphs", std::move(graphs)},
                     {"totals", std::move(totals)}};
  std::string s;
  llvm::raw_string_ostream os(s);
  if (pretty)
    os << llvm::formatv("{0:2}", doc);
  else
    os << doc;
  return s;
}

llvm::Expected<std::vector<SearchReport>>
mirage::parseSearchReports(llvm::StringRef json) {
  llvm::Expected<Value> v = llvm::json::parse(json);
  if (!v)
    return v.takeError();
  llvm::json::Path::Root root("reports");
  const Object *o = v->getAsObject();
  const llvm::json::Array *graphs = o ? o->getArray("graphs") : nullptr;
  if (!graphs)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "expected an object with a 'graphs' array");
  std::vector<SearchReport> out;
  llvm::json::Path path = root;
  for (size_t i = 0; i < graphs->size(); ++i) {
    SearchReport r;
    if (!fromJSON((*graphs)[i], r, path.index(i)))
      return root.getError();
    out.push_back(std::move(r));
  }
  return out;
}
