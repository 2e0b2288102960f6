// RUN: not mdh-opt %s 2>&1 | filecheck %s

// A lowlevel.slot (lowlevel-prefetch, prefetch = 2) drops the leading axis of its source
// and keeps the element type and the memory space (passes/lowlevel-prefetch.mlir parses
// valid ones back).
// CHECK: a slot drops the leading axis and keeps element type and memory space
func.func @wrong_space(%b: memref<2x4x16xf32, "lcl">, %i: index) {
  %s = lowlevel.slot %b[%i] : memref<2x4x16xf32, "lcl"> to memref<4x16xf32, "prv">
  func.return
}
