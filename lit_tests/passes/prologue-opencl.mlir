// RUN: mdh-opt %s --lower-to-opencl | filecheck %s

// A prologue applies where the scalar function reads its inputs, after promotion: the
// local copy of A holds A as it is in global memory, and @scale runs on the values
// read from it, before the multiply-add.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @scale(%a: f32) -> f32 {
  %k = arith.constant 0.5 : f32
  %r = arith.mulf %a, %k : f32
  func.return %r : f32
}

// CHECK:      static float mdh_scale(
// CHECK:      __kernel
// CHECK:        __local float [[LA:v[0-9]+]][
// CHECK:        const float [[A:v[0-9]+]] = {{v[0-9]+}}[
// CHECK-NEXT:   [[LA]][{{.*}}] = [[A]];
// CHECK:        const float [[RAW:v[0-9]+]] = [[LA]][
// CHECK-NEXT:   const float [[B:v[0-9]+]] = {{v[0-9]+}}[
// CHECK-NEXT:   const float [[SCALED:v[0-9]+]] = mdh_scale([[RAW]]);
// CHECK:        fma([[SCALED]], [[B]],
func.func @mm(%A: memref<8x6xf32>, %B: memref<6x4xf32>) -> memref<8x4xf32> {
  %C = mdh.compute "scale_mm"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]], prologue = [{func = @scale, inputs = [0]}]}
    {inp_types = [f32, f32], mda_size = [8, 4, 6], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1, 1], num_wi = [2, 2, 1], lt_size = [4, 4, 6], pt_size = [2, 2, 6],
       inp_mem = [["lcl", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[0, 1, 2], [0, 1, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [0, 1, 2]],
       combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel">}
    (%A, %B) : (memref<8x6xf32>, memref<6x4xf32>) -> memref<8x4xf32>
  func.return %C : memref<8x4xf32>
}
