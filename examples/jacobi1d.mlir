// Jacobi 1-D, 3-point average: y[i] = (x[i-1] + x[i] + x[i+1]) / 3, reads outside x clamped
// to its edges (boundary "clamp"), so y has the size of x.
func.func @avg3(%l: f32, %c: f32, %r: f32) -> f32 {
  %s0 = arith.addf %l, %c : f32
  %s1 = arith.addf %s0, %r : f32
  %three = arith.constant 3.0 : f32
  %avg = arith.divf %s1, %three : f32
  func.return %avg : f32
}
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "mdh_jacobi1d"
  {
    inp_view = [ [ affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)> ] ],
    md_hom   = { scalar_func = @avg3, combine_ops = [ "cc" ] },
    out_view = [ [ affine_map<(i) -> (i)> ] ],
    boundary = [ "clamp" ]
  }
  { inp_types = [ f32 ], mda_size = [ 37 ], out_types = [ f32 ] }
  (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
