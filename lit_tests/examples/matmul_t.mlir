// RUN: mdh-opt %examples/matmul_t.mlir > %t
// RUN: mdh-opt %t | diff %t -
// RUN: mdh-opt --print-op-generic %t > %t.generic
// RUN: mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t -
// RUN: xdsl-opt %examples/matmul_t.mlir | filecheck %s

// examples/matmul_t.mlir round-trips through the custom and the generic form, and stock
// xdsl-opt parses it.

// CHECK: func.func @matmul_t(%A: memref<16x10xf32>, %B: memref<20x16xf32>) -> memref<10x20xf32> {
// CHECK-NEXT: %C = mdh.compute "mdh_matmul_t" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d2, d0)>], [affine_map<(d0, d1, d2) -> (d1, d2)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1)>]]} {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32]} (%A, %B) : (memref<16x10xf32>, memref<20x16xf32>) -> memref<10x20xf32>
