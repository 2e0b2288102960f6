// Rule pw-functions: two pw dimensions with different combine functions.
// EXPECT: 9:3: mdh.compute "sum_max": configuration breaks rule 'pw-functions': pw dimensions with different combine functions
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @sm(%M: memref<8x4xf32>) -> memref<f32> {
  %s = mdh.compute "sum_max"
    {inp_view = [[affine_map<(i, k) -> (i, k)>]],
     md_hom = {scalar_func = @id, combine_ops = [["pw", "add"], ["pw", "max"]]},
     out_view = [[affine_map<(i, k) -> ()>]]}
    {inp_types = [f32], mda_size = [8, 4], out_types = [f32]}
    (%M) : (memref<8x4xf32>) -> memref<f32>
  func.return %s : memref<f32>
}
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
