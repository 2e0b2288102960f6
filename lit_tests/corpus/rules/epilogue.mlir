// Rule epilogue: an epilogue applies to final values, so an op with pw dimensions and an epilogue accumulates in private memory.
// EXPECT: 14:3: mdh.compute "mv": configuration breaks rule 'epilogue': an op with an epilogue and pw dimensions needs res_mem 'prv' (its final values are written once)
// EXPECT-OPT: ok
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @relu(%c: f32) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = arith.maximumf %c, %z : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]], epilogue = {func = @relu, inp_view = []}}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1], num_wi = [1, 1], lt_size = [8, 4], pt_size = [8, 4], res_mem = ["glb"]>}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
