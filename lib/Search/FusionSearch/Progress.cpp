//===- Progress.cpp - Progress snapshots of a running search --------------===//
//
// Workers call tick() every 256 states; the driver calls roundDone() after
// every round. Nothing is reported before progressAfterSeconds, so short
// searches stay quiet; then at most one snapshot every progressEverySeconds
// from the workers (try_lock: a worker never waits for another's report),
// plus one per finished round.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

std::string mirage::search::formatProgress(const SearchProgress &p) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("[mirage-search] %.1fs round %u/%u", p.elapsedSeconds,
                     p.round, p.maxRounds);
  if (p.roundDone)
    os << " done";
  else
    os << " patterns " << p.patternsDone << "/" << p.patterns;
  os << " states " << p.states << " pruned " << p.pruned << " candidates "
     << p.candidates << " verified " << p.verified << " best ";
  if (p.haveBest)
    os << llvm::format("%.2f us", p.bestSeconds * 1e6);
  else
    os << "none";
  return s;
}

ProgressReporter::ProgressReporter(SearchContext &ctx, size_t patterns)
    : ctx(ctx), enabled(bool(ctx.opts.progress)), patterns(patterns) {}

void ProgressReporter::startRound(unsigned r) {
  round = r;
  patternsDone = 0;
}

void ProgressReporter::setBest(double seconds) { bestSeconds = seconds; }

SearchProgress ProgressReporter::snapshot(bool roundDone) const {
  SearchProgress p;
  p.round = round;
  p.maxRounds = ctx.opts.maxBlockOps;
  p.patternsDone = patternsDone;
  p.patterns = patterns;
  p.states = ctx.states;
  p.pruned = ctx.pruned;
  p.candidates = ctx.candidates;
  p.verified = ctx.verified;
  p.bestSeconds = bestSeconds;
  p.haveBest = std::isfinite(p.bestSeconds);
  p.elapsedSeconds = secondsSince(ctx.start);
  p.roundDone = roundDone;
  return p;
}

void ProgressReporter::tick() {
  if (!enabled)
    return;
  double now = secondsSince(ctx.start);
  if (now < ctx.opts.progressAfterSeconds)
    return;
  std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
  if (!lock.owns_lock() || now - lastReport < ctx.opts.progressEverySeconds)
    return;
  lastReport = now;
  ctx.opts.progress(snapshot(false));
}

void ProgressReporter::roundDone() {
  if (!enabled || secondsSince(ctx.start) < ctx.opts.progressAfterSeconds)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  lastReport = secondsSince(ctx.start);
  ctx.opts.progress(snapshot(true));
}
