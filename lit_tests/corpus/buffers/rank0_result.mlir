// A rank-0 result: the sum of all elements.
// EXPECT: ok
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @sum(%M: memref<8x12xf32>) -> memref<f32> {
  %w = mdh.compute "sum"
    {inp_view = [[affine_map<(i, k) -> (i, k)>]],
     md_hom = {scalar_func = @id, combine_ops = [["pw", "add"], ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> ()>]]}
    {inp_types = [f32], mda_size = [8, 12], out_types = [f32]}
    (%M) : (memref<8x12xf32>) -> memref<f32>
  func.return %w : memref<f32>
}
