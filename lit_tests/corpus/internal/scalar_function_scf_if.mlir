// A scalar function branching with scf.if (refused up front, before mdh-vectorize would meet its vector of conditions).
// EXPECT: 14:3: mdh.compute "mv": md_hom: @mul: scf.if is not a scalar op (arith and math ops, func.call; no regions)
func.func @mul(%a: f32, %b: f32) -> f32 {
  %c = arith.cmpf ogt, %a, %b : f32
  %r = scf.if %c -> (f32) {
    scf.yield %a : f32
  } else {
    %m = arith.mulf %a, %b : f32
    scf.yield %m : f32
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
