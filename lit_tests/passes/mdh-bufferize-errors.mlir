// RUN: not mdh-opt %s --split-input-file -p mdh-bufferize 2>&1 | filecheck %s

// What mdh-bufferize refuses: one line per op, naming it and the reason.

// A fill of a value known only when the function runs.
func.func @fill(%x: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}

// CHECK: mdh-bufferize-errors.mlir:[[# @LINE - 4]]:3: error: linalg.fill: cannot bufferize: it fills a tensor with a value that is not a constant

// -----

// An op on tensors that has no buffer rule (here one convert-linalg-to-mdh did not
// convert).
func.func @left(%A: tensor<4x3xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %t = linalg.transpose ins(%A : tensor<4x3xf32>) outs(%e : tensor<3x4xf32>) permutation = [1, 0]
  func.return %t : tensor<3x4xf32>
}

// CHECK: mdh-bufferize-errors.mlir:[[# @LINE - 4]]:3: error: linalg.transpose: cannot bufferize: no buffer rule for this op on tensors
