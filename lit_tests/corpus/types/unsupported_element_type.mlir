// f16 is an input type only: outputs are computed in f32.
// EXPECT: 8:3: mdh.compute "mv": out_types: unsupported element type f16 (expected f32, f64, i32 or i64) (f16 and bf16 are input types: outputs are computed in f32)
func.func @mul(%a: f16, %b: f16) -> f16 {
  %r = arith.mulf %a, %b : f16
  func.return %r : f16
}
func.func @mv(%M: memref<8x4xf16>, %v: memref<4xf16>) -> memref<8xf16> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f16, f16], mda_size = [8, 4], out_types = [f16]}
    (%M, %v) : (memref<8x4xf16>, memref<4xf16>) -> memref<8xf16>
  func.return %w : memref<8xf16>
}
