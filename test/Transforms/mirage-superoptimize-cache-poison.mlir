// A result-cache entry is only a proposal: every hit is re-verified against
// the program, and an entry that is wrong, of another signature or unreadable
// is a miss with a warning naming the cache. Each entry below is rewritten
// with a valid, recomputed checksum (mirage-cache-poison), as anyone who can
// write the file could. docs/Rationale/ResultCache.md.
//
// RUN: rm -f %t.sqlite
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HIT
//
// A wrong graph (the matmul reads the input before its rms_norm).
// RUN: mirage-cache-poison %t.sqlite graph "matmul %4, %3" "matmul %2, %3"
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=WRONG,REPAIRED
// The search's store replaced the bad entry: the next run hits again.
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HIT
//
// Another signature (every 256 made 128: a consistent graph of 8x128 and
// 128x512 inputs).
// RUN: mirage-cache-poison %t.sqlite graph "256" "128"
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=SIGNATURE,REPAIRED
//
// Text that does not parse.
// RUN: mirage-cache-poison %t.sqlite graph "mirage_block" "mirage_blok"
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=UNPARSED,REPAIRED
//
// A report that claims an absurd bound: the remark shows the bound of the
// hit's own check, never the entry's.
// RUN: mirage-cache-poison %t.sqlite report '"log2_bound":[-0-9.e+]+' '"log2_bound":1e308'
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HIT --implicit-check-not=9223372036854775808

func.func @rmsnorm_matmul(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %r = mirage_kernel.graph "rms" (%x, %w) : (tensor<8x256xf16>, tensor<256x512xf16>) -> tensor<8x512xf16> {
  ^bb0(%a: tensor<8x256xf16>, %b: tensor<256x512xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<8x256xf16> -> tensor<8x256xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<8x256xf16>, tensor<256x512xf16> -> tensor<8x512xf16>
    mirage_kernel.yield %m : tensor<8x512xf16>
  }
  return %r : tensor<8x512xf16>
}

// MISS: remark: superoptimized 'rms': {{.*}}; cache miss;
// HIT-NOT: warning
// HIT: remark: superoptimized 'rms': 2 kernel(s) -> 1, {{.*}}; verified with {{[0-9]+ tests?}}, false-acceptance bound 2^-{{[0-9]+}}; cache hit;

// WRONG: warning: result cache '{{.*}}.sqlite': entry '{{[0-9a-f]+}}' rejected, its graph fails verification against the program ({{.*}}); treated as a miss
// SIGNATURE: warning: result cache '{{.*}}.sqlite': entry '{{[0-9a-f]+}}' rejected, wrong signature: input 0 differs in shape or element type from the program's graph; treated as a miss
// UNPARSED: warning: result cache '{{.*}}.sqlite': entry '{{[0-9a-f]+}}' rejected, its graph does not parse as a kernel graph; treated as a miss
// REPAIRED-NOT: cache hit
// REPAIRED: remark: superoptimized 'rms': 2 kernel(s) -> 1, {{.*}}; cache miss;
// REPAIRED: remark: graph 'rms_opt' is equivalent to reference 'rms'
