// A configuration integer below -2^63.
// EXPECT: 13:36: #mdh.config: integer -9223372036854775809 is out of range (configuration integers lie in [-2^63, 2^63))
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32],
     config = #mdh.config<unroll = -9223372036854775809>}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
