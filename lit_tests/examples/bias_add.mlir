// RUN: mdh-opt %examples/bias_add.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/bias_add.mlir | filecheck %s

// examples/bias_add.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @bias_add(%x: memref<2x5x4x3xf32>, %bias: memref<3xf32>) -> memref<2x5x4x3xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_bias_add" {inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], [affine_map<(d0, d1, d2, d3) -> (d3)>]], md_hom = {scalar_func = @add, combine_ops = ["cc", "cc", "cc", "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]]} {inp_types = [f32, f32], mda_size = [2, 5, 4, 3], out_types = [f32]} (%x, %bias) : (memref<2x5x4x3xf32>, memref<3xf32>) -> memref<2x5x4x3xf32>
