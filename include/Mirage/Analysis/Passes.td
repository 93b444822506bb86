//===- Passes.td - Mirage analysis passes -------------------*- tablegen -*-===//
#ifndef MIRAGE_ANALYSIS_PASSES_TD
#define MIRAGE_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MirageVerifyEquivalence
    : Pass<"mirage-verify-equivalence", "::mlir::ModuleOp"> {
  let summary = "prove each graph equivalent to its reference, with an error "
                "bound";
  let description = [{
    For every `mirage_kernel.graph` that names a `reference` graph of the
    module, decides probabilistically whether both compute the same function.
    Both graphs run through the one executable semantics in a finite-field
    domain Z_p × Z_q (q a random 61-bit prime with p = 2q + 1 prime, drawn
    afresh for every test) on independent uniform random inputs. Field operations are exact; exp is first treated
    as an uninterpreted function and, if that fails, as ω^{x_q} for a random
    q-th root of unity ω (the paper's LAX semantics, Theorem 2); sqrt, rsqrt
    (= 1/sqrt), silu (= x·sigmoid), gelu, sigmoid, tanh, erf, relu, pow and max
    are uninterpreted (a keyed random oracle per symbol and test). A degree
    analysis of both graphs gives a per-test false-acceptance bound ε; the
    pass runs n tests with ε^n ≤ 2^-target-bits. The seed of the tests is
    drawn from the system's random source unless `seed` is given, and every
    verdict names the seed used (pass `seed=N` to reproduce a run).

    The bodies are compared input by input, so a graph must read the values
    its reference reads, in the same order (the same SSA values, in the same
    function); otherwise it is an error naming the first operand that
    differs, and the pair is not verified.

    Emits a remark on each accepted graph and an error on each graph that is
    not equivalent (or whose outputs match only under a permutation, which is
    named), and fails then. A pair whose tests all pass but whose bound is
    vacuous (degree reaching the field size, Theorem 2 with too many exp
    terms) is "not verified": an error, never reported as equivalent. An
    accepted pair whose float64 outputs disagree far beyond rounding is an
    error too. With `dtype-check`, also runs the candidate with
    every value rounded to its element type against the float64 reference and
    warns when the relative error exceeds the type's threshold (e.g. exp
    overflowing f16); a pair whose float64 runs would not fit in memory
    skips it with a warning. With `formal`, also runs both graphs symbolically
    (every input element a real variable, the functions outside the field
    uninterpreted) and asks Z3 whether some output element can differ while
    every divisor is nonzero: unsat is a proof for these shapes (remark), sat
    a counterexample (error), unknown or timeout a warning; pairs with more
    than `formal-max-elements` input or output elements are skipped with a
    remark. Changes no IR. The argument is in
    docs/Rationale/Verification.md.

    ```mlir
    %r = mirage_kernel.graph "ref" (...) ...
    %b = mirage_kernel.graph "best" reference "ref" (...) ...
    // mirage-opt --mirage-verify-equivalence="target-bits=64 seed=1" x.mlir
    // remark: graph 'best' is equivalent to reference 'ref': 2 tests,
    //         false-acceptance bound 2^-80 (seed 1)
    ```
  }];
  let options = [
    Option<"targetBits", "target-bits", "unsigned", "64",
           "accept with a false-acceptance probability of at most "
           "2^-target-bits">,
    Option<"seed", "seed", "uint64_t", "0",
           "seed of the test keys (primes, inputs, ω and oracles); 0: drawn "
           "from the system's random source and reported">,
    Option<"dtypeCheck", "dtype-check", "bool", "true",
           "also check the candidate's accuracy in its own element type">,
    Option<"formal", "formal", "bool", "false",
           "also prove (or refute) the equivalence with Z3 over the reals, "
           "with uninterpreted functions, when the shapes are small">,
    Option<"formalMaxElements", "formal-max-elements", "int64_t", "4096",
           "skip the formal check when the inputs or outputs have more "
           "elements">,
    Option<"formalTimeoutMs", "formal-timeout-ms", "unsigned", "10000",
           "Z3 time limit of the formal check, in milliseconds">
  ];
}

def MirageCheckNumerics : Pass<"mirage-check-numerics", "::mlir::ModuleOp"> {
  let summary = "check each graph's accuracy in its own element type";
  let description = [{
    For every `mirage_kernel.graph` with a `reference`, runs the candidate with
    every intermediate value rounded to its (narrowest) element type, f16,
    bf16 or f32, against the reference in float64 on the same random inputs,
    and reports the largest relative error as a remark, or a warning when it
    exceeds the type's threshold (f16 2e-2, bf16 1e-1, f32 1e-4) or the run
    overflows. A pair whose runs would not fit in memory is skipped with a
    warning. Changes no IR and never fails.

    ```mlir
    // mirage-opt --mirage-check-numerics x.mlir
    // remark: graph 'best' in f16: max relative error 1.2e-3 (threshold 2e-2)
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "1", "seed of the input generator">,
    Option<"trials", "trials", "unsigned", "1", "independent random trials">
  ];
}

#endif // MIRAGE_ANALYSIS_PASSES_TD
