// Issue 23: the memory budget honours the process's own limits, not only
// the physical memory (MemoryLimit.h, memoryBudget). Under ulimit -v 2000000
// (1.9 GiB of address space) the verification of a 6144-wide f16 pair and
// the superoptimization of a 6144-wide softmax aborted with std::bad_alloc;
// now the verifier refuses them before allocating, naming the limit.
// UNSUPPORTED: sanitizer
// REQUIRES: system-linux

// RUN: not bash -c 'ulimit -v 2000000 && exec mirage-opt %s -split-input-file --mirage-verify-equivalence --mlir-print-op-on-diagnostic=false -o /dev/null' 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: bash -c 'ulimit -v 2000000 && exec mirage-opt %s -split-input-file --mirage-superoptimize="cache=off threads=2" --mlir-print-op-on-diagnostic=false -o /dev/null' 2>&1 | FileCheck %s --check-prefix=SEARCH

// VERIFY: error: graph 'cand' could not be verified against reference 'ref': verification at full shapes would hold {{[0-9.]+}} GiB of field values, over the limit of {{[0-9.]+}} GiB (half of what the address-space limit (RLIMIT_AS, ulimit -v) leaves)
// VERIFY-NOT: bad_alloc

// SEARCH: remark: graph 'sm' left unchanged: no candidate passed verification at real shapes (verification at full shapes would hold {{[0-9.]+}} GiB of field values, over the limit of {{[0-9.]+}} GiB (half of what the address-space limit (RLIMIT_AS, ulimit -v) leaves))
// SEARCH-NOT: bad_alloc

func.func @pair(%x: tensor<6144x6144xf16>, %y: tensor<6144x6144xf16>) -> (tensor<6144x6144xf16>, tensor<6144x6144xf16>) {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<6144x6144xf16>, tensor<6144x6144xf16>) -> tensor<6144x6144xf16> {
  ^bb0(%a: tensor<6144x6144xf16>, %b: tensor<6144x6144xf16>):
    %e = mirage_kernel.unary exp %a : tensor<6144x6144xf16>
    %s = mirage_kernel.binary add %e, %b : tensor<6144x6144xf16>, tensor<6144x6144xf16> -> tensor<6144x6144xf16>
    mirage_kernel.yield %s : tensor<6144x6144xf16>
  }
  %c = mirage_kernel.graph "cand" reference "ref" (%x, %y) : (tensor<6144x6144xf16>, tensor<6144x6144xf16>) -> tensor<6144x6144xf16> {
  ^bb0(%a: tensor<6144x6144xf16>, %b: tensor<6144x6144xf16>):
    %e = mirage_kernel.unary exp %a : tensor<6144x6144xf16>
    %s = mirage_kernel.binary add %b, %e : tensor<6144x6144xf16>, tensor<6144x6144xf16> -> tensor<6144x6144xf16>
    mirage_kernel.yield %s : tensor<6144x6144xf16>
  }
  return %r, %c : tensor<6144x6144xf16>, tensor<6144x6144xf16>
}

// -----

func.func @softmax(%x: tensor<6144x6144xf16>) -> tensor<6144x6144xf16> {
  %r = mirage_kernel.graph "sm" (%x) : (tensor<6144x6144xf16>) -> tensor<6144x6144xf16> {
  ^bb0(%a: tensor<6144x6144xf16>):
    %e = mirage_kernel.unary exp %a : tensor<6144x6144xf16>
    %s = mirage_kernel.reduce sum %e dim 1 : tensor<6144x6144xf16> -> tensor<6144x1xf16>
    %d = mirage_kernel.binary div %e, %s : tensor<6144x6144xf16>, tensor<6144x1xf16> -> tensor<6144x6144xf16>
    mirage_kernel.yield %d : tensor<6144x6144xf16>
  }
  return %r : tensor<6144x6144xf16>
}
