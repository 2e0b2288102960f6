// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-conv-2d-call.mlir (@conv_2d)
// Adapted: the sizes of @main (input 8x8, filter 3x3, output 6x6) made static.
func.func @conv_2d(%arg0: memref<8x8xf32>, %arg1: memref<3x3xf32>, %arg2: memref<6x6xf32>) {
  linalg.conv_2d ins (%arg0, %arg1: memref<8x8xf32>, memref<3x3xf32>)
                outs (%arg2: memref<6x6xf32>)
  return
}
