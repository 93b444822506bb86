//===- Compare.cpp - Comparing outputs with expected values ---------------===//

#include "Compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

namespace mirage_run {

Comparison compareOutputs(const std::vector<double> &got,
                          const std::vector<double> &expected) {
  Comparison c;
  if (got.size() != expected.size()) {
    c.maxRelErr = INFINITY;
    return c;
  }
  double scale = 0, maxAbs = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], e = expected[i];
    double d = std::fabs(g - e);
    // A NaN or infinity on either side is a failure, never a pass: `d`
    // would be NaN, which compares false with everything, so test for it.
    if (!std::isfinite(g) || !std::isfinite(e))
      d = INFINITY;
    if (d > maxAbs) {
      maxAbs = d;
      c.worstIndex = i;
      c.worstGot = g;
      c.worstExpected = e;
    }
    if (std::isfinite(e))
      scale = std::max(scale, std::fabs(e));
  }
  scale = std::max(scale, double(std::numeric_limits<float>::min()));
  c.maxRelErr = maxAbs / scale;
  return c;
}

bool readExpected(const Buffer &b, std::vector<double> &out, std::string &err) {
  std::ifstream in(b.expectedPath, std::ios::binary);
  std::vector<float> raw(b.elements);
  if (!in || !in.read(reinterpret_cast<char *>(raw.data()),
                      std::streamsize(raw.size() * sizeof(float)))) {
    err = "cannot read " + std::to_string(b.elements) +
          " f32 values from the expected file " + b.expectedPath;
    return false;
  }
  out.assign(raw.begin(), raw.end());
  return true;
}

std::string describeCheck(const std::string &name, const std::string &against,
                          const Comparison &c, double tolerance) {
  char buf[512];
  bool ok = c.ok(tolerance);
  std::snprintf(buf, sizeof buf,
                "check %s vs %s: max rel err %.1e (tol %.1e) %s", name.c_str(),
                against.c_str(), c.maxRelErr, tolerance, ok ? "ok" : "FAILED");
  std::string s = buf;
  if (!ok) {
    std::snprintf(buf, sizeof buf, " (worst element %zu: got %.6g, expected %.6g)",
                  c.worstIndex, c.worstGot, c.worstExpected);
    s += buf;
  }
  return s;
}

} // namespace mirage_run
