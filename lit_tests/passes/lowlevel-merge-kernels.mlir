// RUN: mdh-opt %s -p mdh-bufferize,mdh-default-config,mdh-check-config,mdh-split-stats,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,lowlevel-prefetch,lowlevel-expand,lowlevel-merge-kernels | filecheck %s

// The three phases of a row softmax (mdh-split-stats), each its own kernel before, become
// one kernel: the bodies in launch order with a barrier on global memory between them,
// one argument per host buffer (x once), one launch. The statistics (the row maximum and
// sum), written by one phase and read by a later one, are its shared arguments 1 and 2.

// CHECK:      lowlevel.kernel @softmax_0(%0: memref<2x4xf32>, %1: memref<2xf32>, %2: memref<2xf32>, %3: memref<2x4xf32>) attributes {{{.*}}shared = array<i64: 1, 2>}
// CHECK-NOT:  lowlevel.kernel
// CHECK:      lowlevel.barrier global
// CHECK-NOT:  lowlevel.kernel
// CHECK:      lowlevel.barrier global
// CHECK-NOT:  lowlevel.kernel
// CHECK:      lowlevel.launch @softmax_0(%x, %0, %1, %y)
// CHECK-NOT:  lowlevel.launch
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @exp_sub(%m: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  func.return %e : f32
}
func.func @div_rows(%m: f32, %s: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  %r = arith.divf %e, %s : f32
  func.return %r : f32
}
func.func @softmax(%x: memref<2x4xf32>) -> memref<2x4xf32> {
  %y = mdh.compute "sm"
    {inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     md_hom = {scalar_func = @div_rows, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     stats = [{func = @id, combine_ops = ["cc", ["pw", "max"]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]},
              {func = @exp_sub, combine_ops = ["cc", ["pw", "add"]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]}]}
    {inp_types = [f32], mda_size = [2, 4], out_types = [f32]}
    (%x, %x, %x) : (memref<2x4xf32>, memref<2x4xf32>, memref<2x4xf32>) -> memref<2x4xf32>
  func.return %y : memref<2x4xf32>
}
