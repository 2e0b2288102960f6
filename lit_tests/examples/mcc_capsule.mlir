// RUN: mdh-opt %examples/mcc_capsule.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/mcc_capsule.mlir | filecheck %s

// examples/mcc_capsule.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @mcc_capsule(%x: memref<1x4x6x2x2x2xf32>, %w: memref<2x2x2x2x2x3xf32>) -> memref<1x2x3x2x2x3xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_mcc_capsule" {inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, ((d1 * 2) + d6), ((d2 * 2) + d7), d8, d4, d9)>], [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d3, d6, d7, d8, d9, d5)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", "cc", "cc", "cc", "cc", ["pw", @add], ["pw", @add], ["pw", @add], ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4, d5)>]]} {inp_types = [f32, f32], mda_size = [1, 2, 3, 2, 2, 3, 2, 2, 2, 2], out_types = [f32]} (%x, %w) : (memref<1x4x6x2x2x2xf32>, memref<2x2x2x2x2x3xf32>) -> memref<1x2x3x2x2x3xf32>
