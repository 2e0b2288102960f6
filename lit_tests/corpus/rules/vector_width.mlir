// Rule vector-width: vectors along the pw dimension accumulate in private memory only.
// EXPECT: 9:3: mdh.compute "mv": configuration breaks rule 'vector-width': the innermost loop is over pw dim 1 and results are not accumulated in private memory
// EXPECT-OPT: ok
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
     config = #mdh.config<vector_width = 4, loop_order = [[0, 1], [0, 1]], res_mem = ["glb"]>}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
