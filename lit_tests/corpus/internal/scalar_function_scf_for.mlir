// A scalar function with a loop.
// EXPECT: 14:3: mdh.compute "mv": md_hom: @mul: scf.for is not a scalar op (arith and math ops, func.call; no regions)
func.func @mul(%a: f32, %b: f32) -> f32 {
  %lo = arith.constant 0 : index
  %hi = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lo to %hi step %st iter_args(%x = %a) -> (f32) {
    %y = arith.mulf %x, %b : f32
    scf.yield %y : f32
  }
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
