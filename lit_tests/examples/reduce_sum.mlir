// RUN: mdh-opt %examples/reduce_sum.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/reduce_sum.mlir | filecheck %s

// examples/reduce_sum.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @reduce_sum(%x: memref<7x5x3xf32>) -> memref<5x3xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_reduce_sum" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1, d2)>]], md_hom = {scalar_func = @id, combine_ops = {{\[\[}}"pw", @add], "cc", "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d1, d2)>]]} {inp_types = [f32], mda_size = [7, 5, 3], out_types = [f32]} (%x) : (memref<7x5x3xf32>) -> memref<5x3xf32>
