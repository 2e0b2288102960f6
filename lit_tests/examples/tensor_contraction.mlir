// RUN: mdh-opt %examples/tensor_contraction.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/tensor_contraction.mlir | filecheck %s

// examples/tensor_contraction.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @tensor_contraction(%A: memref<4x3x3x2xf32>, %B: memref<2x2x4x2xf32>) -> memref<3x2x2x3x2x2xf32> {
// CHECK-NEXT: %C = mdh.compute "mdh_tensor_contraction" {inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d3, d0, d1)>], [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d2)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", "cc", "cc", "cc", "cc", ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>]]} {inp_types = [f32, f32], mda_size = [3, 2, 2, 3, 2, 2, 4], out_types = [f32]} (%A, %B) : (memref<4x3x3x2xf32>, memref<2x2x4x2xf32>) -> memref<3x2x2x3x2x2xf32>
