// RUN: mdh-opt %examples/matvec.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/matvec.mlir | filecheck %s

// examples/matvec.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
// CHECK-NEXT: %w = mdh.compute "mdh_matvec" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>], [affine_map<(d0, d1) -> (d1)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d0)>]]} {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32]} (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
