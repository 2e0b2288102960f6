// RUN: mdh-opt %s | filecheck %s
// RUN: mdh-opt %s | mdh-opt | filecheck %s
// RUN: mdh-opt --print-op-generic %s | mdh-opt | filecheck %s

// The tuning configuration round-trips, partial or complete, in the second dictionary.

func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @dot(%x: memref<100xf32>, %y: memref<100xf32>) -> memref<f32> {
  %r = mdh.compute "dot"
  { inp_view = [ [ affine_map<(k) -> (k)> ], [ affine_map<(k) -> (k)> ] ],
    md_hom = { scalar_func = @mulf, combine_ops = [ ["pw", "add"] ] },
    out_view = [ [ affine_map<(k) -> ()> ] ] }
  { inp_types = [ f32, f32 ], mda_size = [ 100 ], out_types = [ f32 ],
    config = #mdh.config<num_wg = [4], num_wi = [32], loop_order = [[0], [0]], combine_layer = "end"> }
  (%x, %y) : (memref<100xf32>, memref<100xf32>) -> memref<f32>
  func.return %r : memref<f32>
}
func.func @mulf(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// CHECK: mdh.compute "dot" {inp_view = {{\[\[}}affine_map<(d0) -> (d0)>], [affine_map<(d0) -> (d0)>]], md_hom = {scalar_func = @mulf, combine_ops = {{\[\[}}"pw", "add"]]}, out_view = {{\[\[}}affine_map<(d0) -> ()>]]}
// CHECK-SAME: {inp_types = [f32, f32], mda_size = [100], out_types = [f32], config = #mdh.config<num_wg = [4], num_wi = [32], loop_order = {{\[\[}}0], [0]], combine_layer = "end">}
// CHECK-SAME: (%{{.*}}, %{{.*}}) : (memref<100xf32>, memref<100xf32>) -> memref<f32>
