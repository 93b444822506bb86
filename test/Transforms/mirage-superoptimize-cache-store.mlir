// A store that fails (here every write to the results table aborts, as on a
// full disk; a read-only file would not stop root) is a warning naming the
// cache and the reason, not silence; the output is unaffected.
// docs/Rationale/ResultCache.md.
//
// RUN: rm -f %t.sqlite
// An entry under another key (another cost gap) creates the file.
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2 cost-gap=0.05" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: mirage-cache-poison %t.sqlite fail-stores
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" 2>&1 | FileCheck %s --check-prefix=STORE

func.func @rmsnorm_matmul(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %r = mirage_kernel.graph "rms" (%x, %w) : (tensor<8x256xf16>, tensor<256x512xf16>) -> tensor<8x512xf16> {
  ^bb0(%a: tensor<8x256xf16>, %b: tensor<256x512xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<8x256xf16> -> tensor<8x256xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<8x256xf16>, tensor<256x512xf16> -> tensor<8x512xf16>
    mirage_kernel.yield %m : tensor<8x512xf16>
  }
  return %r : tensor<8x512xf16>
}

// MISS: cache miss
// STORE: warning: result cache '{{.*}}.sqlite': store failed: database or disk is full (test trigger); the result is not cached
// STORE: remark: superoptimized 'rms': {{.*}}; cache miss;
// STORE: mirage_kernel.graph "rms_opt" reference "rms"
