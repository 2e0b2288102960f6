// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/matmul-vs-matvec.mlir (@matmul)
// Adapted: the sizes of @main (5x3 times 3x2) made static, so memref.dim and the dynamic alloc sizes go.
func.func @matmul(%A: memref<5x3xf32>, %B: memref<3x2xf32>) -> (memref<5x2xf32>) {
  %f0 = arith.constant 0.0 : f32
  %C = memref.alloc() : memref<5x2xf32>
  linalg.fill ins(%f0 : f32) outs(%C : memref<5x2xf32>)
  linalg.matmul ins(%A, %B: memref<5x3xf32>, memref<3x2xf32>)
                outs(%C: memref<5x2xf32>)
  return %C : memref<5x2xf32>
}
