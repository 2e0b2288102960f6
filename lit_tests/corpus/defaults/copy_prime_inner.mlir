// A copy whose inner dimension (13) is smaller than the CPU default's tile of 16: the
// tiles of 4 were merged into one of 16 > 13 (rule 'tile-sizes').
// EXPECT: ok
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @copy(%A: memref<127x13xf32>) -> memref<127x13xf32> {
  %w = mdh.compute "copy"
    {inp_view = [[affine_map<(i, j) -> (i, j)>]],
     md_hom = {scalar_func = @id, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, j) -> (i, j)>]]}
    {inp_types = [f32], mda_size = [127, 13], out_types = [f32]}
    (%A) : (memref<127x13xf32>) -> memref<127x13xf32>
  func.return %w : memref<127x13xf32>
}
