// RUN: not mdh-opt %s 2>&1 | filecheck %s

// The half of a staged lowlevel.copy (lowlevel-prefetch) is "load" or "store".
// CHECK: half must be "load" or "store", got "both"
func.func @f(%a: memref<8xf32>, %b: memref<8xf32, "lcl">, %s: memref<1xf32, "prv">, %w: index) {
  lowlevel.copy %a[%w] -> %b staged "both" in %s : memref<1xf32, "prv"> extents [8] perms [0] -> [0] boundary "none" by %w of 8 : memref<8xf32> -> memref<8xf32, "lcl">
  func.return
}
