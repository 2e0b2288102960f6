// Inclusive prefix sum: y[n] = x[0] + ... + x[n]  (md_hom: id, (ps(+))).
func.func @id(%x: f32) -> f32 {
  func.return %x : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @prefix_sum(%x: memref<100xf32>) -> memref<100xf32> {
  %y = mdh.compute "mdh_prefix_sum"
  {
    inp_view = [ [ affine_map<(n) -> (n)> ] ],
    md_hom   = { scalar_func = @id, combine_ops = [ ["ps", @add] ] },
    out_view = [ [ affine_map<(n) -> (n)> ] ]
  }
  { inp_types = [ f32 ], mda_size = [ 100 ], out_types = [ f32 ] }
  (%x) : (memref<100xf32>) -> memref<100xf32>
  func.return %y : memref<100xf32>
}
