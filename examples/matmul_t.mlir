// Matrix product of transposed operands: C[i,j] = sum_k A[k,i] * B[j,k], i.e. C = A^T B^T.
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @matmul_t(%A: memref<16x10xf32>, %B: memref<20x16xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "mdh_matmul_t"
  {
    inp_view = [ [ affine_map<(i,j,k) -> (k,i)> ], [ affine_map<(i,j,k) -> (j,k)> ] ],
    md_hom   = { scalar_func = @mul, combine_ops = [ "cc", "cc", ["pw", @add] ] },
    out_view = [ [ affine_map<(i,j,k) -> (i,j)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 10, 20, 16 ], out_types = [ f32 ] }
  (%A, %B) : (memref<16x10xf32>, memref<20x16xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
