// A scalar function that calls itself (it would be inlined forever).
// EXPECT: 8:3: mdh.compute "mv": md_hom: @mul is recursive (@mul -> @mul); scalar functions are inlined, so they cannot recurse
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = func.call @mul(%b, %a) : (f32, f32) -> f32
  func.return %r : f32
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
