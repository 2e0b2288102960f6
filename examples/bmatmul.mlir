// Batched matrix product: C[b,i,j] = sum_k A[b,i,k] * B[b,k,j]  (md_hom: *, (cc, cc, cc, +)).
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @bmatmul(%A: memref<3x4x6xf32>, %B: memref<3x6x5xf32>) -> memref<3x4x5xf32> {
  %C = mdh.compute "mdh_bmatmul"
  {
    inp_view = [ [ affine_map<(b,i,j,k) -> (b,i,k)> ], [ affine_map<(b,i,j,k) -> (b,k,j)> ] ],
    md_hom   = { scalar_func = @mul, combine_ops = [ "cc", "cc", "cc", ["pw", @add] ] },
    out_view = [ [ affine_map<(b,i,j,k) -> (b,i,j)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 3, 4, 5, 6 ], out_types = [ f32 ] }
  (%A, %B) : (memref<3x4x6xf32>, memref<3x6x5xf32>) -> memref<3x4x5xf32>
  func.return %C : memref<3x4x5xf32>
}
