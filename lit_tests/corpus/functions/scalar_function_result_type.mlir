// The scalar function returns i32 for an f32 output.
// EXPECT: 9:3: mdh.compute "mv": md_hom: scalar_func @mul returns (i32); expected out_types (f32)
func.func @mul(%a: f32, %b: f32) -> i32 {
  %r = arith.mulf %a, %b : f32
  %i = arith.fptosi %r : f32 to i32
  func.return %i : i32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
