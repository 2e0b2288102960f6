// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm' | filecheck %s --check-prefix=BEFORE
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm' | mdh-opt -p mdh-promote-memory | filecheck %s

// mdh-promote-memory on an op of precision "tf32" computed with FP32 FMAs (mma "none"):
// mdh-tile rounds every read of A and B to TF32; A and B are cached in local memory, so
// the copies from global memory round (`round = "tf32"`) and the reads of the local
// copies, in the register tiles' loops, no longer do.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<64x32xf32>, %B: memref<32x64xf32>) -> memref<64x64xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [64, 64, 32], out_types = [f32], precision = "tf32",
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [8, 8, 1], lt_size = [32, 32, 8], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], combine_layer = "end", vector_width = 1>}
    (%A, %B) : (memref<64x32xf32>, memref<32x64xf32>) -> memref<64x64xf32>
  func.return %C : memref<64x64xf32>
}

// BEFORE:      %[[A:.*]] = lowlevel.view_load %0
// BEFORE-NEXT: %[[B:.*]] = lowlevel.view_load %1
// BEFORE-NEXT: lowlevel.round_tf32 %[[A]]
// BEFORE-NEXT: lowlevel.round_tf32 %[[B]]

// CHECK:     lowlevel.copy %0[{{.*}}] -> %[[ALCL:[0-9]+]] {{.*}}round = "tf32"
// CHECK:     lowlevel.copy %1[{{.*}}] -> %[[BLCL:[0-9]+]] {{.*}}round = "tf32"
// CHECK:     lowlevel.barrier
// CHECK-NOT: lowlevel.round_tf32
// CHECK:     lowlevel.view_load %[[ALCL]][
// CHECK-NOT: lowlevel.round_tf32
// CHECK:     lowlevel.view_load %[[BLCL]][
// CHECK-NOT: lowlevel.round_tf32
// CHECK:     func.call @mul
