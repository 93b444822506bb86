// Issue 23: graph names become file names. "a/b" and "a_b" were both
// written to a_b.sm_90.ptx (the first silently lost), an unnamed graph's
// "graph<i>" could be a named graph's name, and "A" and "a" share a file
// where the file system ignores case. A name that is already a valid symbol
// is kept; every other graph gets a free "<name>_<n>".

// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %s --mirage-kernels-to-ptx="output-dir=%t" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: ls %t | grep -c 'ptx$' | FileCheck %s --check-prefix=COUNT

// REMARK-DAG: remark: graph 'a_b_1': wrote {{.*}}a_b_1.sm_90.ptx
// REMARK-DAG: remark: graph 'a_b': wrote {{.*}}a_b.sm_90.ptx
// REMARK-DAG: remark: graph 'graph2_1': wrote {{.*}}graph2_1.sm_90.ptx
// REMARK-DAG: remark: graph 'graph2': wrote {{.*}}graph2.sm_90.ptx
// REMARK-DAG: remark: graph 'A': wrote {{.*}}A.sm_90.ptx
// REMARK-DAG: remark: graph 'a_1': wrote {{.*}}a_1.sm_90.ptx

// FILES-DAG: a_b_1.sm_90.manifest.json
// FILES-DAG: a_b.sm_90.manifest.json
// FILES-DAG: graph2_1.sm_90.manifest.json
// FILES-DAG: graph2.sm_90.manifest.json
// FILES-DAG: A.sm_90.manifest.json
// FILES-DAG: a_1.sm_90.manifest.json
// COUNT: 6

func.func @names(%x: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) {
  %0 = mirage_kernel.graph "a/b" (%x) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %s = mirage_kernel.binary add %a, %a : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %s : tensor<8x32xf32>
  }
  %1 = mirage_kernel.graph "a_b" (%x) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %s = mirage_kernel.binary mul %a, %a : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %s : tensor<8x32xf32>
  }
  %2 = mirage_kernel.graph (%x) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %s = mirage_kernel.binary add %a, %a : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %s : tensor<8x32xf32>
  }
  %3 = mirage_kernel.graph "graph2" (%x) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %s = mirage_kernel.binary add %a, %a : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %s : tensor<8x32xf32>
  }
  %4 = mirage_kernel.graph "A" (%x) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %s = mirage_kernel.binary add %a, %a : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %s : tensor<8x32xf32>
  }
  %5 = mirage_kernel.graph "a" (%x) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %s = mirage_kernel.binary add %a, %a : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %s : tensor<8x32xf32>
  }
  return %0, %1, %2, %3, %4, %5 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>
}
