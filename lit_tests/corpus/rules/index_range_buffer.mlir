// Rule index-range: an outer product of 2^31 elements (every dimension below 2^31).
// EXPECT: 9:3: mdh.compute "outer": configuration breaks rule 'index-range': a buffer of 2147483648 elements >= 2^31
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @outer(%a: memref<65536xf32>, %b: memref<32768xf32>) -> memref<65536x32768xf32> {
  %o = mdh.compute "outer"
    {inp_view = [[affine_map<(i, j) -> (i)>], [affine_map<(i, j) -> (j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, j) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [65536, 32768], out_types = [f32]}
    (%a, %b) : (memref<65536xf32>, memref<32768xf32>) -> memref<65536x32768xf32>
  func.return %o : memref<65536x32768xf32>
}
