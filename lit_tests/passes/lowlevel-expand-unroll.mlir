// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p lowlevel-expand,dce | filecheck %s
// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p lowlevel-expand,dce | filecheck %s --check-prefix=BARE

// lowlevel-expand fully unrolls small constant loops over private arrays (`unroll = 0`,
// printed as `#pragma unroll`), but not a loop that holds a barrier: here the loop over
// the two k-tiles touches the private accumulator and has a constant trip count of 2,
// yet stays rolled (its body is a whole tile's work, and NVIDIA's OpenCL compiler
// miscomputed such loops unrolled); the loops over the 4 x 4 private tile inside it
// are unrolled.
// CHECK-LABEL: lowlevel.kernel @steps_0(
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[TWO]] step %{{.*}} {
// CHECK:           lowlevel.barrier
// CHECK:                 math.fma
// CHECK:               } {unroll = 0 : i64}
// CHECK-NEXT:        } {unroll = 0 : i64}
// CHECK-NEXT:      } {unroll = 0 : i64}
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NEXT:    {{^ +}$}}

// Both local copies are marked `inside` (8 x 8 matrices in tiles of 8 x 4 and 4 x 8), so
// they move without bounds checks: no scf.if in the kernel.
// BARE-LABEL: lowlevel.kernel @steps_0(
// BARE-NOT:   scf.if
// BARE:       func.func @steps(

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @steps(%A: memref<8x8xf32>, %B: memref<8x8xf32>) -> memref<8x8xf32> {
  %C = mdh.compute "steps"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [8, 8, 8], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1, 1], num_wi = [2, 2, 1], lt_size = [8, 8, 4], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]]>}
    (%A, %B) : (memref<8x8xf32>, memref<8x8xf32>) -> memref<8x8xf32>
  func.return %C : memref<8x8xf32>
}
