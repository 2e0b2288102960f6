// RUN: mdh-opt %examples/prefix_sum.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/prefix_sum.mlir | filecheck %s

// examples/prefix_sum.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @prefix_sum(%x: memref<100xf32>) -> memref<100xf32> {
// CHECK-NEXT: %y = mdh.compute "mdh_prefix_sum" {inp_view = {{\[\[}}affine_map<(d0) -> (d0)>]], md_hom = {scalar_func = @id, combine_ops = {{\[\[}}"ps", @add]]}, out_view = {{\[\[}}affine_map<(d0) -> (d0)>]]} {inp_types = [f32], mda_size = [100], out_types = [f32]} (%x) : (memref<100xf32>) -> memref<100xf32>
