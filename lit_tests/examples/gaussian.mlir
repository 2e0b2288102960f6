// RUN: mdh-opt %examples/gaussian.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/gaussian.mlir | filecheck %s

// examples/gaussian.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @gaussian(%x: memref<13x12xf32>, %g: memref<5x5xf32>) -> memref<9x8xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_gaussian" {inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> ((d0 + d2), (d1 + d3))>], [affine_map<(d0, d1, d2, d3) -> (d2, d3)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add], ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d0, d1)>]]} {inp_types = [f32, f32], mda_size = [9, 8, 5, 5], out_types = [f32]} (%x, %g) : (memref<13x12xf32>, memref<5x5xf32>) -> memref<9x8xf32>
