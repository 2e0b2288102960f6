// RUN: mdh-opt %examples/mcc.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/mcc.mlir | filecheck %s

// examples/mcc.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @mcc(%x: memref<2x7x8x2xf32>, %w: memref<3x3x2x2xf32>) -> memref<2x3x4x3xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_mcc" {inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 * 2) + d4), ((d2 * 2) + d5), d6)>], [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", "cc", "cc", ["pw", @add], ["pw", @add], ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]]} {inp_types = [f32, f32], mda_size = [2, 3, 4, 3, 3, 2, 2], out_types = [f32]} (%x, %w) : (memref<2x7x8x2xf32>, memref<3x3x2x2xf32>) -> memref<2x3x4x3xf32>
