// Rule rows: a fused row softmax (row statistics) whose rows are split across two
// work-groups: a phase would read statistics that another work-group writes.
// EXPECT: 20:3: mdh.compute "max_sum_div": configuration breaks rule 'rows': dims [1]: a statistic reduces them, num_wg must be 1
// EXPECT-OPT: ok
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @exp_sub(%m: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  func.return %e : f32
}
func.func @div_rows(%m: f32, %s: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  %r = arith.divf %e, %s : f32
  func.return %r : f32
}
func.func @softmax(%x: memref<6x10xf32>) -> memref<6x10xf32> {
  %y = mdh.compute "max_sum_div"
    {inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     md_hom = {scalar_func = @div_rows, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     stats = [{func = @id, combine_ops = ["cc", ["pw", "max"]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]},
              {func = @exp_sub, combine_ops = ["cc", ["pw", "add"]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]}]}
    {inp_types = [f32], mda_size = [6, 10], out_types = [f32],
     config = #mdh.config<num_wg = [1, 2]>}
    (%x, %x, %x) : (memref<6x10xf32>, memref<6x10xf32>, memref<6x10xf32>) -> memref<6x10xf32>
  func.return %y : memref<6x10xf32>
}
