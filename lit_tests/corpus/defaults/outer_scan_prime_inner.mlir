// A scan along the outer dimension (129) and a prime inner one (23), which the CPU
// default's vector tiles of 16 merged into 32 > 23 (rule 'tile-sizes').
// EXPECT: ok
func.func @id(%a: i32) -> i32 {
  func.return %a : i32
}
func.func @scan(%A: memref<129x23xi32>) -> memref<129x23xi32> {
  %w = mdh.compute "scan"
    {inp_view = [[affine_map<(i, j) -> (i, j)>]],
     md_hom = {scalar_func = @id, combine_ops = [["ps", "add"], "cc"]},
     out_view = [[affine_map<(i, j) -> (i, j)>]]}
    {inp_types = [i32], mda_size = [129, 23], out_types = [i32]}
    (%A) : (memref<129x23xi32>) -> memref<129x23xi32>
  func.return %w : memref<129x23xi32>
}
