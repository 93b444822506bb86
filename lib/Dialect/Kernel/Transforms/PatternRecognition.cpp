//===- KernelPatternRecognition.cpp - Idioms on kernel graphs -------------===//
//
// Greedy patterns over `mirage_kernel` ops inside a graph body: sigmoid,
// silu, gelu (products are flattened, so any association and placement of
// the scalar factors matches), rms_norm and rms_norm with weight.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Dialect/Kernel/Transforms/PatternRecognition.h"
#include "Mirage/Semantics/ShapeRules.h"


#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

using namespace mlir;
using namespace mirage;
/// The broadcast result type of two tensors of one element type (the shared
/// broadcasting rule of ShapeRules.h), or null.
static mlir::RankedTensorType broadcastType(mlir::Value a, mlir::Value b) {
  auto ta = mlir::dyn_cast<mlir::RankedTensorType>(a.getType());
  auto tb = mlir::dyn_cast<mlir::RankedTensorType>(b.getType());
  if (!ta || !tb || ta.getElementType() != tb.getElementType())
    return {};
  mirage::ShapeResult r = mirage::broadcastShape(ta.getShape(), tb.getShape());
  if (!r.ok())
    return {};
  return mlir::RankedTensorType::get(r.shape, ta.getElementType());
}
namespace mk = mirage::kernel;

namespace {

std::optional<double> scalarOf(mk::UnaryOp u) {
  if (!u || !u.getScalar())
    return std::nullopt;
  return u.getScalar()->convertToDouble();
}
mk::UnaryOp unaryOf(Value v, UnaryKind k) {
  auto u = v ? v.getDefiningOp<mk::UnaryOp>() : mk::UnaryOp();
  return u && u.getKind() == k ? u : mk::UnaryOp();
}
mk::BinaryOp binaryOf(Value v, BinaryKind k) {
  auto u = v ? v.getDefiningOp<mk::BinaryOp>() : mk::BinaryOp();
  return u && u.getKind() == k ? u : mk::BinaryOp();
}
bool near(double a, double b, double rel = 1e-5) {
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}
/// Whether the program's constant `written` is the formula's constant
/// `exact` in the program's element type `t` (both rounded to `t`). A
/// different constant is a different function: torch-mlir's tanh GELU uses
/// 0.7977240352174656 where the formula has √(2/π) = 0.7978845608…, so it is
/// not the kernel gelu and stays as its element-wise ops.
bool sameInType(double written, double exact, Type t) {
  auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(t));
  if (!ft)
    return written == exact;
  auto round = [&](double v) {
    APFloat a(v);
    bool lost = false;
    a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return a;
  };
  return round(written).bitwiseIsEqual(round(exact));
}

/// x · 1  ->  x (torch-mlir's `alpha = 1` of every add and sub, written as
/// a multiply by `sitofp(1)`): exact for every x, NaN and -0 included.
/// x + 0 is not folded: -0 + 0 is +0.
struct MulByOnePattern : OpRewritePattern<mk::UnaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::UnaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != UnaryKind::mul_scalar || scalarOf(op) != 1.0 ||
        op.getInput().getType() != op.getType())
      return failure();
    // A graph must not yield its own argument (an output with no kernel).
    if (isa<BlockArgument>(op.getInput()) &&
        llvm::any_of(op->getUsers(), [](Operation *u) {
          return u->hasTrait<OpTrait::IsTerminator>();
        }))
      return failure();
    rw.replaceOp(op, op.getInput());
    return success();
  }
};

/// 1 / (1 + exp(-x))  ->  sigmoid(x)
struct SigmoidPattern : OpRewritePattern<mk::UnaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::UnaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != UnaryKind::reciprocal)
      return failure();
    auto add = unaryOf(op.getInput(), UnaryKind::add_scalar);
    if (!add || scalarOf(add) != 1.0)
      return failure();
    auto e = unaryOf(add.getInput(), UnaryKind::exp);
    if (!e)
      return failure();
    auto neg = unaryOf(e.getInput(), UnaryKind::mul_scalar);
    if (!neg || scalarOf(neg) != -1.0)
      return failure();
    rw.replaceOpWithNewOp<mk::UnaryOp>(op, op.getType(), UnaryKind::sigmoid,
                                       neg.getInput(), FloatAttr());
    return success();
  }
};

/// x * sigmoid(x)  ->  silu(x)
struct SiluPattern : OpRewritePattern<mk::BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::mul)
      return failure();
    for (int i = 0; i < 2; ++i) {
      Value x = op->getOperand(i), s = op->getOperand(1 - i);
      auto sig = unaryOf(s, UnaryKind::sigmoid);
      if (sig && sig.getInput() == x && x.getType() == op.getType()) {
        rw.replaceOpWithNewOp<mk::UnaryOp>(op, op.getType(), UnaryKind::silu,
                                           x, FloatAttr());
        return success();
      }
    }
    return failure();
  }
};

/// Flattens a product tree of mul and mul_scalar into factors and a
/// coefficient. Stops at values with more than one use (except the root).
void productFactors(Value v, SmallVectorImpl<Value> &fs, double &coef,
                    bool root) {
  if (!root && !v.hasOneUse()) {
    fs.push_back(v);
    return;
  }
  if (auto m = binaryOf(v, BinaryKind::mul)) {
    if (m.getLhs().getType() == v.getType() &&
        m.getRhs().getType() == v.getType()) {
      productFactors(m.getLhs(), fs, coef, false);
      productFactors(m.getRhs(), fs, coef, false);
      return;
    }
  }
  if (auto s = unaryOf(v, UnaryKind::mul_scalar)) {
    coef *= scalarOf(s).value_or(0.0);
    productFactors(s.getInput(), fs, coef, false);
    return;
  }
  fs.push_back(v);
}

/// Whether v = x³ (x*x*x in any association, or square(x)*x, or pow(x,3)).
bool isCube(Value v, Value x) {
  SmallVector<Value> fs;
  double c = 1;
  productFactors(v, fs, c, true);
  if (c != 1.0)
    return false;
  int n = 0;
  for (Value f : fs) {
    if (f == x)
      n += 1;
    else if (auto s = unaryOf(f, UnaryKind::square); s && s.getInput() == x)
      n += 2;
    else
      return false;
  }
  return n == 3;
}

/// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))  ->  gelu(x)
struct GeluPattern : RewritePattern {
  GeluPattern(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (!isa<mk::BinaryOp, mk::UnaryOp>(op) || op->getNumResults() != 1)
      return failure();
    Value root = op->getResult(0);
    SmallVector<Value> fs;
    double coef = 1;
    productFactors(root, fs, coef, true);
    Type elem = root.getType();
    if (fs.size() != 2 || !sameInType(coef, 0.5, elem))
      return failure();
    for (int i = 0; i < 2; ++i) {
      Value x = fs[i], u = fs[1 - i];
      if (x.getType() != root.getType())
        continue;
      auto one = unaryOf(u, UnaryKind::add_scalar);
      if (!one || scalarOf(one) != 1.0)
        continue;
      auto th = unaryOf(one.getInput(), UnaryKind::tanh);
      if (!th)
        continue;
      // √(2/π)·(x + 0.044715·x³), either as a scaled sum or a sum of scaled
      // terms.
      SmallVector<Value> inner;
      double k = 1;
      productFactors(th.getInput(), inner, k, true);
      const double c = std::sqrt(2.0 / M_PI);
      bool ok = false;
      if (inner.size() == 1 && sameInType(k, c, elem)) {
        if (auto add = binaryOf(inner[0], BinaryKind::add)) {
          for (int j = 0; j < 2 && !ok; ++j) {
            Value a = add->getOperand(j), bterm = add->getOperand(1 - j);
            if (a != x)
              continue;
            SmallVector<Value> cf;
            double kk = 1;
            productFactors(bterm, cf, kk, true);
            if (cf.size() == 1 && sameInType(kk, 0.044715, elem) &&
                isCube(cf[0], x))
              ok = true;
            else if (sameInType(kk, 0.044715, elem)) {
              // Factors x, x, x directly.
              int n = 0;
              bool only = true;
              for (Value f : cf)
                if (f == x) ++n;
                else if (auto s = unaryOf(f, UnaryKind::square); s && s.getInput() == x) n += 2;
                else only = false;
              ok = only && n == 3;
            }
          }
        }
      }
      if (!ok)
        continue;
      rw.replaceOpWithNewOp<mk::UnaryOp>(op, root.getType(), UnaryKind::gelu,
                                         x, FloatAttr());
      return success();
    }
    return failure();
  }
};

/// Matches mean(x², last dim) + eps where mean is sum·(1/n) or sum/n.
/// Returns x and eps.
std::optional<std::pair<Value, double>> matchMeanSquarePlusEps(Value v) {
  double eps = 0;
  if (auto a = unaryOf(v, UnaryKind::add_scalar)) {
    eps = scalarOf(a).value_or(0.0);
    v = a.getInput();
  }
  auto ms = unaryOf(v, UnaryKind::mul_scalar);
  if (!ms || !scalarOf(ms))
    return std::nullopt;
  double scale = *scalarOf(ms);
  auto red = ms.getInput().getDefiningOp<mk::ReduceOp>();
  if (!red || red.getKind() != ReduceKind::sum || red.getSize() != 1)
    return std::nullopt;
  auto xt = cast<RankedTensorType>(red.getInput().getType());
  if (static_cast<int64_t>(red.getDim()) != xt.getRank() - 1)
    return std::nullopt;
  int64_t n = xt.getDimSize(xt.getRank() - 1);
  if (!near(scale * n, 1.0, 1e-6))
    return std::nullopt;
  Value sq = red.getInput();
  Value x;
  if (auto s = unaryOf(sq, UnaryKind::square))
    x = s.getInput();
  else if (auto m = binaryOf(sq, BinaryKind::mul); m && m.getLhs() == m.getRhs())
    x = m.getLhs();
  else
    return std::nullopt;
  if (x.getType() != sq.getType())
    return std::nullopt;
  return std::make_pair(x, eps);
}

/// x * rsqrt(mean(x²)+eps), x / sqrt(mean(x²)+eps)  ->  rms_norm x eps
struct RmsNormPattern : OpRewritePattern<mk::BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::BinaryOp op,
                                PatternRewriter &rw) const override {
    std::optional<std::pair<Value, double>> m;
    Value x;
    if (op.getKind() == BinaryKind::mul) {
      for (int i = 0; i < 2 && !m; ++i) {
        x = op->getOperand(i);
        if (auto r = unaryOf(op->getOperand(1 - i), UnaryKind::rsqrt))
          m = matchMeanSquarePlusEps(r.getInput());
        if (m && m->first != x)
          m.reset();
      }
    } else if (op.getKind() == BinaryKind::div) {
      x = op.getLhs();
      if (auto s = unaryOf(op.getRhs(), UnaryKind::sqrt))
        m = matchMeanSquarePlusEps(s.getInput());
      if (m && m->first != x)
        m.reset();
    }
    if (!m || x.getType() != op.getType())
      return failure();
    rw.replaceOpWithNewOp<mk::RmsNormOp>(op, op.getType(), x, Value(),
                                         rw.getF64FloatAttr(m->second));
    return success();
  }
};

/// rms_norm(x) * gamma  ->  rms_norm x weight gamma (gamma broadcasts to x)
struct RmsNormWeightPattern : OpRewritePattern<mk::BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::mul)
      return failure();
    for (int i = 0; i < 2; ++i) {
      auto n = op->getOperand(i).getDefiningOp<mk::RmsNormOp>();
      Value g = op->getOperand(1 - i);
      if (!n || n.getWeight() || !n->hasOneUse() ||
          n.getType() != op.getType())
        continue;
      RankedTensorType bt = broadcastType(n.getResult(), g);
      if (!bt || bt != op.getType())
        continue;
      rw.replaceOpWithNewOp<mk::RmsNormOp>(op, op.getType(), n.getInput(), g,
                                           n.getEpsAttr());
      return success();
    }
    return failure();
  }
};

} // namespace

void mirage::populateKernelRecognitionPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SigmoidPattern, SiluPattern, RmsNormPattern,
               RmsNormWeightPattern>(ctx);
  patterns.add<GeluPattern>(ctx);
}

void mirage::simplifyKernelGraph(mk::GraphOp g, bool recognize) {
  MLIRContext *ctx = g->getContext();
  // The same op on the same operands twice is one value (torch-mlir centres
  // a LayerNorm's input once for the f64 variance and once for the f32
  // normalisation, the second with a multiply by 1 that MulByOnePattern
  // drops; recognition needs them to be one). Exact. CSE, the patterns,
  // and the patterns again when CSE merged what they made equal.
  auto cse = [&] {
    IRRewriter rewriter(ctx);
    DominanceInfo dom(g);
    bool changed = false;
    eliminateCommonSubExpressions(rewriter, dom, g, &changed);
    return changed;
  };
  RewritePatternSet ps(ctx);
  ps.add<MulByOnePattern>(ctx); // exact, so also without recognition
  if (recognize)
    populateKernelRecognitionPatterns(ps);
  FrozenRewritePatternSet patterns(std::move(ps));
  GreedyRewriteConfig cfg;
  cfg.setMaxIterations(8);
  cfg.enableFolding(false);
  (void)cse();
  (void)applyPatternsGreedily(g.getBody(), patterns, cfg);
  if (cse())
    (void)applyPatternsGreedily(g.getBody(), patterns, cfg);
  // Dead ops (patterns leave the matched intermediates behind).
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op :
         llvm::make_early_inc_range(llvm::reverse(g.getBody().front())))
      if (!op.hasTrait<OpTrait::IsTerminator>() && isOpTriviallyDead(&op)) {
        op.erase();
        changed = true;
      }
  }
}
