// Source: xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir (linalg.copy {id} on memrefs)
// Adapted: the values of "test.op" are function arguments.
func.func @copy(%m1: memref<4x16xf32>, %m3: memref<4x16xf32>) {
  linalg.copy {id} ins(%m1 : memref<4x16xf32>) outs(%m3 : memref<4x16xf32>)
  return
}
