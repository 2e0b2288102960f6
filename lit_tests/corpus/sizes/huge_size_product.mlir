// Sizes whose product (2^124) overflows 64 bits.
// EXPECT: 10:3: mdh.compute "mv": configuration breaks rule 'index-range': OpenCL dim 0: global size 1152921504606846976 >= 2^31
// EXPECT-OPT: ok
// EXPECT-TUNE: 10:3: mdh.compute "mv": configuration breaks rule 'index-range': a buffer of 21267647932558653966460912964485513216 elements >= 2^31
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<4611686018427387904x4611686018427387904xf32>, %v: memref<4611686018427387904xf32>) -> memref<4611686018427387904xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [4611686018427387904, 4611686018427387904], out_types = [f32]}
    (%M, %v) : (memref<4611686018427387904x4611686018427387904xf32>, memref<4611686018427387904xf32>) -> memref<4611686018427387904xf32>
  func.return %w : memref<4611686018427387904xf32>
}
