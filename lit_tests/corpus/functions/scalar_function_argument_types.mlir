// The scalar function takes f64 arguments for f32 inputs.
// EXPECT: 9:3: mdh.compute "mv": md_hom: scalar_func @mul takes (f64, f64); expected one argument per input access (f32, f32), optionally followed by 2 index argumen
func.func @mul(%a: f64, %b: f64) -> f32 {
  %r = arith.mulf %a, %b : f64
  %t = arith.truncf %r : f64 to f32
  func.return %t : f32
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
