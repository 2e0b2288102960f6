// RUN: mdh-opt %examples/dot.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/dot.mlir | filecheck %s

// examples/dot.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @dot(%x: memref<100xf32>, %y: memref<100xf32>) -> memref<f32> {
// CHECK-NEXT: %r = mdh.compute "mdh_dot" {inp_view = {{\[\[}}affine_map<(d0) -> (d0)>], [affine_map<(d0) -> (d0)>]], md_hom = {scalar_func = @mul, combine_ops = {{\[\[}}"pw", @add]]}, out_view = {{\[\[}}affine_map<(d0) -> ()>]]} {inp_types = [f32, f32], mda_size = [100], out_types = [f32]} (%x, %y) : (memref<100xf32>, memref<100xf32>) -> memref<f32>
