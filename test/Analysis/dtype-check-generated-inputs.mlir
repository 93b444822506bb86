// Issue 23: the verification pass's default dtype check used to hold every
// input as doubles (a 405B-class gate projection: 6.9 GB), and was skipped
// with a warning where that did not fit. Its inputs are now counter-based
// and rounded to each input's type: a weight over kStoredInputElements is
// generated where it is read, as in the field check, so the check runs
// within the budget. Here the budget is lowered with ulimit -v (about
// 0.2 GiB) below the 0.3 GiB the weight takes as doubles: the check still
// runs, and finds the candidate's f16 overflow (x·2^14 before the matmul).
// UNSUPPORTED: sanitizer
// REQUIRES: system-linux

// RUN: bash -c 'ulimit -v 800000 && exec mirage-opt %s --mirage-verify-equivalence --mlir-print-op-on-diagnostic=false -o /dev/null' 2>&1 | FileCheck %s
// CHECK: remark: graph 'cand' is equivalent to reference 'ref'
// CHECK-NOT: dtype check skipped
// CHECK: warning: graph 'cand' in f16: produces non-finite values (overflow) where the float64 reference does not
// CHECK-NOT: bad_alloc

func.func @gate(%x: tensor<1x1024xf16>, %w: tensor<1024x32768xf16>) -> (tensor<1x32768xf16>, tensor<1x32768xf16>) {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<1x1024xf16>, tensor<1024x32768xf16>) -> tensor<1x32768xf16> {
  ^bb0(%a: tensor<1x1024xf16>, %b: tensor<1024x32768xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<1x1024xf16> -> tensor<1x1024xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<1x1024xf16>, tensor<1024x32768xf16> -> tensor<1x32768xf16>
    mirage_kernel.yield %m : tensor<1x32768xf16>
  }
  %c = mirage_kernel.graph "cand" reference "ref" (%x, %w) : (tensor<1x1024xf16>, tensor<1024x32768xf16>) -> tensor<1x32768xf16> {
  ^bb0(%a: tensor<1x1024xf16>, %b: tensor<1024x32768xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<1x1024xf16> -> tensor<1x1024xf16>
    %u = mirage_kernel.unary mul_scalar %n scalar(16384.0) : tensor<1x1024xf16>
    %m = mirage_kernel.matmul %u, %b : tensor<1x1024xf16>, tensor<1024x32768xf16> -> tensor<1x32768xf16>
    %d = mirage_kernel.unary mul_scalar %m scalar(6.103515625e-05) : tensor<1x32768xf16>
    mirage_kernel.yield %d : tensor<1x32768xf16>
  }
  return %r, %c : tensor<1x32768xf16>, tensor<1x32768xf16>
}
