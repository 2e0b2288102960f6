// RUN: mdh-opt %s -p mdh-bufferize,mdh-default-config,mdh-check-config,mdh-split-stats | filecheck %s

// A row softmax as one op with row statistics (the form mdh-fuse makes): mdh-split-stats
// lowers it as one op per phase, sharing the configuration and a kernel group: the row
// maximum, the sum of exp(x - max) reading it, the quotient reading both.

// CHECK:      %0 = mdh.compute "sm" {{{.*}}md_hom = {scalar_func = @id, combine_ops = ["cc", ["pw", "max"]]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d0)>]]} {inp_types = [f32], mda_size = [2, 4], out_types = [f32], config = [[CFG:#mdh.config<.*>]], kernel_group = "sm"} (%x)
// CHECK-NEXT: %1 = mdh.compute "sm" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0)>], [affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @exp_sub, combine_ops = ["cc", ["pw", "add"]]}, {{.*}}kernel_group = "sm"} (%0, %x)
// CHECK-NEXT: %y = mdh.compute "sm" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0)>], [affine_map<(d0, d1) -> (d0)>], [affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @div_rows, combine_ops = ["cc", "cc"]}, {{.*}}kernel_group = "sm"} (%0, %1, %x)
// CHECK-NEXT: func.return %y
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
