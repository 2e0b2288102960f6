// Max reduction over the first axis of a 3-D tensor: y[j,k] = max over i of x[i,j,k]
// (md_hom: id, (max, cc, cc)).
func.func @id(%x: f32) -> f32 {
  func.return %x : f32
}
func.func @max(%a: f32, %b: f32) -> f32 {
  %r = arith.maximumf %a, %b : f32
  func.return %r : f32
}
func.func @reduce_max(%x: memref<7x5x3xf32>) -> memref<5x3xf32> {
  %y = mdh.compute "mdh_reduce_max"
  {
    inp_view = [ [ affine_map<(i,j,k) -> (i,j,k)> ] ],
    md_hom   = { scalar_func = @id, combine_ops = [ ["pw", @max], "cc", "cc" ] },
    out_view = [ [ affine_map<(i,j,k) -> (j,k)> ] ]
  }
  { inp_types = [ f32 ], mda_size = [ 7, 5, 3 ], out_types = [ f32 ] }
  (%x) : (memref<7x5x3xf32>) -> memref<5x3xf32>
  func.return %y : memref<5x3xf32>
}
