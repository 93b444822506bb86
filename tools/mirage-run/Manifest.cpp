//===- Manifest.cpp - Loading and validating manifests --------------------===//

#include "Manifest.h"
#include "Files.h"
#include "Json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <set>

namespace mirage_run {

static const char *const kFormat = "mirage-run-manifest-1";

const char *roleName(Role r) {
  switch (r) {
  case Role::Input: return "input";
  case Role::Temp: return "temp";
  case Role::Output: return "output";
  }
  return "?";
}

uint64_t Manifest::inputBytes() const {
  uint64_t n = 0;
  for (size_t i : inputs) n += buffers[i].bytes;
  return n;
}

uint64_t Manifest::outputBytes() const {
  uint64_t n = 0;
  for (size_t i : outputs) n += buffers[i].bytes;
  return n;
}

std::string shapeString(const std::vector<uint64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {

std::string dirOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string resolve(const std::string &dir, const std::string &rel) {
  if ((!rel.empty() && rel[0] == '/') || dir == ".")
    return rel;
  return dir + "/" + rel;
}

/// Field accessors for one JSON object; each error names the object (`where`)
/// and the field. The first error is kept in `err`.
class Fields {
public:
  Fields(const JsonValue &obj, std::string where, std::string &err)
      : obj(obj), where(std::move(where)), err(err) {}

  bool fail(const std::string &what) {
    err = where.empty() ? what : where + ": " + what;
    return false;
  }

  /// Rejects keys outside `allowed`: a misspelt optional key (say
  /// "expectd") must not silently turn a check off.
  bool onlyKeys(std::initializer_list<const char *> allowed) {
    for (const auto &m : obj.members) {
      bool known = false;
      for (const char *a : allowed) known |= m.first == a;
      if (!known)
        return fail("unknown field \"" + m.first + "\"");
    }
    return true;
  }

  const JsonValue *field(const char *key, JsonValue::Kind kind, bool required) {
    const JsonValue *v = obj.get(key);
    if (!v) {
      if (required)
        fail(std::string("missing field \"") + key + "\"");
      return nullptr;
    }
    if (v->kind != kind) {
      fail(std::string("field \"") + key + "\" must be " + jsonKindName(kind) +
           ", not " + jsonKindName(v->kind));
      return nullptr;
    }
    return v;
  }

  bool has(const char *key) const { return obj.get(key) != nullptr; }

  bool str(const char *key, std::string &out, bool required = true) {
    const JsonValue *v = field(key, JsonValue::String, required);
    if (!v)
      return !required && !obj.get(key);
    if (v->text.empty())
      return fail(std::string("field \"") + key + "\" is empty");
    out = v->text;
    return true;
  }

  bool uint(const char *key, uint64_t &out, uint64_t max) {
    const JsonValue *v = field(key, JsonValue::Number, true);
    return v && uintValue(*v, key, out, max);
  }

  bool uintValue(const JsonValue &v, const std::string &what, uint64_t &out,
                 uint64_t max) {
    if (v.kind != JsonValue::Number || !v.asUInt64(out))
      return fail(what + " must be a non-negative integer");
    if (out > max)
      return fail(what + " is " + std::to_string(out) + ", more than " +
                  std::to_string(max));
    return true;
  }

  /// An array of exactly `n` (or, with n == 0, at least one) integers in
  /// [min, max].
  bool uintArray(const char *key, size_t n, uint64_t min, uint64_t max,
                 std::vector<uint64_t> &out) {
    const JsonValue *v = field(key, JsonValue::Array, true);
    if (!v)
      return false;
    if (n ? v->items.size() != n : v->items.empty())
      return fail(std::string("field \"") + key + "\" must have " +
                  (n ? std::to_string(n) : std::string("at least one")) +
                  " element" + (n == 1 ? "" : "s"));
    out.clear();
    for (size_t i = 0; i < v->items.size(); ++i) {
      uint64_t x;
      std::string what = std::string(key) + "[" + std::to_string(i) + "]";
      if (!uintValue(v->items[i], what, x, max))
        return false;
      if (x < min)
        return fail(what + " must be at least " + std::to_string(min));
      out.push_back(x);
    }
    return true;
  }

private:
  const JsonValue &obj;
  std::string where;
  std::string &err;
};

std::string quoted(const std::string &s) { return "\"" + s + "\""; }

/// Names entry `index` of list `list` for diagnostics, as `list[i]` or
/// `list[i] ("name")`; fails (with `err`) unless the entry is an object.
bool entryWhere(const JsonValue &v, const char *list, size_t index,
                std::string &where, std::string &err) {
  where = std::string(list) + "[" + std::to_string(index) + "]";
  if (v.kind != JsonValue::Object) {
    err = where + ": must be an object";
    return false;
  }
  if (const JsonValue *n = v.get("name"); n && n->kind == JsonValue::String)
    where += " (" + quoted(n->text) + ")";
  return true;
}

bool parseBuffer(const JsonValue &v, size_t index, const std::string &dir,
                 Buffer &b, std::string &err) {
  std::string where;
  if (!entryWhere(v, "buffers", index, where, err))
    return false;
  Fields f(v, where, err);
  if (!f.onlyKeys({"name", "role", "dtype", "shape", "input_index",
                   "output_index", "expected"}))
    return false;
  std::string role, dtype;
  if (!f.str("name", b.name) || !f.str("role", role) || !f.str("dtype", dtype))
    return false;
  if (role == "input") b.role = Role::Input;
  else if (role == "temp") b.role = Role::Temp;
  else if (role == "output") b.role = Role::Output;
  else return f.fail("unknown role " + quoted(role) + " (expected input, temp or output)");
  if (!parseDType(dtype, b.dtype))
    return f.fail("unknown dtype " + quoted(dtype) +
                  " (expected f16, bf16, f32 or i32)");
  if (b.dtype == DType::I32 && b.role != Role::Temp)
    return f.fail("an i32 buffer holds counters: its role must be temp");

  // Every extent at least 1; at most 8 dimensions and 2^40 elements, which no
  // real graph reaches and which keeps every byte count far from overflow.
  const uint64_t kMaxElements = 1ull << 40;
  if (!f.uintArray("shape", 0, 1, kMaxElements, b.shape))
    return false;
  if (b.shape.size() > 8)
    return f.fail("shape has more than 8 dimensions");
  b.elements = 1;
  for (uint64_t d : b.shape) {
    if (d > kMaxElements / b.elements)
      return f.fail("shape " + shapeString(b.shape) + " has more than 2^40 elements");
    b.elements *= d;
  }
  b.bytes = b.elements * dtypeSize(b.dtype);

  const char *indexKey = b.role == Role::Input ? "input_index"
                         : b.role == Role::Output ? "output_index" : nullptr;
  for (const char *k : {"input_index", "output_index"})
    if (f.has(k) && (!indexKey || std::strcmp(k, indexKey) != 0))
      return f.fail(std::string("a ") + roleName(b.role) + " buffer has no \"" + k + "\"");
  if (indexKey) {
    uint64_t idx;
    if (!f.uint(indexKey, idx, 1u << 16))
      return false;
    b.ioIndex = int(idx);
  }

  if (f.has("expected")) {
    if (b.role != Role::Output)
      return f.fail("only an output buffer has \"expected\"");
    if (!f.str("expected", b.expected))
      return false;
    b.expectedPath = resolve(dir, b.expected);
    uint64_t size = 0;
    std::string why;
    if (!regularFileSize(b.expectedPath, size, why))
      return f.fail("cannot open expected file " + b.expectedPath + ": " + why);
    if (size != b.elements * 4)
      return f.fail("expected file " + b.expectedPath + " has " +
                    std::to_string(size) + " bytes, not " +
                    std::to_string(b.elements * 4) + " (" +
                    std::to_string(b.elements) + " f32 values)");
  }
  return true;
}

bool parseKernel(const JsonValue &v, size_t index, size_t numBuffers, Kernel &k,
                 std::string &err) {
  std::string where;
  if (!entryWhere(v, "kernels", index, where, err))
    return false;
  Fields f(v, where, err);
  if (!f.onlyKeys({"name", "grid", "block", "dynamic_shared_bytes",
                   "static_shared_bytes", "args", "plan", "waits_on_previous"}))
    return false;
  if (f.has("waits_on_previous")) {
    const JsonValue *w = f.field("waits_on_previous", JsonValue::Bool, true);
    if (!w)
      return false;
    if (index == 0 && w->boolean)
      return f.fail("the first kernel has no previous kernel to wait on");
    k.waitsOnPrevious = w->boolean;
  }
  // The launch plan the code generator emitted the kernel by
  // (docs/Rationale/LaunchPlan.md): read by the audit
  // (bench/kernel_audit.sh), not needed to launch; only its shape is checked.
  if (f.has("plan") && !f.field("plan", JsonValue::Object, true))
    return false;
  if (!f.str("name", k.name))
    return false;
  // Whether they fit the chip is checkLaunches' business (LaunchCheck.h);
  // here they only have to be what cuLaunchKernel takes.
  std::vector<uint64_t> grid, block, args;
  if (!f.uintArray("grid", 3, 1, 0xffffffffu, grid) ||
      !f.uintArray("block", 3, 1, 0xffffffffu, block))
    return false;
  for (int i = 0; i < 3; ++i)
    k.grid[i] = unsigned(grid[i]), k.block[i] = unsigned(block[i]);
  uint64_t smem;
  if (!f.uint("dynamic_shared_bytes", smem, 0xffffffffu))
    return false;
  k.dynamicSharedBytes = unsigned(smem);
  if (f.has("static_shared_bytes")) {
    if (!f.uint("static_shared_bytes", smem, 0xffffffffu))
      return false;
    k.staticSharedBytes = unsigned(smem);
  }

  const JsonValue *a = f.field("args", JsonValue::Array, true);
  if (!a)
    return false;
  for (size_t i = 0; i < a->items.size(); ++i) {
    uint64_t x;
    std::string what = "args[" + std::to_string(i) + "]";
    if (!f.uintValue(a->items[i], what, x, ~0ull))
      return false;
    if (x >= numBuffers)
      return f.fail(what + " is " + std::to_string(x) +
                    ", out of range: the manifest has " +
                    std::to_string(numBuffers) + " buffers");
    k.args.push_back(size_t(x));
  }
  return true;
}

/// Every input_index (or output_index) from 0 to n-1 exactly once; `slots`
/// maps index to buffer.
bool collectIndices(const std::vector<Buffer> &buffers, Role role,
                    std::vector<size_t> &slots, std::string &err) {
  const char *key = role == Role::Input ? "input_index" : "output_index";
  size_t n = 0;
  for (const Buffer &b : buffers) n += b.role == role;
  slots.assign(n, ~size_t(0));
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer &b = buffers[i];
    if (b.role != role)
      continue;
    if (size_t(b.ioIndex) >= n) {
      err = "buffer " + quoted(b.name) + ": " + key + " " +
            std::to_string(b.ioIndex) + " out of range: there are " +
            std::to_string(n) + " " + roleName(role) + "s";
      return false;
    }
    if (slots[b.ioIndex] != ~size_t(0)) {
      err = "buffers " + quoted(buffers[slots[b.ioIndex]].name) + " and " +
            quoted(b.name) + " have the same " + key + " " +
            std::to_string(b.ioIndex);
      return false;
    }
    slots[b.ioIndex] = i;
  }
  return true;
}

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/// Checks that the PTX defines `.entry <k.name>` and that every parameter is
/// 64 bits wide and there is one per argument: the bare-pointer ABI. A
/// mismatch here would otherwise surface as a wrong result or a fault.
bool checkEntry(const std::string &ptx, const Kernel &k, std::string &err) {
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string::npos) {
    size_t p = pos + 6;
    pos = p;
    if (p >= ptx.size() || !(ptx[p] == ' ' || ptx[p] == '\t' || ptx[p] == '\n'))
      continue;
    while (p < ptx.size() && std::isspace((unsigned char)ptx[p])) ++p;
    size_t nameEnd = p;
    while (nameEnd < ptx.size() && isIdentChar(ptx[nameEnd])) ++nameEnd;
    if (ptx.compare(p, nameEnd - p, k.name) != 0 || nameEnd - p != k.name.size())
      continue;
    p = nameEnd;
    while (p < ptx.size() && std::isspace((unsigned char)ptx[p])) ++p;
    std::vector<std::string> params;
    if (p < ptx.size() && ptx[p] == '(') {
      size_t close = ptx.find(')', p);
      if (close == std::string::npos) {
        err = "PTX entry " + quoted(k.name) + " has an unterminated parameter list";
        return false;
      }
      std::string list = ptx.substr(p + 1, close - p - 1);
      size_t q = 0;
      while ((q = list.find(".param", q)) != std::string::npos) {
        size_t end = list.find(',', q);
        params.push_back(list.substr(q, end == std::string::npos ? end : end - q));
        q += 6;
      }
    }
    if (params.size() != k.args.size()) {
      err = "kernel " + quoted(k.name) + ": the PTX entry takes " +
            std::to_string(params.size()) + " parameters but the manifest passes " +
            std::to_string(k.args.size()) + " buffers";
      return false;
    }
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string &d = params[i];
      if (d.find(".u64") == std::string::npos && d.find(".b64") == std::string::npos &&
          d.find(".s64") == std::string::npos) {
        err = "kernel " + quoted(k.name) + ": PTX parameter " + std::to_string(i) +
              " is not a 64-bit pointer: " + d;
        return false;
      }
    }
    return true;
  }
  err = "kernel " + quoted(k.name) + ": no `.entry " + k.name + "` in the PTX";
  return false;
}

} // namespace

bool loadManifest(const std::string &path, Manifest &m, std::string &err) {
  m = Manifest();
  m.path = path;
  std::string text, why;
  if (!readRegularFile(path, kMaxManifestBytes, text, why)) {
    err = path + ": cannot read the manifest: " + why;
    return false;
  }
  JsonValue root;
  std::string jerr;
  if (!parseJson(text, root, jerr)) {
    err = path + ": invalid JSON: " + jerr;
    return false;
  }
  err.clear();
  auto bad = [&]() {
    err = path + ": " + err;
    return false;
  };
  if (root.kind != JsonValue::Object) {
    err = "the manifest must be a JSON object";
    return bad();
  }
  Fields f(root, "", err);
  std::string format;
  if (!f.str("format", format))
    return bad();
  if (format != kFormat) {
    f.fail("unknown format " + quoted(format) + " (this mirage-run reads " +
           quoted(kFormat) + ")");
    return bad();
  }
  if (!f.onlyKeys({"format", "graph", "reference", "chip", "ptx", "seed",
                   "tolerance", "buffers", "kernels"}) ||
      !f.str("graph", m.graph) || !f.str("reference", m.reference, false) ||
      !f.str("chip", m.chip) || !f.str("ptx", m.ptx) ||
      !f.uint("seed", m.seed, ~0ull))
    return bad();
  const JsonValue *tol = f.field("tolerance", JsonValue::Number, true);
  if (!tol)
    return bad();
  m.tolerance = tol->number;
  if (!(m.tolerance >= 0) || !std::isfinite(m.tolerance)) {
    f.fail("tolerance must be a finite non-negative number");
    return bad();
  }

  const std::string dir = dirOf(path);
  const JsonValue *buffers = f.field("buffers", JsonValue::Array, true);
  if (!buffers)
    return bad();
  if (buffers->items.empty()) {
    f.fail("no buffers");
    return bad();
  }
  std::set<std::string> names;
  for (size_t i = 0; i < buffers->items.size(); ++i) {
    m.buffers.emplace_back();
    if (!parseBuffer(buffers->items[i], i, dir, m.buffers.back(), err))
      return bad();
    if (!names.insert(m.buffers.back().name).second) {
      err = "two buffers are named " + quoted(m.buffers.back().name);
      return bad();
    }
  }
  if (!collectIndices(m.buffers, Role::Input, m.inputs, err) ||
      !collectIndices(m.buffers, Role::Output, m.outputs, err))
    return bad();
  if (m.outputs.empty()) {
    err = "the graph has no output buffer";
    return bad();
  }

  const JsonValue *kernels = f.field("kernels", JsonValue::Array, true);
  if (!kernels)
    return bad();
  if (kernels->items.empty()) {
    f.fail("no kernels");
    return bad();
  }
  std::vector<bool> used(m.buffers.size(), false);
  for (size_t i = 0; i < kernels->items.size(); ++i) {
    m.kernels.emplace_back();
    if (!parseKernel(kernels->items[i], i, m.buffers.size(), m.kernels.back(), err))
      return bad();
    for (size_t a : m.kernels.back().args) used[a] = true;
  }
  for (size_t o : m.outputs)
    if (!used[o]) {
      err = "output " + quoted(m.buffers[o].name) + " is not passed to any kernel";
      return bad();
    }

  m.ptxPath = resolve(dir, m.ptx);
  if (!readRegularFile(m.ptxPath, kMaxPtxBytes, m.ptxText, why)) {
    err = "cannot read the PTX file " + m.ptxPath + ": " + why;
    return bad();
  }
  // The driver takes the PTX as one NUL-terminated string.
  if (m.ptxText.empty() || m.ptxText.find('\0') != std::string::npos) {
    err = "the PTX file " + m.ptxPath + " is empty or contains a NUL byte";
    return bad();
  }
  for (const Kernel &k : m.kernels)
    if (!checkEntry(m.ptxText, k, err)) {
      err = m.ptxPath + ": " + err;
      return bad();
    }
  return true;
}

bool checkReferenceCompatible(const Manifest &m, const Manifest &ref,
                              std::string &err) {
  auto mismatch = [&](const std::string &what) {
    err = "reference " + ref.path + " does not match " + m.path + ": " + what;
    return false;
  };
  if (ref.inputs.size() != m.inputs.size())
    return mismatch(std::to_string(ref.inputs.size()) + " inputs, not " +
                    std::to_string(m.inputs.size()));
  if (ref.outputs.size() != m.outputs.size())
    return mismatch(std::to_string(ref.outputs.size()) + " outputs, not " +
                    std::to_string(m.outputs.size()));
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const Buffer &a = m.buffers[m.inputs[i]], &b = ref.buffers[ref.inputs[i]];
    if (a.dtype != b.dtype || a.shape != b.shape)
      return mismatch("input_index " + std::to_string(i) + " is " +
                      dtypeName(b.dtype) + " " + shapeString(b.shape) +
                      " there, " + dtypeName(a.dtype) + " " + shapeString(a.shape) +
                      " here");
  }
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    const Buffer &a = m.buffers[m.outputs[i]], &b = ref.buffers[ref.outputs[i]];
    if (a.shape != b.shape)
      return mismatch("output_index " + std::to_string(i) + " has shape " +
                      shapeString(b.shape) + " there, " + shapeString(a.shape) +
                      " here");
  }
  return true;
}

void printPlan(const Manifest &m, FILE *out) {
  std::fprintf(out, "graph %s", m.graph.c_str());
  if (!m.reference.empty())
    std::fprintf(out, " (reference %s)", m.reference.c_str());
  std::fprintf(out, ", chip %s, seed %llu, tolerance %.1e\n", m.chip.c_str(),
               (unsigned long long)m.seed, m.tolerance);
  std::fprintf(out, "ptx %s (%zu bytes)\n", m.ptxPath.c_str(), m.ptxText.size());

  size_t nameWidth = 4, shapeWidth = 5;
  for (const Buffer &b : m.buffers) {
    nameWidth = std::max(nameWidth, b.name.size());
    shapeWidth = std::max(shapeWidth, shapeString(b.shape).size());
  }
  std::fprintf(out, "buffers:\n");
  for (const Buffer &b : m.buffers) {
    std::fprintf(out, "  %-*s  %-6s  %-4s  %-*s  %12llu bytes", int(nameWidth),
                 b.name.c_str(), roleName(b.role), dtypeName(b.dtype),
                 int(shapeWidth), shapeString(b.shape).c_str(),
                 (unsigned long long)b.bytes);
    if (b.role == Role::Input)
      std::fprintf(out, "  input_index %d", b.ioIndex);
    if (b.role == Role::Output)
      std::fprintf(out, "  output_index %d", b.ioIndex);
    if (!b.expected.empty())
      std::fprintf(out, "  expected %s", b.expected.c_str());
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "kernels:\n");
  for (const Kernel &k : m.kernels) {
    std::fprintf(out,
                 "  %s  grid [%u, %u, %u]  block [%u, %u, %u]  "
                 "dynamic_shared_bytes %u  args (",
                 k.name.c_str(), k.grid[0], k.grid[1], k.grid[2], k.block[0],
                 k.block[1], k.block[2], k.dynamicSharedBytes);
    for (size_t i = 0; i < k.args.size(); ++i)
      std::fprintf(out, "%s%s", i ? ", " : "", m.buffers[k.args[i]].name.c_str());
    std::fprintf(out, ")%s\n",
                 k.waitsOnPrevious ? "  waits on the previous kernel" : "");
  }
  std::fprintf(out, "bytes read+written: %llu (inputs %llu + outputs %llu)\n",
               (unsigned long long)m.bytesMoved(),
               (unsigned long long)m.inputBytes(),
               (unsigned long long)m.outputBytes());
}

} // namespace mirage_run
