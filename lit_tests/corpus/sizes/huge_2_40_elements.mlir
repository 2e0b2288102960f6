// 2^40 matrix elements (4 TiB): refused by a rule before anything is allocated or built.
// EXPECT: 9:3: mdh.compute "mv": configuration breaks rule 'index-range': a buffer of 1099511627776 elements >= 2^31
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<1048576x1048576xf32>, %v: memref<1048576xf32>) -> memref<1048576xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [1048576, 1048576], out_types = [f32]}
    (%M, %v) : (memref<1048576x1048576xf32>, memref<1048576xf32>) -> memref<1048576xf32>
  func.return %w : memref<1048576xf32>
}
