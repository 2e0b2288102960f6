// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/matmul-vs-matvec.mlir (@matvec)
// Adapted: static sizes of @main (5x3, 3x2); the loop over columns of subviews kept as it is.
func.func @matvec(%A: memref<5x3xf32>, %B: memref<3x2xf32>) -> (memref<5x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 2 : index
  %f0 = arith.constant 0.0 : f32
  %C = memref.alloc() : memref<5x2xf32>
  linalg.fill ins(%f0 : f32) outs(%C : memref<5x2xf32>)
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.subview %B[0, %i][3, 1][1, 1] : memref<3x2xf32> to memref<3xf32, strided<[2], offset: ?>>
    %c = memref.subview %C[0, %i][5, 1][1, 1] : memref<5x2xf32> to memref<5xf32, strided<[2], offset: ?>>
    linalg.matvec ins(%A, %b: memref<5x3xf32>, memref<3xf32, strided<[2], offset: ?>>)
                  outs(%c: memref<5xf32, strided<[2], offset: ?>>)
  }
  return %C : memref<5x2xf32>
}
