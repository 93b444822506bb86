//===- main.cpp - mirage-run: run one kernel graph's PTX on a GPU ---------===//
//
//   mirage-run MANIFEST [--reference REF_MANIFEST] [--seed N] [--warmup N]
//              [--iters N] [--no-flush-l2] [--no-dependent-launch]
//              [--per-kernel] [--dry-run] [--json]
//   mirage-run --self-test
//
// Loads the PTX a manifest names with the CUDA driver, fills the inputs with
// SeededValues, runs the kernels once and checks the outputs (against the
// manifest's expected files and/or a reference graph run on the same
// inputs), then times the kernel sequence and compares its effective
// bandwidth with the device's copy bandwidth. See README.md.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "CudaDriver.h"
#include "DType.h"
#include "LaunchCheck.h"
#include "Manifest.h"
#include "Runner.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace mirage_run;

namespace {

const char *const kUsage =
    "usage: mirage-run MANIFEST [--reference REF_MANIFEST] [--seed N]\n"
    "                  [--warmup N] [--iters N] [--no-flush-l2]\n"
    "                  [--no-dependent-launch] [--per-kernel] [--dry-run]\n"
    "                  [--json]\n"
    "       mirage-run --self-test\n"
    "Runs the kernels of one kernel graph (a mirage-run-manifest-1 JSON file\n"
    "beside its PTX) with the CUDA driver, checks its outputs and times it.\n"
    "  --reference M  also run manifest M on the same inputs and compare outputs\n"
    "  --seed N       input seed (default: the manifest's; expected files are\n"
    "                 only checked under the manifest's seed)\n"
    "  --warmup N     untimed runs before timing (default 10)\n"
    "  --iters N      timed runs; the median is reported (default 100)\n"
    "  --no-flush-l2  do not evict L2 between timed runs\n"
    "  --no-dependent-launch\n"
    "                 launch every kernel plainly, also those the manifest\n"
    "                 marks waits_on_previous (to time the launch gap)\n"
    "  --per-kernel   also time each kernel alone, plainly launched, after the\n"
    "                 same L2 flush (what bench/gpu/calibrate.py fits the cost\n"
    "                 model to)\n"
    "  --dry-run      validate the manifest(s) and print the plan; needs no GPU\n"
    "  --json         print the results as one JSON line on stdout (the rest\n"
    "                 goes to stderr)\n"
    "  --self-test    check the f16/bf16 conversions and exit\n"
    "Exit status: 0 ok, 1 check failed, 2 bad input, 3 no CUDA driver or\n"
    "device, 4 CUDA error.\n";

struct Options {
  std::string manifest, reference;
  bool haveSeed = false;
  uint64_t seed = 0;
  long warmup = 10, iters = 100;
  bool dryRun = false, json = false, flushL2 = true, selfTest = false;
  bool dependentLaunch = true;
  bool perKernel = false;
};

[[noreturn]] void usageError(const std::string &what) {
  std::fprintf(stderr, "mirage-run: %s\n%s", what.c_str(), kUsage);
  std::exit(kExitBadInput);
}

bool parseUInt(const std::string &s, uint64_t &out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  errno = 0;
  out = std::strtoull(s.c_str(), nullptr, 10);
  return errno != ERANGE;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // "--opt=value" and "--opt value" both work for options with a value.
    std::string value;
    bool inlineValue = false;
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inlineValue = true;
    }
    auto takeValue = [&]() -> std::string {
      if (inlineValue)
        return value;
      if (i + 1 >= argc)
        usageError(arg + " needs a value");
      return argv[++i];
    };
    auto takeCount = [&](long min, long max) -> long {
      std::string v = takeValue();
      uint64_t n;
      if (!parseUInt(v, n) || n < uint64_t(min) || n > uint64_t(max))
        usageError(arg + " needs an integer from " + std::to_string(min) +
                   " to " + std::to_string(max) + ", not '" + v + "'");
      return long(n);
    };
    auto noValue = [&]() {
      if (inlineValue)
        usageError(arg + " takes no value");
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(kExitOk);
    } else if (arg == "--reference") {
      o.reference = takeValue();
    } else if (arg == "--seed") {
      std::string v = takeValue();
      if (!parseUInt(v, o.seed))
        usageError("--seed needs a non-negative integer, not '" + v + "'");
      o.haveSeed = true;
    } else if (arg == "--warmup") {
      o.warmup = takeCount(0, 1000000);
    } else if (arg == "--iters") {
      o.iters = takeCount(1, 1000000);
    } else if (arg == "--dry-run") {
      noValue(), o.dryRun = true;
    } else if (arg == "--json") {
      noValue(), o.json = true;
    } else if (arg == "--no-flush-l2") {
      noValue(), o.flushL2 = false;
    } else if (arg == "--no-dependent-launch") {
      noValue(), o.dependentLaunch = false;
    } else if (arg == "--per-kernel") {
      noValue(), o.perKernel = true;
    } else if (arg == "--self-test") {
      noValue(), o.selfTest = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      usageError("unknown option " + arg);
    } else if (o.manifest.empty()) {
      o.manifest = arg;
    } else {
      usageError("more than one manifest given ('" + o.manifest + "', '" + arg + "')");
    }
  }
  if (!o.selfTest && o.manifest.empty())
    usageError("no manifest given");
  return o;
}

/// Builds the one-line JSON result for --json.
class JsonLine {
public:
  JsonLine &str(const char *key, const std::string &v) {
    return raw(key, quote(v));
  }
  JsonLine &num(const char *key, double v) {
    char buf[64];
    // JSON has no NaN or infinity; such a value reads as null.
    if (v != v || v - v != 0)
      return raw(key, "null");
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return raw(key, buf);
  }
  JsonLine &integer(const char *key, unsigned long long v) {
    return raw(key, std::to_string(v));
  }
  JsonLine &boolean(const char *key, bool v) { return raw(key, v ? "true" : "false"); }
  JsonLine &raw(const char *key, const std::string &json) {
    text += (text.empty() ? "{" : ",") + quote(key) + ":" + json;
    return *this;
  }
  std::string done() const { return (text.empty() ? "{" : text) + "}"; }

  static std::string quote(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += char(c);
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c);
      }
    }
    return out + "\"";
  }

private:
  std::string text;
};

/// The compute capability in a chip name like "sm_90" or "sm_90a", or -1.
int chipCapability(const std::string &chip) {
  if (chip.rfind("sm_", 0) != 0)
    return -1;
  int v = 0, digits = 0;
  for (size_t i = 3; i < chip.size() && chip[i] >= '0' && chip[i] <= '9'; ++i, ++digits)
    v = v * 10 + (chip[i] - '0');
  return digits ? v : -1;
}

struct CheckRecord {
  std::string output, against;
  Comparison c;
  bool ok;
};

} // namespace

static int run(int argc, char **argv) {
  Options opt = parseOptions(argc, argv);

  if (opt.selfTest) {
    int failures = selfTestDTypes();
    std::printf("mirage-run self-test: %s\n", failures ? "FAILED" : "ok");
    return failures ? kExitCheckFailed : kExitOk;
  }

  // Everything that can be checked without a GPU, first.
  Manifest m, ref;
  std::string err;
  if (!loadManifest(opt.manifest, m, err) ||
      (!opt.reference.empty() &&
       (!loadManifest(opt.reference, ref, err) || !checkReferenceCompatible(m, ref, err)))) {
    std::fprintf(stderr, "mirage-run: %s\n", err.c_str());
    return kExitBadInput;
  }
  const bool haveRef = !opt.reference.empty();
  const uint64_t seed = opt.haveSeed ? opt.seed : m.seed;
  // Plain launches throughout: the waits then do nothing (Lowering.md,
  // "Programmatic dependent launch").
  if (!opt.dependentLaunch)
    for (Manifest *mm : {&m, &ref})
      for (Kernel &k : mm->kernels)
        k.waitsOnPrevious = false;

  // Kernels that cannot launch on the manifest's chip are refused on this
  // machine, not found out on the GPU one; ptxas, slower, only runs for
  // --dry-run, which is where manifests are vetted.
  auto report = [](const Manifest &mm, const LaunchCheck &check) {
    for (const std::string &w : check.warnings)
      std::fprintf(stderr, "mirage-run: warning: %s: %s\n", mm.path.c_str(), w.c_str());
    for (const std::string &r : check.refusals)
      std::fprintf(stderr, "mirage-run: %s: %s\n", mm.path.c_str(), r.c_str());
    return check.refusals.empty();
  };
  LaunchCheck launch = checkLaunches(m, opt.dryRun), refLaunch;
  bool launchable = report(m, launch);
  if (haveRef) {
    refLaunch = checkLaunches(ref, opt.dryRun);
    launchable &= report(ref, refLaunch);
  }
  if (!launchable)
    return kExitBadInput;

  if (opt.dryRun) {
    std::printf("manifest %s\n", m.path.c_str());
    printPlan(m, stdout);
    printLaunchPlan(m, launch, stdout);
    if (haveRef) {
      std::printf("reference manifest %s\n", ref.path.c_str());
      printPlan(ref, stdout);
      printLaunchPlan(ref, refLaunch, stdout);
      std::printf("reference matches: %zu inputs, %zu outputs\n", m.inputs.size(),
                  m.outputs.size());
    }
    std::printf("dry run: seed %llu, %ld warm-up and %ld timed runs%s%s; nothing launched\n",
                (unsigned long long)seed, opt.warmup, opt.iters,
                opt.flushL2 ? ", L2 flushed before each" : "",
                opt.perKernel ? ", then each kernel alone" : "");
    return kExitOk;
  }

  // With --json, stdout carries only the JSON line; the rest goes to stderr.
  FILE *info = opt.json ? stderr : stdout;

  Driver d;
  if (!d.load(err)) {
    std::fprintf(stderr, "mirage-run: %s\n", err.c_str());
    return kExitNoDriver;
  }
  DeviceInfo dev;
  if (int rc = openDevice(d, dev, err)) {
    std::fprintf(stderr, "mirage-run: %s\n", err.c_str());
    return rc;
  }
  const std::string devCC = "sm_" + std::to_string(dev.ccMajor * 10 + dev.ccMinor);
  std::fprintf(info, "device: %s (%s, %d SMs, %d MiB L2)\n", dev.name.c_str(),
               devCC.c_str(), dev.smCount, dev.l2Bytes >> 20);
  // PTX for a newer architecture will not JIT here; say why before the
  // driver's terser error.
  int cc = chipCapability(m.chip);
  if (cc > dev.ccMajor * 10 + dev.ccMinor)
    std::fprintf(stderr, "mirage-run: warning: PTX for %s may not load on this %s device\n",
                 m.chip.c_str(), devCC.c_str());
  std::fprintf(info, "graph: %s, %zu kernel%s, %llu bytes read+written, seed %llu\n",
               m.graph.c_str(), m.kernels.size(), m.kernels.size() == 1 ? "" : "s",
               (unsigned long long)m.bytesMoved(), (unsigned long long)seed);

  std::vector<CheckRecord> checks;
  auto record = [&](const std::string &output, const std::string &against,
                    const Comparison &c) {
    bool ok = c.ok(m.tolerance);
    checks.push_back({output, against, c, ok});
    std::fprintf(info, "%s\n", describeCheck(output, against, c, m.tolerance).c_str());
  };
  // Checks every output of `run` that has an expected file.
  auto checkExpected = [&](const GraphRun &run, const std::string &prefix,
                           std::vector<std::vector<double>> &outs) {
    const Manifest &mm = run.manifest();
    for (size_t o = 0; o < mm.outputs.size(); ++o) {
      const Buffer &b = mm.buffers[mm.outputs[o]];
      if (b.expected.empty())
        continue;
      if (seed != mm.seed) {
        std::fprintf(info, "check %s%s vs expected: skipped (seed %llu, expected values are for seed %llu)\n",
                     prefix.c_str(), b.name.c_str(), (unsigned long long)seed,
                     (unsigned long long)mm.seed);
        continue;
      }
      std::vector<double> want;
      if (!readExpected(b, want, err)) {
        std::fprintf(stderr, "mirage-run: %s\n", err.c_str());
        std::exit(kExitBadInput);
      }
      record(prefix + b.name, "expected", compareOutputs(outs[o], want));
    }
  };

  auto run = std::make_unique<GraphRun>(d, m);
  run->load();
  run->allocate(seed);
  run->enqueue();
  run->synchronize();
  std::vector<std::vector<double>> outs;
  for (size_t o = 0; o < m.outputs.size(); ++o)
    outs.push_back(run->readOutput(o));
  checkExpected(*run, "", outs);

  if (haveRef) {
    GraphRun refRun(d, ref);
    refRun.load();
    refRun.allocate(seed, run.get());
    refRun.enqueue();
    refRun.synchronize();
    std::vector<std::vector<double>> refOuts;
    for (size_t o = 0; o < ref.outputs.size(); ++o)
      refOuts.push_back(refRun.readOutput(o));
    for (size_t o = 0; o < m.outputs.size(); ++o)
      record(m.buffers[m.outputs[o]].name, ref.graph, compareOutputs(outs[o], refOuts[o]));
    // The reference's own expected files tell which side is wrong when the
    // comparison above fails.
    checkExpected(refRun, "reference ", refOuts);
  } // the reference's buffers are freed before timing
  if (checks.empty())
    std::fprintf(info, "no checks ran: no expected values for this seed and no --reference\n");

  bool allOk = true;
  for (const CheckRecord &c : checks) allOk &= c.ok;

  JsonLine json;
  json.str("graph", m.graph).str("manifest", m.path);
  if (haveRef)
    json.str("reference", ref.graph);
  json.str("device", dev.name).str("device_arch", devCC).str("chip", m.chip);
  // The machine's size, for calibrate.py's per-SM rates (CalibrationProbes.md).
  json.integer("sms", static_cast<unsigned long long>(dev.smCount));
  json.integer("l2_bytes", static_cast<unsigned long long>(dev.l2Bytes));
  json.integer("kernels", m.kernels.size()).integer("bytes", m.bytesMoved());
  json.integer("seed", seed);
  std::string checksJson = "[";
  for (size_t i = 0; i < checks.size(); ++i) {
    JsonLine c;
    c.str("output", checks[i].output).str("against", checks[i].against);
    c.num("max_rel_err", checks[i].c.maxRelErr).num("tol", m.tolerance);
    c.boolean("ok", checks[i].ok);
    checksJson += (i ? "," : "") + c.done();
  }
  json.raw("checks", checksJson + "]");

  if (!allOk) {
    std::fprintf(info, "check FAILED: timing skipped\n");
    if (opt.json)
      std::printf("%s\n", json.boolean("ok", false).done().c_str());
    return kExitCheckFailed;
  }

  Timing t = timeRuns(d, dev, [&] { run->enqueue(); }, int(opt.warmup),
                      int(opt.iters), opt.flushL2);
  // Each kernel alone: its own launch, its inputs from DRAM; the sum of
  // these against the sequence's median is the gap between launches.
  std::vector<Timing> perKernel;
  if (opt.perKernel)
    for (size_t i = 0; i < m.kernels.size(); ++i)
      perKernel.push_back(timeRuns(
          d, dev, [&] { run->enqueueKernel(i, /*dependent=*/false); },
          int(opt.warmup), int(opt.iters), opt.flushL2));
  run.reset(); // free the graph's buffers before the 2 GiB of copy buffers
  uint64_t copyBytes = 0;
  double copyGBs = measureCopyBandwidth(d, copyBytes);
  const double median = t.median();
  const double gbs = double(m.bytesMoved()) / (median * 1e-6) / 1e9;
  const double pct = 100.0 * gbs / copyGBs;

  std::fprintf(info, "timing: %ld warm-up, %ld timed runs%s\n", opt.warmup, opt.iters,
               opt.flushL2 ? ", L2 flushed before each" : "");
  std::fprintf(info, "  %-22s %10.2f us\n", "median", median);
  std::fprintf(info, "  %-22s %10.2f us\n", "min", t.min());
  std::fprintf(info, "  %-22s %10.1f GB/s\n", "read+written / median", gbs);
  std::fprintf(info, "  %-22s %10.1f GB/s (cuMemcpyDtoD, %llu MiB)\n", "copy bandwidth",
               copyGBs, (unsigned long long)(copyBytes >> 20));
  std::fprintf(info, "  %-22s %10.1f %%\n", "of copy bandwidth", pct);
  for (size_t i = 0; i < perKernel.size(); ++i)
    std::fprintf(info, "  kernel %-15s %10.2f us (alone; min %.2f)\n",
                 m.kernels[i].name.c_str(), perKernel[i].median(),
                 perKernel[i].min());

  if (opt.json) {
    json.integer("warmup", opt.warmup).integer("iters", opt.iters);
    json.boolean("l2_flush", opt.flushL2);
    json.boolean("dependent_launch", opt.dependentLaunch);
    json.num("median_us", median).num("min_us", t.min()).num("gbps", gbs);
    json.num("copy_gbps", copyGBs).num("copy_pct", pct);
    if (opt.perKernel) {
      std::string kernels = "[";
      for (size_t i = 0; i < perKernel.size(); ++i) {
        JsonLine k;
        k.str("name", m.kernels[i].name);
        k.num("median_us", perKernel[i].median()).num("min_us", perKernel[i].min());
        kernels += (i ? "," : "") + k.done();
      }
      json.raw("kernel_times", kernels + "]");
    }
    json.boolean("ok", true);
    std::printf("%s\n", json.done().c_str());
  }
  d.cuCtxDestroy(dev.context);
  return kExitOk;
}

int main(int argc, char **argv) {
#if defined(__cpp_exceptions)
  // Host buffers are sized by the manifest (up to 2^40 elements): a failed
  // allocation is reported as such, not as an abort or as a bad input.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "mirage-run: out of memory\n");
    return kExitOutOfMemory;
  }
#else
  return run(argc, argv);
#endif
}
