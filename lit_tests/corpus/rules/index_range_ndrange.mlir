// Rule index-range: 2^16 x 2^16 work-groups folded on OpenCL dimension 0.
// EXPECT: 9:3: mdh.compute "outer": configuration breaks rule 'index-range': OpenCL dim 0: global size 4294967296 >= 2^31
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @outer(%a: memref<65536xf32>, %b: memref<65536xf32>) -> memref<f32> {
  %s = mdh.compute "outer"
    {inp_view = [[affine_map<(i, k) -> (i)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", "add"], ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [65536, 65536], out_types = [f32],
     config = #mdh.config<num_wg = [65536, 65536], num_wi = [1, 1], lt_size = [1, 1], pt_size = [1, 1],
                          ocl_dim = [[0, 0], [0, 0]]>}
    (%a, %b) : (memref<65536xf32>, memref<65536xf32>) -> memref<f32>
  func.return %s : memref<f32>
}
