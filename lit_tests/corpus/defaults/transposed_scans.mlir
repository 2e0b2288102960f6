// Sizes that the default's tiles do not divide (23 x 7 x 13 x 4), two scans between
// concatenations, the output transposed and a second input read along d1 only: the
// CPU default grew d2's tiles of 4 to 16 > 13 (rule 'tile-sizes').
// EXPECT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @k(%A: memref<23x7x13x4xf32>, %v: memref<8xf32>) -> memref<4x13x7x23xf32> {
  %w = mdh.compute "k"
    {inp_view = [[affine_map<(i, j, k, l) -> (i, j, k, l)>], [affine_map<(i, j, k, l) -> (j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["ps", "add"], ["ps", "add"], "cc"]},
     out_view = [[affine_map<(i, j, k, l) -> (l, k, j, i)>]]}
    {inp_types = [f32, f32], mda_size = [23, 7, 13, 4], out_types = [f32]}
    (%A, %v) : (memref<23x7x13x4xf32>, memref<8xf32>) -> memref<4x13x7x23xf32>
  func.return %w : memref<4x13x7x23xf32>
}
