// Rule local-memory: a 256 x 1024 f32 tile cached in local memory is 1 MiB (the cpu preset: 512 KiB).
// NEEDS: local_mem 1048576
// EXPECT: 10:3: mdh.compute "mv": configuration breaks rule 'local-memory': 1048576 bytes > device limit {local_mem} ({model})
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<256x1024xf32>, %v: memref<1024xf32>) -> memref<256xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [256, 1024], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1], num_wi = [1, 1], lt_size = [256, 1024], pt_size = [1, 1024], inp_mem = [["lcl", "glb"], ["glb", "glb"]]>}
    (%M, %v) : (memref<256x1024xf32>, memref<1024xf32>) -> memref<256xf32>
  func.return %w : memref<256xf32>
}
