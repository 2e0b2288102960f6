// RUN: mdh-opt %examples/prl.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/prl.mlir | filecheck %s

// examples/prl.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @prl(%A: memref<13x3xi32>, %B: memref<40x3xi32>, %A_date: memref<13xf32>, %B_date: memref<40xf32>) -> (memref<13xf32>, memref<13xi32>) {
// CHECK-NEXT: %weight, %match = mdh.compute "mdh_prl" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 1)>, affine_map<(d0, d1) -> (d0, 2)>], [affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d1, 1)>, affine_map<(d0, d1) -> (d1, 2)>], [affine_map<(d0, d1) -> (d0)>], [affine_map<(d0, d1) -> (d1)>]], md_hom = {scalar_func = @weight, combine_ops = ["cc", ["pw", @best]]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d0)>], [affine_map<(d0, d1) -> (d0)>]]} {inp_types = [i32, i32, f32, f32], mda_size = [13, 40], out_types = [f32, i32]} (%A, %B, %A_date, %B_date) : (memref<13x3xi32>, memref<40x3xi32>, memref<13xf32>, memref<40xf32>) -> (memref<13xf32>, memref<13xi32>)
