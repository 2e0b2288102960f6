// Multi-channel convolution, NHWC input, KRSC filter, stride 2:
// y[n,p,q,k] = sum_{r,s,c} x[n, 2p+r, 2q+s, c] * w[k,r,s,c]  (md_hom: *, (cc x4, + x3)).
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @mcc(%x: memref<2x7x8x2xf32>, %w: memref<3x3x2x2xf32>) -> memref<2x3x4x3xf32> {
  %y = mdh.compute "mdh_mcc"
  {
    inp_view = [ [ affine_map<(n,p,q,k,r,s,c) -> (n, 2*p + r, 2*q + s, c)> ],
                 [ affine_map<(n,p,q,k,r,s,c) -> (k,r,s,c)> ] ],
    md_hom   = { scalar_func = @mul,
                 combine_ops = [ "cc", "cc", "cc", "cc", ["pw", @add], ["pw", @add], ["pw", @add] ] },
    out_view = [ [ affine_map<(n,p,q,k,r,s,c) -> (n,p,q,k)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 2, 3, 4, 3, 3, 2, 2 ], out_types = [ f32 ] }
  (%x, %w) : (memref<2x7x8x2xf32>, memref<3x3x2x2xf32>) -> memref<2x3x4x3xf32>
  func.return %y : memref<2x3x4x3xf32>
}
