// A scan along an inner dimension of 31 elements, one fewer than the tile of 32 the CPU
// default merged its vector tiles of 16 into (rule 'tile-sizes').
// EXPECT: ok
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @scan(%A: memref<5x17x31xf32>) -> memref<5x17x31xf32> {
  %w = mdh.compute "scan"
    {inp_view = [[affine_map<(i, j, k) -> (i, j, k)>]],
     md_hom = {scalar_func = @id, combine_ops = ["cc", "cc", ["ps", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j, k)>]]}
    {inp_types = [f32], mda_size = [5, 17, 31], out_types = [f32]}
    (%A) : (memref<5x17x31xf32>) -> memref<5x17x31xf32>
  func.return %w : memref<5x17x31xf32>
}
