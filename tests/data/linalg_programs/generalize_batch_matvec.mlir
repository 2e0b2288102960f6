// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (@generalize_batch_matm_vec)
// Adapted: the dynamic sizes made static (2x3x4 times 2x4).
func.func @generalize_batch_matm_vec(%lhs : memref<2x3x4xi8>, %rhs: memref<2x4xi8>,  %out: memref<2x3xf32>) {
  linalg.batch_matvec ins(%lhs, %rhs: memref<2x3x4xi8>, memref<2x4xi8>)
                     outs(%out: memref<2x3xf32>)
  return
}
