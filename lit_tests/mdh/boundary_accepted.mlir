// RUN: mdh-opt %s | filecheck %s

// The views that verify_inp_view.mlir rejects for reading outside their buffers are
// accepted once the buffers have a boundary mode.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, 2 * k)>], [affine_map<(i, k) -> (k - 1)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]], boundary = ["zero", "clamp"]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// CHECK: mdh.compute "mv" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, (d1 * 2))>], [affine_map<(d0, d1) -> ((d1 + -1))>]]
// CHECK-SAME: boundary = ["zero", "clamp"]}
