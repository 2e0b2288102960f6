// Gaussian blur / 2-D convolution with a 5x5 filter: y[h,w] = sum_{r,s} x[h+r, w+s] * g[r,s]
// (md_hom: *, (cc, cc, +, +); x is the 13x12 padded image of the 9x8 result).
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @gaussian(%x: memref<13x12xf32>, %g: memref<5x5xf32>) -> memref<9x8xf32> {
  %y = mdh.compute "mdh_gaussian"
  {
    inp_view = [ [ affine_map<(h,w,r,s) -> (h + r, w + s)> ], [ affine_map<(h,w,r,s) -> (r,s)> ] ],
    md_hom   = { scalar_func = @mul, combine_ops = [ "cc", "cc", ["pw", @add], ["pw", @add] ] },
    out_view = [ [ affine_map<(h,w,r,s) -> (h,w)> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 9, 8, 5, 5 ], out_types = [ f32 ] }
  (%x, %g) : (memref<13x12xf32>, memref<5x5xf32>) -> memref<9x8xf32>
  func.return %y : memref<9x8xf32>
}
