// RUN: mdh-opt %examples/histogram.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/histogram.mlir | filecheck %s

// examples/histogram.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @histogram(%x: memref<1000xi32>) -> memref<16xi32> {
// CHECK-NEXT: %count = mdh.compute "mdh_histogram" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0)>]], md_hom = {scalar_func = @count, combine_ops = {{\[\[}}"pw", @add], "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d1)>]]} {inp_types = [i32], mda_size = [1000, 16], out_types = [i32]} (%x) : (memref<1000xi32>) -> memref<16xi32>
