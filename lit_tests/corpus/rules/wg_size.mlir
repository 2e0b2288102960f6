// Rule wg-size: 8192 work-items per work-group (CPU devices allow 4096).
// NEEDS: max_wg_size 8192
// EXPECT: 10:3: mdh.compute "mv": configuration breaks rule 'wg-size': 8192 work-items per work-group > device limit {max_wg_size} ({model})
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8192x4xf32>, %v: memref<4xf32>) -> memref<8192xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8192, 4], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1], num_wi = [8192, 1], lt_size = [8192, 4], pt_size = [1, 4]>}
    (%M, %v) : (memref<8192x4xf32>, memref<4xf32>) -> memref<8192xf32>
  func.return %w : memref<8192xf32>
}
