// Three 46000 x 46000 f64 matrices (about 51 GB) exceed any device's memory while
// every buffer stays below 2^31 elements.
// NEEDS: global_mem 50784000000
// EXPECT: 11:3: mdh.compute "mm": configuration breaks rule 'global-memory': buffers of 50784000000 bytes > device global memory {global_mem} ({model})
// EXPECT-OPT: ok
func.func @mul(%a: f64, %b: f64) -> f64 {
  %r = arith.mulf %a, %b : f64
  func.return %r : f64
}
func.func @mm(%A: memref<46000x46000xf64>, %B: memref<46000x46000xf64>) -> memref<46000x46000xf64> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f64, f64], mda_size = [46000, 46000, 46000], out_types = [f64]}
    (%A, %B) : (memref<46000x46000xf64>, memref<46000x46000xf64>) -> memref<46000x46000xf64>
  func.return %C : memref<46000x46000xf64>
}
