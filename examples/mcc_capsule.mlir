// Capsule convolution: MCC whose elements are matrices (stride 2),
// y[n,p,q,k,mi,mj] = sum_{r,s,c,mk} x[n, 2p+r, 2q+s, c, mi, mk] * w[k,r,s,c, mk, mj].
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @mcc_capsule(%x: memref<1x4x6x2x2x2xf32>, %w: memref<2x2x2x2x2x3xf32>) -> memref<1x2x3x2x2x3xf32> {
  %y = mdh.compute "mdh_mcc_capsule"
  {
    inp_view = [ [ affine_map<(n,p,q,k,mi,mj,r,s,c,mk) -> (n, 2*p + r, 2*q + s, c, mi, mk)> ],
                 [ affine_map<(n,p,q,k,mi,mj,r,s,c,mk) -> (k, r, s, c, mk, mj)> ] ],
    md_hom   = { scalar_func = @mul,
                 combine_ops = [ "cc", "cc", "cc", "cc", "cc", "cc",
                                 ["pw", @add], ["pw", @add], ["pw", @add], ["pw", @add] ] },
    out_view = [ [ affine_map<(n,p,q,k,mi,mj,r,s,c,mk) -> (n, p, q, k, mi, mj)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 1, 2, 3, 2, 2, 3, 2, 2, 2, 2 ], out_types = [ f32 ] }
  (%x, %w) : (memref<1x4x6x2x2x2xf32>, memref<2x2x2x2x2x3xf32>) -> memref<1x2x3x2x2x3xf32>
  func.return %y : memref<1x2x3x2x2x3xf32>
}
