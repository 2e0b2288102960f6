// Rule mma-inputs: TF32 tensor-core fragments for an op that did not ask for TF32 (its f32
// inputs are never rounded unasked).
// EXPECT: 10:3: mdh.compute "mm": configuration breaks rule 'mma-inputs': mma 'tf32' rounds f32 inputs to TF32, which only the op's own precision = "tf32" allows
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<16x8xf32>, %B: memref<8x16xf32>) -> memref<16x16xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [16, 16, 8], out_types = [f32],
     config = #mdh.config<mma = "tf32">}
    (%A, %B) : (memref<16x8xf32>, memref<8x16xf32>) -> memref<16x16xf32>
  func.return %C : memref<16x16xf32>
}
