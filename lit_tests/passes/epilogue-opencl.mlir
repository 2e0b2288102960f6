// RUN: mdh-opt %s -p mdh-fuse | mdh-opt --lower-to-opencl | filecheck %s

// The epilogue (bias, then ReLU) of a matrix product whose k dimension is split over
// 2 work-groups (wg_combine "kernel") applies where the final value is written: in the
// combine kernel, after the partial results are added, before the store. The main
// kernel stores partial results to the temporary buffer and never calls it.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @bias_relu(%c: f32, %b: f32) -> f32 {
  %s = arith.addf %c, %b : f32
  %z = arith.constant 0.0 : f32
  %r = arith.maximumf %s, %z : f32
  func.return %r : f32
}

// CHECK:      static float mdh_bias_relu(
// CHECK:      __kernel {{.*}} void mm_bias_relu_0(
// CHECK-NOT:  mdh_bias_relu(
// CHECK:      __kernel {{.*}} void mm_bias_relu_0_combine(__global const float* restrict [[TEMP:v[0-9]+]], __global float* restrict [[OUT:v[0-9]+]], __global const float* restrict [[BIAS:v[0-9]+]])
// CHECK:        const float [[SUM:v[0-9]+]] = mdh_add({{v[0-9]+}}, {{v[0-9]+}});
// CHECK:        const float [[B1:v[0-9]+]] = [[BIAS]][
// CHECK-NEXT:   const float [[R:v[0-9]+]] = mdh_bias_relu([[SUM]], [[B1]]);
// CHECK-NEXT:   [[OUT]][{{.*}}] = [[R]];
func.func @mm_bias_relu(%A: memref<8x6xf32>, %B: memref<6x4xf32>, %b: memref<4xf32>) -> memref<8x4xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4, 6], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1, 2], num_wi = [2, 2, 1], lt_size = [4, 4, 3], pt_size = [2, 2, 3],
       inp_mem = [["glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[0, 1, 2], [0, 1, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [0, 1, 2]],
       combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel">}
    (%A, %B) : (memref<8x6xf32>, memref<6x4xf32>) -> memref<8x4xf32>
  %R = mdh.compute "bias_relu"
    {inp_view = [[affine_map<(i,j) -> (i,j)>], [affine_map<(i,j) -> (j)>]],
     md_hom = {scalar_func = @bias_relu, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i,j) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%C, %b) : (memref<8x4xf32>, memref<4xf32>) -> memref<8x4xf32>
  func.return %R : memref<8x4xf32>
}
