// RUN: mdh-opt %examples/bmatmul.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/bmatmul.mlir | filecheck %s

// examples/bmatmul.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @bmatmul(%A: memref<3x4x6xf32>, %B: memref<3x6x5xf32>) -> memref<3x4x5xf32> {
// CHECK-NEXT: %C = mdh.compute "mdh_bmatmul" {inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", "cc", ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]]} {inp_types = [f32, f32], mda_size = [3, 4, 5, 6], out_types = [f32]} (%A, %B) : (memref<3x4x6xf32>, memref<3x6x5xf32>) -> memref<3x4x5xf32>
