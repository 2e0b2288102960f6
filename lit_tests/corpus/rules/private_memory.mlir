// Rule private-memory: a 128 x 256 private tile cached in private memory.
// NEEDS: private_elems 32896
// EXPECT: 10:3: mdh.compute "mv": configuration breaks rule 'private-memory': 32896 elements > budget {private_elems} ({model})
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<128x256xf32>, %v: memref<256xf32>) -> memref<128xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 256], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1], num_wi = [1, 1], lt_size = [128, 256], pt_size = [128, 256], inp_mem = [["glb", "glb"], ["prv", "glb"]]>}
    (%M, %v) : (memref<128x256xf32>, memref<256xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}
