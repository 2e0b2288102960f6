// Jacobi 3-D, 7-point sum: y[i,j,k] = the centre x[i+1,j+1,k+1] plus its six face
// neighbours (x is the 8x7x6 padded grid of the 6x5x4 result).
func.func @sum7(%c: f32, %xm: f32, %xp: f32, %ym: f32, %yp: f32, %zm: f32, %zp: f32) -> f32 {
  %s0 = arith.addf %c, %xm : f32
  %s1 = arith.addf %s0, %xp : f32
  %s2 = arith.addf %s1, %ym : f32
  %s3 = arith.addf %s2, %yp : f32
  %s4 = arith.addf %s3, %zm : f32
  %s5 = arith.addf %s4, %zp : f32
  func.return %s5 : f32
}
func.func @jacobi3d(%x: memref<8x7x6xf32>) -> memref<6x5x4xf32> {
  %y = mdh.compute "mdh_jacobi3d"
  {
    inp_view = [ [ affine_map<(i,j,k) -> (i + 1, j + 1, k + 1)>,
                   affine_map<(i,j,k) -> (i, j + 1, k + 1)>, affine_map<(i,j,k) -> (i + 2, j + 1, k + 1)>,
                   affine_map<(i,j,k) -> (i + 1, j, k + 1)>, affine_map<(i,j,k) -> (i + 1, j + 2, k + 1)>,
                   affine_map<(i,j,k) -> (i + 1, j + 1, k)>, affine_map<(i,j,k) -> (i + 1, j + 1, k + 2)> ] ],
    md_hom   = { scalar_func = @sum7, combine_ops = [ "cc", "cc", "cc" ] },
    out_view = [ [ affine_map<(i,j,k) -> (i,j,k)> ] ]
  }
  { inp_types = [ f32 ], mda_size = [ 6, 5, 4 ], out_types = [ f32 ] }
  (%x) : (memref<8x7x6xf32>) -> memref<6x5x4xf32>
  func.return %y : memref<6x5x4xf32>
}
