// Rule wi-combine: work-items split the pw dimension but flush after each private tile.
// EXPECT: 9:3: mdh.compute "mv": configuration breaks rule 'wi-combine': a pw dimension has num_wi > 1, which needs combine_layer 'end' or 'lt' and no res_mem 'glb'
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
     config = #mdh.config<num_wg = [1, 1], num_wi = [1, 2], lt_size = [8, 4], pt_size = [8, 2], combine_layer = "pt">}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
