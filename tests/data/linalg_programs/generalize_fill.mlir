// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (@generalize_fill)
// Adapted: the dynamic sizes made static (4x6).
func.func @generalize_fill(%output: memref<4x6xf32>, %value : f32) {
  linalg.fill ins(%value : f32) outs(%output : memref<4x6xf32>)
  return
}
