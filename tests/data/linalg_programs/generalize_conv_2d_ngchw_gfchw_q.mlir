// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (@conv_2d_ngchw_gfchw_q)
// Adapted: the dynamic sizes made static (input 1x2x3x6x6, filter 2x4x3x3x3, output 1x2x4x4x4).
func.func @conv_2d_ngchw_gfchw_q(%input: memref<1x2x3x6x6xi8>, %filter: memref<2x4x3x3x3xi8>, %inputzp: i32, %filterzp: i32, %output: memref<1x2x4x4x4xi32>) {
  linalg.conv_2d_ngchw_gfchw_q {dilations = dense<1> : tensor<2xi64>,
                                       strides = dense<1> : tensor<2xi64>}
     ins (%input, %filter, %inputzp, %filterzp: memref<1x2x3x6x6xi8>, memref<2x4x3x3x3xi8>, i32, i32)
    outs (%output: memref<1x2x4x4x4xi32>)
  return
}
