// Matrix-vector product: w[i] = sum_k M[i,k] * v[k]  (md_hom: *, (cc, +)).
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  %w = mdh.compute "mdh_matvec"
  {
    inp_view = [ [ affine_map<(i,k) -> (i,k)> ], [ affine_map<(i,k) -> (k)> ] ],
    md_hom   = { scalar_func = @mul, combine_ops = [ "cc", ["pw", @add] ] },
    out_view = [ [ affine_map<(i,k) -> (i)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 128, 64 ], out_types = [ f32 ] }
  (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}
