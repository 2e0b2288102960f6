// Dot product: r = sum_k x[k] * y[k]  (md_hom: *, (+)).
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @dot(%x: memref<100xf32>, %y: memref<100xf32>) -> memref<f32> {
  %r = mdh.compute "mdh_dot"
  {
    inp_view = [ [ affine_map<(k) -> (k)> ], [ affine_map<(k) -> (k)> ] ],
    md_hom   = { scalar_func = @mul, combine_ops = [ ["pw", @add] ] },
    out_view = [ [ affine_map<(k) -> ()> ] ]
  }
  { inp_types = [ f32, f32 ], mda_size = [ 100 ], out_types = [ f32 ] }
  (%x, %y) : (memref<100xf32>, memref<100xf32>) -> memref<f32>
  func.return %r : memref<f32>
}
