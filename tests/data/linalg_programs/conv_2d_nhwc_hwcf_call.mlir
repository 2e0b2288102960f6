// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-conv-2d-nhwc-hwcf-call.mlir (@conv_2d_nhwc_hwcf)
// Adapted: the sizes of @main (input 3x4x4x1, filter 2x2x1x1, output 3x3x3x1) made static.
func.func @conv_2d_nhwc_hwcf(%arg0: memref<3x4x4x1xf32>, %arg1: memref<2x2x1x1xf32>, %arg2: memref<3x3x3x1xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}
     ins (%arg0, %arg1: memref<3x4x4x1xf32>, memref<2x2x1x1xf32>)
    outs (%arg2: memref<3x3x3x1xf32>)
  return
}
