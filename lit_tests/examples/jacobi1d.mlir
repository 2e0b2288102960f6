// RUN: mdh-opt %examples/jacobi1d.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/jacobi1d.mlir | filecheck %s

// examples/jacobi1d.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_jacobi1d" {inp_view = {{\[\[}}affine_map<(d0) -> ((d0 + -1))>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ((d0 + 1))>]], md_hom = {scalar_func = @avg3, combine_ops = ["cc"]}, out_view = {{\[\[}}affine_map<(d0) -> (d0)>]], boundary = ["clamp"]} {inp_types = [f32], mda_size = [37], out_types = [f32]} (%x) : (memref<37xf32>) -> memref<37xf32>
