//===- CandidateCheck.cpp - Closed prefixes checked at probe shapes -------===//
//
// A prefix whose sinks are all after the loop is closed with one saver per
// output and checked against the probe reference: first by a one-test
// inequivalence witness, then by the finite-field verifier at the probe
// target (docs/Rationale/FusionSearch.md, "Verification of every candidate").
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/Evaluator.h"

#include <algorithm>
#include <random>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

/// The probe reference's outputs on one fixed random input in each
/// finite-field mode of the verifier (exp uninterpreted, exp interpreted),
/// computed once per search. The verifier accepts a candidate only when all
/// its tests agree in one mode; a candidate whose outputs differ from the
/// reference's on a conclusive test in *both* modes computes a different
/// function in both, so it can only be accepted by a false acceptance.
/// Rejecting it without the verifier saves the two reference evaluations
/// and a second candidate evaluation per mode; anything else (agreement in
/// a mode, a zero divisor, nested exp) goes to the verifier as before.
void ProbeWitness::init(const UGraph &ref, uint64_t seed) {
  for (int i = 0; i < 2; ++i) {
    Mode &m = modes[i];
    m.key = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (0x7e57ull + i);
    m.mode = i == 0 ? Sem::ExpMode::Uninterpreted : Sem::ExpMode::Interpreted;
    m.moduli = ff::FieldModuli::draw(m.key);
    Sem sem(m.key, m.mode, m.moduli);
    std::mt19937_64 rng(m.key ^ 0x1234567);
    for (int32_t v : ref.inputs) {
      T x(ref.values[v].shape, ff::FieldValue{});
      for (ff::FieldValue &e : x.data)
        e = sem.random(rng);
      m.ins.push_back(std::move(x));
    }
    Evaluator<Sem> eval(sem, 1);
    m.outs = eval.run(ref, m.ins);
    m.usable = sem.conclusive() && m.outs.size() == ref.outputs.size();
  }
}

bool ProbeWitness::mayBeEquivalent(const UGraph &cand) const {
  for (const Mode &m : modes) {
    if (!m.usable)
      return true;
    Sem sem(m.key, m.mode, m.moduli);
    Evaluator<Sem> eval(sem, 1);
    std::vector<T> a = eval.run(cand, m.ins);
    if (!sem.conclusive())
      return true;
    bool same = a.size() == m.outs.size();
    for (size_t o = 0; same && o < a.size(); ++o) {
      same = a[o].size() == m.outs[o].size();
      for (int64_t e = 0; same && e < a[o].size(); ++e)
        same = a[o].data[e].sameAs(m.outs[o].data[e]);
    }
    if (same)
      return true;
  }
  return false;
}

/// The probe filter: the verifier at the probe target, on the calling
/// thread (the patterns already occupy every worker).
static bool equivalentAtProbe(const UGraph &candidate, const UGraph &probeRef,
                              const FusionSearchOptions &opts) {
  VerifyOptions vo;
  vo.targetBits = opts.probeVerifyBits;
  vo.seed = opts.seed;
  vo.allowPermutation = false;
  vo.threads = 1;
  return verifyEquivalence(candidate, probeRef, vo).equivalent();
}

void fusion::checkCandidates(SearchContext &ctx, const UGraph &ref,
                             const UGraph &b, llvm::ArrayRef<int32_t> sinks,
                             llvm::ArrayRef<AxisMap> omaps,
                             size_t patternIndex, PruneSession *session,
                             std::vector<Found> &found) {
  size_t n = ref.outputs.size();
  if (sinks.size() != n)
    return;
  // Match sinks to outputs by shape, trying every order.
  std::vector<int> perm(n);
  for (size_t i = 0; i < n; ++i)
    perm[i] = i;
  do {
    UGraph c = b;
    bool ok = true;
    llvm::SmallVector<int32_t, 4> saved(n);
    for (size_t o = 0; o < n && ok; ++o) {
      int32_t s = c.addOutputSaver(sinks[perm[o]], omaps[o]);
      ok = s >= 0 && c.values[s].shape == ref.values[ref.outputs[o]].shape;
      saved[o] = s;
    }
    if (!ok)
      continue;
    // The reverse abstract-expression test, after the shape match (so
    // only orders that could be saved count as pruned).
    if (session) {
      bool may = true;
      for (size_t o = 0; o < n && may; ++o)
        may = session->mayBeOutput(sinks[perm[o]], o);
      if (!may) {
        ++ctx.outputsPruned;
        ++ctx.pruned;
        continue;
      }
    }
    for (int32_t s : saved)
      c.markOutput(s);
    if (acceptAtProbe(ctx, ref, c))
      found.push_back(Found{std::move(c), patternIndex});
  } while (std::next_permutation(perm.begin(), perm.end()));
}

bool fusion::acceptAtProbe(SearchContext &ctx, const UGraph &ref,
                           const UGraph &block) {
  UGraph k(Level::Kernel);
  llvm::SmallVector<int32_t, 4> ins;
  for (int32_t in : ref.inputs)
    ins.push_back(k.addInputLike(ref.values[in]));
  int32_t r = k.addCustom(ins, block);
  if (r < 0)
    return false;
  for (size_t o = 0; o < ref.outputs.size(); ++o)
    k.markOutput(r + o);
  ++ctx.candidates;
  if (ctx.witness && !ctx.witness->mayBeEquivalent(k))
    return false;
  if (!equivalentAtProbe(k, ref, ctx.opts))
    return false;
  ++ctx.verified;
  return true;
}
