// Transpose NHWC -> NCHW through the output view: y[n,c,h,w] = x[n,h,w,c]  (md_hom: id, (cc x4)).
func.func @id(%x: f32) -> f32 {
  func.return %x : f32
}
func.func @transpose(%x: memref<2x5x4x3xf32>) -> memref<2x3x5x4xf32> {
  %y = mdh.compute "mdh_transpose"
  {
    inp_view = [ [ affine_map<(n,h,w,c) -> (n,h,w,c)> ] ],
    md_hom   = { scalar_func = @id, combine_ops = [ "cc", "cc", "cc", "cc" ] },
    out_view = [ [ affine_map<(n,h,w,c) -> (n,c,h,w)> ] ]
  }
  { inp_types = [ f32 ], mda_size = [ 2, 5, 4, 3 ], out_types = [ f32 ] }
  (%x) : (memref<2x5x4x3xf32>) -> memref<2x3x5x4xf32>
  func.return %y : memref<2x3x5x4xf32>
}
