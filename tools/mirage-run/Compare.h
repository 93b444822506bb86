//===- Compare.h - Comparing outputs with expected values -------*- C++ -*-===//
//
// The error measure of every mirage-run check: max |got - expected| over the
// output, relative to max |expected| (or to a tiny floor when the expected
// output is all zeros). One number per output, the one the pipeline's own
// host comparison reports, so the two can be read side by side.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_COMPARE_H
#define MIRAGE_RUN_COMPARE_H

#include "Manifest.h"

#include <string>
#include <vector>

namespace mirage_run {

struct Comparison {
  /// Infinite when either side has a NaN or infinity, or the sizes differ.
  double maxRelErr = 0;
  size_t worstIndex = 0;
  double worstGot = 0, worstExpected = 0;
  bool ok(double tolerance) const { return maxRelErr <= tolerance; }
};

Comparison compareOutputs(const std::vector<double> &got,
                          const std::vector<double> &expected);

/// Reads an output's expected file (raw little-endian f32, size checked when
/// the manifest was loaded) as doubles.
bool readExpected(const Buffer &b, std::vector<double> &out, std::string &err);

/// "check NAME vs AGAINST: max rel err 1.2e-03 (tol 2.0e-02) ok", plus the
/// worst element on failure.
std::string describeCheck(const std::string &name, const std::string &against,
                          const Comparison &c, double tolerance);

} // namespace mirage_run

#endif // MIRAGE_RUN_COMPARE_H
