// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (the second linalg.generic: a scalar plus linalg.index 0)
// Adapted: the values of "test.op" are function arguments.
func.func @index_fill(%0: f32, %1: memref<1x256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : f32) outs(%1 : memref<1x256xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
      %index = linalg.index 0 : index
      %cast_index = arith.index_cast %index : index to i64
      %convert_index = arith.sitofp %cast_index : i64 to f32
      %sum = arith.addf %arg3, %convert_index : f32
      linalg.yield %sum : f32
  }
  return
}
