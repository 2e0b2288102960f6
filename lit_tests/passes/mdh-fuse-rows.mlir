// RUN: mdh-opt %s -p mdh-fuse | filecheck %s
// RUN: mdh-opt %s -p mdh-fuse | mdh-opt --lower-to-opencl | filecheck %s --check-prefix=CL

// Row softmax as three ops: the row maximum, the sum of exp(x - max), the quotient.
// mdh-fuse makes the two reductions the quotient's row statistics (the functions take
// the earlier statistics first: @div gets a wrapper), and the lowering runs them as
// phases of one kernel, barriers on global memory between them; the statistics, written
// by one phase and read by the next, are shared arguments (no restrict).

func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @exp_sub(%m: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  func.return %e : f32
}
func.func @div(%m: f32, %x: f32, %s: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  %r = arith.divf %e, %s : f32
  func.return %r : f32
}

// CHECK:      func.func @div_rows(%0: f32, %1: f32, %2: f32) -> f32 {
// CHECK-NEXT:   %3 = func.call @div(%0, %2, %1) : (f32, f32, f32) -> f32
// CHECK:      %y = mdh.compute "max_sum_div" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @div_rows, combine_ops = ["cc", "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]], stats = [{func = @id, combine_ops = ["cc", ["pw", "max"]], inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]]}, {func = @exp_sub, combine_ops = ["cc", ["pw", "add"]], inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]]}]} {inp_types = [f32], mda_size = [6, 10], out_types = [f32]} (%x, %x, %x)

// CL:         __kernel {{.*}} void softmax_0(__global const float* restrict [[X:v[0-9]+]], __global float* [[M:v[0-9]+]], __global float* [[S:v[0-9]+]], __global float* restrict [[Y:v[0-9]+]])
// CL:           [[M]][{{.*}}] =
// CL:           barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
// CL:           mdh_exp_sub(
// CL:           [[S]][{{.*}}] =
// CL:           barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
// CL:           mdh_div_rows(
// CL:           [[Y]][{{.*}}] =
// CL-NOT:     __kernel
// CL:         launch softmax_0({{.*}}) global
// CL-NOT:     launch
func.func @softmax(%x: memref<6x10xf32>) -> memref<6x10xf32> {
  %m = mdh.compute "max"
    {inp_view = [[affine_map<(i,j) -> (i,j)>]],
     md_hom = {scalar_func = @id, combine_ops = ["cc", ["pw", "max"]]},
     out_view = [[affine_map<(i,j) -> (i)>]]}
    {inp_types = [f32], mda_size = [6, 10], out_types = [f32]}
    (%x) : (memref<6x10xf32>) -> memref<6xf32>
  %s = mdh.compute "sum"
    {inp_view = [[affine_map<(i,j) -> (i)>], [affine_map<(i,j) -> (i,j)>]],
     md_hom = {scalar_func = @exp_sub, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i,j) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [6, 10], out_types = [f32]}
    (%m, %x) : (memref<6xf32>, memref<6x10xf32>) -> memref<6xf32>
  %y = mdh.compute "div"
    {inp_view = [[affine_map<(i,j) -> (i)>], [affine_map<(i,j) -> (i,j)>], [affine_map<(i,j) -> (i)>]],
     md_hom = {scalar_func = @div, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i,j) -> (i,j)>]]}
    {inp_types = [f32, f32, f32], mda_size = [6, 10], out_types = [f32]}
    (%m, %x, %s) : (memref<6xf32>, memref<6x10xf32>, memref<6xf32>) -> memref<6x10xf32>
  func.return %y : memref<6x10xf32>
}
