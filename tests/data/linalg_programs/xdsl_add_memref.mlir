// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (linalg.add on memrefs)
// Adapted: the values of "test.op" are function arguments.
func.func @add(%m1: memref<4x16xf32>, %m2: memref<4x16xf32>, %m3: memref<4x16xf32>) {
  linalg.add ins(%m1, %m2 : memref<4x16xf32>, memref<4x16xf32>) outs(%m3 : memref<4x16xf32>) -> ()
  return
}
