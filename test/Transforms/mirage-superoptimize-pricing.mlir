// How the pre-defined kernels a graph keeps run downstream decides what it
// is compared against (docs/Rationale/PricingAsEmitted.md). A decode GEMV
// of 256 MB after an rms_norm: the fused kernel is dearer than the pair
// priced as idealised library kernels, but cheaper than the two kernels
// this project's code generator emits for it.
//
// By default (expansion) the fused kernel replaces the graph, and the
// remark gives the reference both ways.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off progress=false report=%t.json" -o - 2>%t.err | FileCheck %s --check-prefix=EMITTED
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: FileCheck %s --check-prefix=JSON < %t.json
//
// For a compiler that lowers kept pre-defined kernels to library calls, the
// reference stays.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off progress=false predefined-kernels=library" -o - 2>&1 | FileCheck %s --check-prefix=LIBRARY
//
// The pipeline forwards the option.
// RUN: mirage-opt %s --mirage-superoptimize-pipeline="cache=off progress=false predefined-kernels=library" -o - 2>&1 | FileCheck %s --check-prefix=LIBRARY
//
// An unknown value is refused.
// RUN: not mirage-opt %s --mirage-superoptimize="predefined-kernels=cublas" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

func.func @norm_gemv(%x: tensor<1x8192xf16>, %w: tensor<8192x16384xf16>) -> tensor<1x16384xf16> {
  %r = mirage_kernel.graph "g" (%x, %w) : (tensor<1x8192xf16>, tensor<8192x16384xf16>) -> tensor<1x16384xf16> {
  ^bb0(%a: tensor<1x8192xf16>, %b: tensor<8192x16384xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<1x8192xf16> -> tensor<1x8192xf16>
    %o = mirage_kernel.matmul %n, %b : tensor<1x8192xf16>, tensor<8192x16384xf16> -> tensor<1x16384xf16>
    mirage_kernel.yield %o : tensor<1x16384xf16>
  }
  return %r : tensor<1x16384xf16>
}

// EMITTED-LABEL: func.func @norm_gemv
// EMITTED: %[[OPT:.*]] = mirage_kernel.graph "g_opt" reference "g"(
// EMITTED: return %[[OPT]]

// REMARK: remark: superoptimized 'g': 2 kernel(s) -> 1, estimated {{[0-9.]+}} us -> {{[0-9.]+}} us ({{[0-9.]+}}x) on h100 (the reference as library kernels: {{[0-9.]+}} us)

// JSON: "best_cost_us"
// JSON: "input_cost_us"
// JSON: "library_cost_us"

// LIBRARY: remark: graph 'g' left unchanged: no fused kernel beats it (the cheapest is estimated at {{[0-9.]+}} us, the graph at {{[0-9.]+}} us)
// LIBRARY-LABEL: func.func @norm_gemv
// LIBRARY-NOT: g_opt
// LIBRARY: return

// BAD: for the --predefined-kernels option: Cannot find option named 'cublas'
