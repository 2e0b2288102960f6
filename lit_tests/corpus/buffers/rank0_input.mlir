// A rank-0 input (a scale factor read at every point).
// EXPECT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @scale(%M: memref<8x12xf32>, %s: memref<f32>) -> memref<8x12xf32> {
  %w = mdh.compute "scale"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> ()>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, k) -> (i, k)>]]}
    {inp_types = [f32, f32], mda_size = [8, 12], out_types = [f32]}
    (%M, %s) : (memref<8x12xf32>, memref<f32>) -> memref<8x12xf32>
  func.return %w : memref<8x12xf32>
}
