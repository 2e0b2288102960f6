// Rule tensor-cores: a tensor-core decision (mma "f16") on a device without tensor cores.
// EXPECT: 9:3: mdh.compute "mm": configuration breaks rule 'tensor-cores': mma 'f16' needs tensor cores (NVIDIA's compute capability 8.0 or later), which {model} does not have (compute capability {compute_capability})
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<16x8xf16>, %B: memref<8x16xf16>) -> memref<16x16xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f16, f16], mda_size = [16, 16, 8], out_types = [f32],
     config = #mdh.config<mma = "f16">}
    (%A, %B) : (memref<16x8xf16>, memref<8x16xf16>) -> memref<16x16xf32>
  func.return %C : memref<16x16xf32>
}
