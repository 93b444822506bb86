// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// The launch attributes the levels below a kernel graph carry are declared
// by the mirage_kernel dialect (discardableAttrs), which verifies them.

// A well-formed loop-level kernel function and its host function.
func.func @k0(%a: memref<16xf16>) attributes {
    mirage_kernel.kernel, mirage_kernel.grid = array<i64: 4, 1, 1>,
    mirage_kernel.block = array<i64: 128, 1, 1>,
    mirage_kernel.min_blocks_per_sm = 8 : i64,
    mirage_kernel.dynamic_shared_bytes = 0 : i64} {
  return
}
func.func @host(%a: memref<16xf16>) attributes {
    mirage_kernel.host_graph = "g", mirage_kernel.host_reference = "g_ref"} {
  return
}

// -----

// expected-error @+1 {{'mirage_kernel.grid' must be array<i64: x, y, z> with positive sizes}}
func.func @zero_grid() attributes {mirage_kernel.grid = array<i64: 4, 0, 1>} {
  return
}

// -----

// expected-error @+1 {{'mirage_kernel.block' must be array<i64: x, y, z> with positive sizes}}
func.func @two_dims() attributes {mirage_kernel.block = array<i64: 128, 1>} {
  return
}

// -----

// expected-error @+1 {{'mirage_kernel.kernel' must be a unit attribute}}
func.func @not_unit() attributes {mirage_kernel.kernel = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'mirage_kernel.min_blocks_per_sm' must be an integer of at least 1}}
func.func @no_occupancy() attributes {mirage_kernel.min_blocks_per_sm = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'mirage_kernel.dynamic_shared_bytes' must be an integer of at least 0}}
func.func @negative_smem() attributes {mirage_kernel.dynamic_shared_bytes = -16 : i64} {
  return
}

// -----

// expected-error @+1 {{'mirage_kernel.host_graph' must be a string}}
func.func @host_not_string() attributes {mirage_kernel.host_graph = 3 : i64} {
  return
}

// -----

// expected-error @+1 {{'mirage_kernel.ptx_kernels' must map kernel names to array<i64: dynamic, static>}}
func.func @bad_table() attributes {mirage_kernel.ptx_kernels = {k0 = array<i64: 0>}} {
  return
}

// -----

// expected-error @+1 {{unknown attribute 'mirage_kernel.gird' of the mirage_kernel dialect}}
func.func @typo() attributes {mirage_kernel.gird = array<i64: 1, 1, 1>} {
  return
}

// -----

// A level of a row reduction's tree (WarpReductions.md): [id, half, lanes,
// outputs], half below lanes, both powers of two.
func.func @tree_level() {
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 0, 16, 32, 4>}
  return
}

// -----

func.func @tree_half_not_below_lanes() {
  // expected-error @+1 {{'mirage_kernel.reduction_tree' must be array<i64: id, half, lanes, outputs> with half < lanes, both powers of two, and outputs positive}}
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 0, 32, 32, 4>}
  return
}

// -----

func.func @tree_lanes_not_power_of_two() {
  // expected-error @+1 {{'mirage_kernel.reduction_tree' must be array<i64: id, half, lanes, outputs>}}
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 0, 4, 24, 4>}
  return
}

// -----

func.func @tree_three_fields() {
  // expected-error @+1 {{'mirage_kernel.reduction_tree' must be array<i64: id, half, lanes, outputs>}}
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 16, 32, 4>}
  return
}

// -----

// The phase that writes every lane before the tree: [id, lanes, outputs].
func.func @fold_phase() {
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_fold = array<i64: 0, 32, 4>}
  return
}

// -----

func.func @fold_one_lane() {
  // expected-error @+1 {{'mirage_kernel.reduction_fold' must be array<i64: id, lanes, outputs> with lanes a power of two above 1 and outputs positive}}
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_fold = array<i64: 0, 1, 4>}
  return
}

// -----

// The phase that reads lane 0 after the tree: [id, outputs].
func.func @finish_phase() {
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_finish = array<i64: 0, 4>}
  return
}

// -----

func.func @finish_no_outputs() {
  // expected-error @+1 {{'mirage_kernel.reduction_finish' must be array<i64: id, outputs> with outputs positive}}
  scf.forall (%t) in (128) {
  } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_finish = array<i64: 0, 0>}
  return
}

// -----

// A pipeline group's explicit wait (LoopInvariantOps.md): groups left
// pending when it is committed, at least 0.
func.func @negative_wait(%src: memref<16xf16>, %dst: memref<16xf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f16
  %v = vector.transfer_read %src[%c0], %pad {in_bounds = [true]} : memref<16xf16>, vector<8xf16>
  // expected-error @+1 {{'mirage_kernel.prefetch_wait' must be an integer of at least 0}}
  vector.transfer_write %v, %dst[%c0] {in_bounds = [true], mirage_kernel.prefetch_group = 2 : i64, mirage_kernel.prefetch_stages = 4 : i64, mirage_kernel.prefetch_wait = -1 : i64} : vector<8xf16>, memref<16xf16, #gpu.address_space<workgroup>>
  return
}
