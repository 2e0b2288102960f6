// A result in memory space 1.
// EXPECT: 8:3: mdh.compute "mv": out_types: result type memref<8xf32, 1 : i64> has a memory space (only the default global memory is supported)
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32, 1> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32, 1>
  func.return %w : memref<8xf32, 1>
}
