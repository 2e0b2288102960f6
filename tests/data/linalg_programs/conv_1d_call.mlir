// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-conv-1d-call.mlir (@conv_1d)
// Adapted: the sizes of @main (input 8, filter 3, output 6) made static.
func.func @conv_1d(%arg0: memref<8xf32>, %arg1: memref<3xf32>, %arg2: memref<6xf32>) {
  linalg.conv_1d ins (%arg0, %arg1: memref<8xf32>, memref<3xf32>)
                outs (%arg2: memref<6xf32>)
  return
}
