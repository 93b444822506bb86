//===- CanonicalHash.cpp - Canonical 128-bit hash of a μGraph -------------===//
#include "Mirage/Search/CanonicalHash.h"

#include "Mirage/Semantics/OpKinds.h"
#include "Mirage/Semantics/Target.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <cstring>

using namespace mirage;

std::string Hash128::toHex() const {
  static const char digits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[15 - i] = digits[(hi >> (4 * i)) & 0xf];
    s[31 - i] = digits[(lo >> (4 * i)) & 0xf];
  }
  return s;
}

bool Hash128::fromHex(llvm::StringRef s, Hash128 &out) {
  if (s.size() != 32)
    return false;
  uint64_t parts[2] = {0, 0};
  for (size_t i = 0; i < 32; ++i) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    parts[i / 16] = (parts[i / 16] << 4) | d;
  }
  out.hi = parts[0];
  out.lo = parts[1];
  return true;
}

namespace {
/// A byte stream with a fixed, platform-independent encoding: integers are
/// little-endian of a fixed width, strings and lists length-prefixed.
class Encoder {
public:
  void u8(uint8_t v) { buf.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      buf.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      buf.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v) {
    if (v == 0)
      v = 0; // -0.0 and +0.0 alike
    uint64_t bits;
    if (std::isnan(v))
      bits = 0x7ff8000000000000ULL;
    else
      std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void str(llvm::StringRef s) {
    u64(s.size());
    buf.insert(buf.end(), s.bytes_begin(), s.bytes_end());
  }
  void shape(llvm::ArrayRef<int64_t> s) {
    u32(static_cast<uint32_t>(s.size()));
    for (int64_t d : s)
      i64(d);
  }
  void hash(const Hash128 &h) {
    u64(h.hi);
    u64(h.lo);
  }
  Hash128 finish() const {
    llvm::XXH128_hash_t h = llvm::xxh3_128bits(buf);
    return Hash128{h.high64, h.low64};
  }

private:
  std::vector<uint8_t> buf;
};

/// Encodes what identifies op `op` apart from its operands: kind, sub-kind,
/// the attributes the kind uses, result types, nested graphs.
void encodeOpLocal(Encoder &e, const UGraph &g, const UOp &op,
                   llvm::ArrayRef<Hash128> bodyHashes) {
  e.u8(static_cast<uint8_t>(op.kind));
  e.u32(static_cast<uint32_t>(op.operands.size()));
  switch (op.kind) {
  case OpKind::Matmul:
    break;
  case OpKind::Unary:
    e.i64(op.sub);
    if (usesScalar(op))
      e.f64(op.scalar);
    break;
  case OpKind::Binary:
    e.i64(op.sub);
    break;
  case OpKind::Reduce:
    e.i64(op.sub);
    e.i64(op.dim);
    e.i64(op.size);
    break;
  case OpKind::RmsNorm:
    e.f64(op.scalar);
    break;
  case OpKind::Concat:
  case OpKind::RunningMax:
    e.i64(op.dim);
    break;
  case OpKind::InputIterator:
    for (int64_t m : op.map)
      e.i64(m);
    e.i64(op.fmap);
    break;
  case OpKind::Accum: {
    // rms_last's eps, when non-zero, is flagged in the sub-kind word and
    // follows the size: graphs without eps keep their hashes (no version
    // bump), and the encoding stays unambiguous. Other kinds have no eps.
    bool eps = usesScalar(op) && op.scalar != 0.0;
    e.i64(op.sub + (eps ? (int64_t(1) << 32) : 0));
    // sum/max ignore `size`; the *_last kinds read 0 as 1.
    e.i64(accumFacts(op.accumKind()).reducesLastDim()
              ? (op.size == 0 ? 1 : op.size)
              : 0);
    if (eps)
      e.f64(op.scalar);
    break;
  }
  case OpKind::OutputSaver:
    for (int64_t m : op.map)
      e.i64(m);
    break;
  case OpKind::Custom:
  case OpKind::ThreadGraph:
    e.hash(op.body >= 0 && op.body < static_cast<int32_t>(bodyHashes.size())
               ? bodyHashes[op.body]
               : Hash128{});
    break;
  }
  e.u32(static_cast<uint32_t>(op.results.size()));
  for (int32_t r : op.results) {
    e.shape(g.values[r].shape);
    e.u8(static_cast<uint8_t>(g.values[r].type));
  }
}

Hash128 hashGraph(const UGraph &g) {
  std::vector<Hash128> bodyHashes;
  bodyHashes.reserve(g.bodies.size());
  for (const UGraph &b : g.bodies)
    bodyHashes.push_back(hashGraph(b));

  const size_t nv = g.values.size(), nops = g.ops.size();
  // Merkle hashes: of each value (the computation producing it) and op.
  std::vector<Hash128> valueHash(nv), opHash(nops);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    int32_t v = g.inputs[i];
    if (v < 0 || static_cast<size_t>(v) >= nv)
      continue;
    Encoder e;
    e.u8('I');
    e.u64(i);
    e.shape(g.values[v].shape);
    e.u8(static_cast<uint8_t>(g.values[v].type));
    // Only when set, so that every other graph keeps its hash.
    if (g.values[v].transposed)
      e.u8('T');
    valueHash[v] = e.finish();
  }
  for (size_t o = 0; o < nops; ++o) {
    const UOp &op = g.ops[o];
    Encoder e;
    e.u8('O');
    encodeOpLocal(e, g, op, bodyHashes);
    for (int32_t a : op.operands)
      e.hash(a >= 0 && static_cast<size_t>(a) < nv ? valueHash[a]
                                                   : Hash128{});
    opHash[o] = e.finish();
    for (size_t r = 0; r < op.results.size(); ++r) {
      Encoder er;
      er.u8('R');
      er.hash(opHash[o]);
      er.u64(r);
      if (op.results[r] >= 0 && static_cast<size_t>(op.results[r]) < nv)
        valueHash[op.results[r]] = er.finish();
    }
  }

  // Canonical topological order: among the ready ops, the smallest Merkle
  // hash first (the original position only breaks exact ties).
  std::vector<int64_t> canon(nv, -1);
  int64_t next = 0;
  for (int32_t v : g.inputs)
    if (v >= 0 && static_cast<size_t>(v) < nv && canon[v] < 0)
      canon[v] = next++;
  std::vector<bool> done(nops, false);
  std::vector<size_t> order;
  order.reserve(nops);
  auto ready = [&](size_t o) {
    for (int32_t a : g.ops[o].operands) {
      if (a < 0 || static_cast<size_t>(a) >= nv)
        continue;
      int32_t d = g.values[a].def;
      if (d >= 0 && static_cast<size_t>(d) < nops && !done[d] &&
          static_cast<size_t>(d) != o)
        return false;
    }
    return true;
  };
  for (size_t step = 0; step < nops; ++step) {
    size_t best = nops;
    for (size_t o = 0; o < nops; ++o)
      if (!done[o] && ready(o) && (best == nops || opHash[o] < opHash[best]))
        best = o;
    if (best == nops) // not topological (cannot happen via the builders)
      for (size_t o = 0; o < nops; ++o)
        if (!done[o]) {
          best = o;
          break;
        }
    done[best] = true;
    order.push_back(best);
    for (int32_t r : g.ops[best].results)
      if (r >= 0 && static_cast<size_t>(r) < nv)
        canon[r] = next++;
  }

  Encoder e;
  e.str("mirage-ugraph");
  e.u32(kCanonicalHashVersion);
  e.u8(static_cast<uint8_t>(g.level));
  if (g.level == Level::Block) {
    for (int64_t d : g.grid)
      e.i64(d);
    e.i64(g.forloopRange);
  }
  e.str(g.target.empty() ? llvm::StringRef(kDefaultTarget)
                         : llvm::StringRef(g.target));
  e.u32(static_cast<uint32_t>(g.inputs.size()));
  for (int32_t v : g.inputs) {
    bool ok = v >= 0 && static_cast<size_t>(v) < nv;
    e.shape(ok ? llvm::ArrayRef<int64_t>(g.values[v].shape)
               : llvm::ArrayRef<int64_t>());
    e.u8(ok ? static_cast<uint8_t>(g.values[v].type) : 0xff);
    if (ok && g.values[v].transposed)
      e.u8('T');
  }
  e.u32(static_cast<uint32_t>(nops));
  for (size_t o : order) {
    const UOp &op = g.ops[o];
    encodeOpLocal(e, g, op, bodyHashes);
    for (int32_t a : op.operands)
      e.i64(a >= 0 && static_cast<size_t>(a) < nv ? canon[a] : -1);
  }
  e.u32(static_cast<uint32_t>(g.outputs.size()));
  for (int32_t v : g.outputs)
    e.i64(v >= 0 && static_cast<size_t>(v) < nv ? canon[v] : -1);
  return e.finish();
}
} // namespace

Hash128 mirage::canonicalHash(const UGraph &g) { return hashGraph(g); }

Hash128 mirage::cacheKeyHash(const Hash128 &graph, llvm::StringRef target,
                             llvm::StringRef searchOptions) {
  Encoder e;
  e.str("mirage-cache-key");
  e.u32(kCanonicalHashVersion);
  e.hash(graph);
  e.str(target.empty() ? llvm::StringRef(kDefaultTarget) : target);
  e.str(searchOptions);
  return e.finish();
}

std::string mirage::cacheKey(const UGraph &g, llvm::StringRef target,
                             llvm::StringRef searchOptions) {
  return cacheKeyHash(canonicalHash(g), target, searchOptions).toHex();
}
