//===- LaunchPatterns.cpp - Grid and for-loop classes of a launch ---------===//
//
// A block that computes part of an output along an index must load the
// matching part of every input that has that index, so the grid axes and the
// for-loop are chosen among index classes (docs/Rationale/FusionSearch.md,
// stage 1) instead of blind imap/fmap/omap combinations.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

std::vector<Pattern> fusion::launchPatterns(const IndexClasses &ic,
                                            bool splitReduced) {
  std::vector<int> par, red;
  for (int c = 0; c < ic.numClasses(); ++c) {
    if (!ic.parallel[c])
      red.push_back(c);
    else if (splitReduced || !ic.reduced[c])
      par.push_back(c);
  }
  std::vector<std::vector<int>> grids = {{}};
  for (size_t i = 0; i < par.size(); ++i) {
    grids.push_back({par[i]});
    for (size_t j = i + 1; j < par.size(); ++j) {
      grids.push_back({par[i], par[j]});
      for (size_t k = j + 1; k < par.size(); ++k)
        grids.push_back({par[i], par[j], par[k]});
    }
  }
  std::vector<Pattern> out;
  for (const auto &g : grids) {
    out.push_back({g, -1});
    for (int r : red)
      out.push_back({g, r});
  }
  return out;
}

bool fusion::addPatternIterators(UGraph &b, const Pattern &pattern,
                                 const IndexClasses &classes, const UGraph &ref,
                                 bool loopWalkedOnly) {
  for (int32_t in : ref.inputs)
    b.addInputLike(ref.values[in]);
  for (size_t i = 0; i < ref.inputs.size(); ++i) {
    AxisMap imap{-1, -1, -1};
    for (size_t a = 0; a < pattern.gridClasses.size(); ++a)
      imap[a] = classes.dimIn(ref.inputs[i], pattern.gridClasses[a]);
    int64_t fmap = pattern.loopClass >= 0
                       ? classes.dimIn(ref.inputs[i], pattern.loopClass)
                       : -1;
    if (loopWalkedOnly && fmap < 0)
      continue;
    if (b.addInputIterator(b.inputs[i], imap, fmap) < 0)
      return false;
  }
  if (loopWalkedOnly)
    return true;
  // Every active grid axis must split some input, or blocks would
  // duplicate each other's work.
  for (size_t a = 0; a < pattern.gridClasses.size(); ++a) {
    bool used = false;
    for (const UOp &op : b.ops)
      used |= op.map[a] >= 0;
    if (!used)
      return false;
  }
  return true;
}

bool fusion::patternOutputMaps(const Pattern &pattern,
                               const IndexClasses &classes, const UGraph &ref,
                               std::vector<AxisMap> &omaps) {
  omaps.clear();
  for (int32_t o : ref.outputs) {
    AxisMap omap{-1, -1, -1};
    for (size_t a = 0; a < pattern.gridClasses.size(); ++a) {
      omap[a] = classes.dimIn(o, pattern.gridClasses[a]);
      if (omap[a] < 0)
        return false;
    }
    omaps.push_back(omap);
  }
  return true;
}

std::vector<size_t>
fusion::enumerationGroups(const std::vector<Pattern> &patterns,
                          const IndexClasses &classes) {
  // A grid class is never reduced unless split-reduced-classes put it
  // there; such a pattern's prologues and split plans depend on its grid.
  auto gridUnreduced = [&](const Pattern &p) {
    return llvm::none_of(p.gridClasses,
                         [&](int c) { return classes.reduced[c]; });
  };
  std::vector<size_t> group(patterns.size());
  for (size_t i = 0; i < patterns.size(); ++i) {
    group[i] = i;
    if (!gridUnreduced(patterns[i]))
      continue;
    for (size_t j = 0; j < i; ++j)
      if (group[j] == j && gridUnreduced(patterns[j]) &&
          patterns[j].loopClass == patterns[i].loopClass) {
        group[i] = j;
        break;
      }
  }
  return group;
}
