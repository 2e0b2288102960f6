// mdh-promote-memory run on kernels that lower-to-opencl has expanded.
// ARGS-OPT: -p lower-to-opencl,mdh-promote-memory
// EXPECT-LOWER: ok
// EXPECT-RUN: ok
// EXPECT-TUNE: ok
// EXPECT: 12:3: mdh-promote-memory: kernel @mv_0 was already rewritten by lowlevel-swizzle-local (the passes of lower-to-opencl run once each, in its order)
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
