// The host function writes its result into an argument in memory space 3.
// EXPECT: 8:3: mdh.compute "mv": host function: @mv argument 2 of type memref<8xf32, 3 : i64> has a memory space (only the default global memory is supported)
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>, %o: memref<8xf32, 3>) {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  "memref.copy"(%w, %o) : (memref<8xf32>, memref<8xf32, 3>) -> ()
  func.return
}
