// RUN: mirage-opt --help | FileCheck %s
// The driver registers the three μGraph dialects and the Mirage passes.
// CHECK-DAG: mirage_block
// CHECK-DAG: mirage_kernel
// CHECK-DAG: mirage_thread
// CHECK-DAG: --mirage-evaluate
// CHECK-DAG: --mirage-compare
