// Tensor contraction abcdef-gdab-efgc (CCSD(T)-like):
// C[a,b,c,d,e,f] = sum_g A[g,d,a,b] * B[e,f,g,c]  (md_hom: *, (cc x6, +)).
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @tensor_contraction(%A: memref<4x3x3x2xf32>, %B: memref<2x2x4x2xf32>) -> memref<3x2x2x3x2x2xf32> {
  %C = mdh.compute "mdh_tensor_contraction"
  {
    inp_view = [ [ affine_map<(a,b,c,d,e,f,g) -> (g,d,a,b)> ], [ affine_map<(a,b,c,d,e,f,g) -> (e,f,g,c)> ] ],
    md_hom   = { scalar_func = @mul, combine_ops = [ "cc", "cc", "cc", "cc", "cc", "cc", ["pw", @add] ] },
    out_view = [ [ affine_map<(a,b,c,d,e,f,g) -> (a,b,c,d,e,f)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 3, 2, 2, 3, 2, 2, 4 ], out_types = [ f32 ] }
  (%A, %B) : (memref<4x3x3x2xf32>, memref<2x2x4x2xf32>) -> memref<3x2x2x3x2x2xf32>
  func.return %C : memref<3x2x2x3x2x2xf32>
}
