// Rule cache-box: buffer 0 read at (i) and at (k) cannot be cached as one box.
// EXPECT: 9:3: mdh.compute "slopes": configuration breaks rule 'cache-box': input 0 is cached at lt but its accesses differ by more than constants
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%a: memref<8xf32>, %v: memref<8xf32>) -> memref<8xf32> {
  %w = mdh.compute "slopes"
    {inp_view = [[affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul3, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 8], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [1, 1], lt_size = [4, 8], pt_size = [4, 8],
                          inp_mem = [["lcl", "glb"], ["glb", "glb"]]>}
    (%a, %v) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
func.func @mul3(%a: f32, %b: f32, %c: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  %s = arith.mulf %r, %c : f32
  func.return %s : f32
}
