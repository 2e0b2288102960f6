// Rule lcl-swizzle: swizzled local rows only on tensor-core fragments, without padding.
// EXPECT: 9:3: mdh.compute "mv": configuration breaks rule 'lcl-swizzle': lcl_swizzle needs mma other than 'none' and lcl_pad 0 (mma 'none', lcl_pad 0)
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
     config = #mdh.config<lcl_swizzle = 1>}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
