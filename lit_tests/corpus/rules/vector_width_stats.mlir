// Rule vector-width: vectors along a dimension that a row statistic reduces need a
// combine function of known identity in that statistic (each lane accumulates apart).
// EXPECT: 24:3: mdh.compute "absmax_sum_div": configuration breaks rule 'vector-width': statistic @id reduces dim 1 with a combine function of no known identity
// EXPECT-OPT: ok
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @absmax(%a: f32, %b: f32) -> f32 {
  %x = math.absf %a : f32
  %y = math.absf %b : f32
  %r = arith.maximumf %x, %y : f32
  func.return %r : f32
}
func.func @exp_sub(%m: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  func.return %e : f32
}
func.func @div_rows(%m: f32, %s: f32, %x: f32) -> f32 {
  %r = arith.divf %x, %s : f32
  func.return %r : f32
}
func.func @softmax(%x: memref<6x8xf32>) -> memref<6x8xf32> {
  %y = mdh.compute "absmax_sum_div"
    {inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     md_hom = {scalar_func = @div_rows, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     stats = [{func = @id, combine_ops = ["cc", ["pw", @absmax]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]},
              {func = @exp_sub, combine_ops = ["cc", ["pw", "add"]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]}]}
    {inp_types = [f32], mda_size = [6, 8], out_types = [f32],
     config = #mdh.config<num_wg = [6, 1], num_wi = [1, 1], lt_size = [1, 8], pt_size = [1, 8], vector_width = 4>}
    (%x, %x, %x) : (memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>) -> memref<6x8xf32>
  func.return %y : memref<6x8xf32>
}
