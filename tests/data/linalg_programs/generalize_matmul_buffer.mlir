// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (@generalize_matmul_buffer), unchanged.
func.func @generalize_matmul_buffer(%A : memref<16x8xf32>, %B: memref<8x32xf32>, %C: memref<16x32xf32>) {
  linalg.matmul ins(%A, %B: memref<16x8xf32>, memref<8x32xf32>)
               outs(%C: memref<16x32xf32>)
  return
}
