// A legal computation of 2^48 points (2^24 sums of 2^24 products): it ran without limit.
// EXPECT-OPT: ok
// EXPECT-LOWER: ok
// EXPECT: 10:3: mdh.compute "outer": 281474976710656 points (2^48.0) are more than 4294967296 (2^32), which the reference check takes minutes for; pass --allow-large to run it anyway
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @outer(%u: memref<16777216xf32>, %v: memref<16777216xf32>) -> memref<16777216xf32> {
  %w = mdh.compute "outer"
    {inp_view = [[affine_map<(i, k) -> (i)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [16777216, 16777216], out_types = [f32]}
    (%u, %v) : (memref<16777216xf32>, memref<16777216xf32>) -> memref<16777216xf32>
  func.return %w : memref<16777216xf32>
}
