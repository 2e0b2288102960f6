// A key that mdh.compute does not know.
// EXPECT: 12:68: mdh.compute: unexpected key 'tile' in this dictionary (allowed: inp_types, mda_size, out_types, config, precision, kernel_group)
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32], tile = 4}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
