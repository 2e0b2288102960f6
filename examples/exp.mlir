// Point-wise exponential of an NHWC tensor: y[n,h,w,c] = exp(x[n,h,w,c])  (md_hom: exp, (cc x4)).
func.func @exp(%x: f32) -> f32 {
  %r = math.exp %x : f32
  func.return %r : f32
}
func.func @exp_nhwc(%x: memref<2x5x4x3xf32>) -> memref<2x5x4x3xf32> {
  %y = mdh.compute "mdh_exp"
  {
    inp_view = [ [ affine_map<(n,h,w,c) -> (n,h,w,c)> ] ],
    md_hom   = { scalar_func = @exp, combine_ops = [ "cc", "cc", "cc", "cc" ] },
    out_view = [ [ affine_map<(n,h,w,c) -> (n,h,w,c)> ] ]
  }
  { inp_types = [ f32 ], mda_size = [ 2, 5, 4, 3 ], out_types = [ f32 ] }
  (%x) : (memref<2x5x4x3xf32>) -> memref<2x5x4x3xf32>
  func.return %y : memref<2x5x4x3xf32>
}
