// A clamped access 2^20 * i over 2^12 rows computes indices up to about 2^32 before
// clamping: beyond 32-bit int.
// EXPECT: 10:3: mdh.compute "mv": configuration breaks rule 'index-range': input 0 (boundary 'clamp'): reading axis 0 with map (d0, d1) -> ((d0 * 1048576), d1) comput
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<4096xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (1048576 * i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]],
     boundary = ["clamp", "none"]}
    {inp_types = [f32, f32], mda_size = [4096, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<4096xf32>
  func.return %w : memref<4096xf32>
}
