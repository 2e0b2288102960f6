// RUN: mdh-opt %examples/jacobi3d.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/jacobi3d.mlir | filecheck %s

// examples/jacobi3d.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @jacobi3d(%x: memref<8x7x6xf32>) -> memref<6x5x4xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_jacobi3d" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> ((d0 + 1), (d1 + 1), (d2 + 1))>, affine_map<(d0, d1, d2) -> (d0, (d1 + 1), (d2 + 1))>, affine_map<(d0, d1, d2) -> ((d0 + 2), (d1 + 1), (d2 + 1))>, affine_map<(d0, d1, d2) -> ((d0 + 1), d1, (d2 + 1))>, affine_map<(d0, d1, d2) -> ((d0 + 1), (d1 + 2), (d2 + 1))>, affine_map<(d0, d1, d2) -> ((d0 + 1), (d1 + 1), d2)>, affine_map<(d0, d1, d2) -> ((d0 + 1), (d1 + 1), (d2 + 2))>]], md_hom = {scalar_func = @sum7, combine_ops = ["cc", "cc", "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1, d2)>]]} {inp_types = [f32], mda_size = [6, 5, 4], out_types = [f32]} (%x) : (memref<8x7x6xf32>) -> memref<6x5x4xf32>
