// Source: llvm/llvm-project mlir/test/Dialect/Linalg/named-ops.mlir (@transpose_memref), unchanged.
func.func @transpose_memref(%input: memref<16x32x64xf32>,
                            %init: memref<32x64x16xf32>) {
  linalg.transpose
      ins(%input:memref<16x32x64xf32>)
      outs(%init:memref<32x64x16xf32>)
      permutation = [1, 2, 0]
  func.return
}
