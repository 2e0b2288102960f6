// BiasAdd on an NHWC tensor: y[n,h,w,c] = x[n,h,w,c] + bias[c]  (md_hom: +, (cc x4)).
func.func @add(%x: f32, %b: f32) -> f32 {
  %r = arith.addf %x, %b : f32
  func.return %r : f32
}
func.func @bias_add(%x: memref<2x5x4x3xf32>, %bias: memref<3xf32>) -> memref<2x5x4x3xf32> {
  %y = mdh.compute "mdh_bias_add"
  {
    inp_view = [ [ affine_map<(n,h,w,c) -> (n,h,w,c)> ], [ affine_map<(n,h,w,c) -> (c)> ] ],
    md_hom   = { scalar_func = @add, combine_ops = [ "cc", "cc", "cc", "cc" ] },
    out_view = [ [ affine_map<(n,h,w,c) -> (n,h,w,c)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 2, 5, 4, 3 ], out_types = [ f32 ] }
  (%x, %bias) : (memref<2x5x4x3xf32>, memref<3xf32>) -> memref<2x5x4x3xf32>
  func.return %y : memref<2x5x4x3xf32>
}
